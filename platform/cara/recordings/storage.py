"""How much recorded audio one doctor and one tenant may hold (settings `recording_*`).

Audio is only kept until it is transcribed, but until then it lives in the tenant's database,
so without limits one account could fill the disk every tenant shares. The limits:

- per doctor, uploads still receiving at once (`create`, 429) and bytes received in the last
  24 hours (`chunk`, 429 with the wait);
- per hospital, the audio held for all its doctors; in the independent doctors' shared tenant,
  each doctor's own, so one of them cannot fill it for the others (507);
- a chunk smaller than `recording_min_chunk_bytes` is the upload's last: the next one is 422
  (stored chunks each cost a row and its overhead, so tiny ones multiplied the disk used).

Nothing stored is touched when a limit is reached: the browser keeps the recording and sends
it later. Two chunk uploads checked at the same moment may each pass a limit, so it can be
passed by at most one chunk per upload open at once (`recording_max_open_uploads` chunks of
512 KiB): a bound, not a hole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy.orm import Session

from cara.auth.principal import Principal
from cara.config import get_settings
from cara.kit.errors import InsufficientStorage, TooManyRequests, ValidationFailed
from cara.models import RecordingUpload
from cara.models.base import utcnow
from cara.recordings import repository
from cara.recordings.schemas import RecordingStorageOut
from tenants.naming import INDEPENDENT_SCHEMA

DAY = timedelta(hours=24)
MB = 1024 * 1024


def _mb(size: int) -> str:
    return f"{math.ceil(size / MB):,} MB"


def _wait_text(seconds: int) -> str:
    hours, rest = divmod(max(seconds, 60), 3600)
    minutes = math.ceil(rest / 60)
    if hours and minutes:
        return f"{hours} h {minutes} min"
    return f"{hours} h" if hours else f"{minutes} min"


@dataclass(frozen=True)
class Quota:
    """Where audio is counted against `limit`: the whole tenant, or one doctor of the shared one."""

    limit: int
    shared_tenant: bool


def quota_for(principal: Principal) -> Quota:
    settings = get_settings()
    if principal.tenant_schema == INDEPENDENT_SCHEMA:
        return Quota(settings.recording_independent_quota_bytes, shared_tenant=True)
    return Quota(settings.recording_tenant_quota_bytes, shared_tenant=False)


def check_open_uploads(session: Session, principal: Principal) -> None:
    """Before a new upload is made."""
    most = get_settings().recording_max_open_uploads
    if repository.open_uploads(session, principal.id) >= most:
        raise TooManyRequests(
            f"{most} recordings are still being sent from your devices. "
            "This one waits on this device and is sent when one of them is finished.",
            retry_after=60,
        )


def check_chunk(session: Session, principal: Principal, upload: RecordingUpload, size: int) -> None:
    """Before `size` more bytes of `upload` are stored."""
    settings = get_settings()
    minimum = settings.recording_min_chunk_bytes
    last = repository.last_part_size(session, upload.id)
    if last is not None and last < minimum:
        raise ValidationFailed(
            {"data": f"Only the last chunk may be smaller than {minimum // 1024} KiB."},
            message=f"Only the last chunk of a recording may be smaller than {minimum // 1024} KiB.",
        )
    now = utcnow()
    today, earliest = repository.received_since(session, principal.id, now - DAY)
    daily = settings.recording_daily_bytes
    if today + size > daily:
        wait = int(((earliest or now) + DAY - now).total_seconds()) if earliest else int(DAY.total_seconds())
        raise TooManyRequests(
            f"You have sent {_mb(today)} of recordings in the last 24 hours, the most allowed "
            f"is {_mb(daily)}. The recording waits on this device; it can be sent again in "
            f"{_wait_text(wait)}.",
            retry_after=max(wait, 60),
        )
    quota = quota_for(principal)
    held = repository.held_bytes(session, principal.id if quota.shared_tenant else None)
    if held + size > quota.limit:
        whose = "your account" if quota.shared_tenant else "your hospital"
        raise InsufficientStorage(
            f"The recordings waiting to be processed for {whose} fill its storage "
            f"({_mb(quota.limit)}). This one waits on this device and is sent once earlier "
            "recordings are processed or removed."
        )


def usage(session: Session, principal: Principal) -> RecordingStorageOut:
    """What a hospital (its tenant) or a doctor (as counted for them) holds, against the limits."""
    settings = get_settings()
    common = {
        "maxOpenUploads": settings.recording_max_open_uploads,
        "dailyBytes": settings.recording_daily_bytes,
    }
    if principal.role == "hospital":
        return RecordingStorageOut(
            heldBytes=repository.held_bytes(session),
            quotaBytes=settings.recording_tenant_quota_bytes,
            openUploads=None,
            receivedTodayBytes=None,
            **common,
        )
    quota = quota_for(principal)
    today, _ = repository.received_since(session, principal.id, utcnow() - DAY)
    return RecordingStorageOut(
        heldBytes=repository.held_bytes(session, principal.id if quota.shared_tenant else None),
        quotaBytes=quota.limit,
        openUploads=repository.open_uploads(session, principal.id),
        receivedTodayBytes=today,
        **common,
    )
