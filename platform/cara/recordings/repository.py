"""Every query of the recordings domain."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, time
from typing import Any

from sqlalchemy import DateTime, Select, delete, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, defer
from sqlalchemy.orm.attributes import set_committed_value

from cara.kit.validation import EARLIEST_DAY, LATEST_DAY
from cara.models import RecordingPart, RecordingUpload

# An upload's start time, read brought into the range the API accepts (kit.validation). One
# stored before that range was checked may lie outside what Python can hold (year 1 at +14:00
# is year 0 in UTC), and reading it as is would fail every read of the doctor's uploads.
_RECORDED_AT = func.greatest(
    func.least(
        RecordingUpload.recorded_at,
        datetime.combine(LATEST_DAY, time.max, tzinfo=UTC),
        type_=DateTime(timezone=True),
    ),
    datetime.combine(EARLIEST_DAY, time.min, tzinfo=UTC),
    type_=DateTime(timezone=True),
)


def _uploads() -> Select[tuple[RecordingUpload, datetime]]:
    return select(RecordingUpload, _RECORDED_AT).options(defer(RecordingUpload.recorded_at))


def _loaded(rows: Any) -> list[RecordingUpload]:
    uploads = []
    for upload, recorded_at in rows:
        set_committed_value(upload, "recorded_at", recorded_at)
        uploads.append(upload)
    return uploads


def _one(session: Session, query: Select[tuple[RecordingUpload, datetime]]) -> RecordingUpload | None:
    return next(iter(_loaded(session.execute(query))), None)


def add_upload(session: Session, upload: RecordingUpload) -> RecordingUpload | None:
    """The new upload, or None when the same capture was created meanwhile (another request)."""
    try:
        with session.begin_nested():
            session.add(upload)
            session.flush()
    except IntegrityError:
        return None
    return upload


def by_client_id(session: Session, doctor_id: uuid.UUID, client_id: uuid.UUID) -> RecordingUpload | None:
    return _one(
        session,
        _uploads().where(
            RecordingUpload.doctor_account_id == doctor_id, RecordingUpload.client_id == client_id
        ),
    )


def doctor_upload(
    session: Session, doctor_id: uuid.UUID, upload_id: uuid.UUID, *, for_update: bool = False
) -> RecordingUpload | None:
    query = _uploads().where(RecordingUpload.id == upload_id, RecordingUpload.doctor_account_id == doctor_id)
    if for_update:
        query = query.with_for_update(of=RecordingUpload)
    return _one(session, query)


def upload_for_update(session: Session, upload_id: uuid.UUID) -> RecordingUpload | None:
    """The worker's read: the job names the upload in its own tenant schema."""
    return _one(
        session, _uploads().where(RecordingUpload.id == upload_id).with_for_update(of=RecordingUpload)
    )


def recent(session: Session, doctor_id: uuid.UUID, limit: int) -> list[RecordingUpload]:
    return _loaded(
        session.execute(
            _uploads()
            .where(RecordingUpload.doctor_account_id == doctor_id)
            .order_by(RecordingUpload.created_at.desc(), RecordingUpload.id.desc())
            .limit(limit)
        )
    )


def add_part(session: Session, upload_id: uuid.UUID, offset: int, data: bytes) -> None:
    session.add(RecordingPart(upload_id=upload_id, offset=offset, data=data))
    session.flush()


def recording(session: Session, upload_id: uuid.UUID) -> bytes:
    """The received bytes, in order."""
    parts = session.scalars(
        select(RecordingPart.data).where(RecordingPart.upload_id == upload_id).order_by(RecordingPart.offset)
    )
    return b"".join(parts)


def delete_parts(session: Session, upload_id: uuid.UUID) -> None:
    session.execute(delete(RecordingPart).where(RecordingPart.upload_id == upload_id))


def abandoned(session: Session, receiving_before: datetime, failed_before: datetime) -> list[uuid.UUID]:
    """Uploads never completed and untouched since `receiving_before`, and failed or waiting ones
    untouched since `failed_before`."""
    return list(
        session.scalars(
            select(RecordingUpload.id).where(
                or_(
                    (RecordingUpload.state == "receiving") & (RecordingUpload.updated_at < receiving_before),
                    RecordingUpload.state.in_(("failed", "waiting"))
                    & (RecordingUpload.updated_at < failed_before),
                )
            )
        )
    )


# States whose audio is still stored (it is deleted once the transcript is kept).
HOLDING_AUDIO = ("receiving", "processing", "waiting", "failed")


def open_uploads(session: Session, doctor_id: uuid.UUID) -> int:
    """The doctor's uploads still receiving chunks."""
    return (
        session.scalar(
            select(func.count())
            .select_from(RecordingUpload)
            .where(RecordingUpload.doctor_account_id == doctor_id, RecordingUpload.state == "receiving")
        )
        or 0
    )


def received_since(session: Session, doctor_id: uuid.UUID, since: datetime) -> tuple[int, datetime | None]:
    """Bytes of the doctor's uploads started since `since`, and when the earliest of them started."""
    total, earliest = session.execute(
        select(
            func.coalesce(func.sum(RecordingUpload.received_bytes), 0), func.min(RecordingUpload.created_at)
        ).where(RecordingUpload.doctor_account_id == doctor_id, RecordingUpload.created_at >= since)
    ).one()
    return int(total), earliest


def held_bytes(session: Session, doctor_id: uuid.UUID | None = None) -> int:
    """Audio bytes stored in this tenant schema (or for one doctor of it)."""
    query = select(func.coalesce(func.sum(RecordingUpload.received_bytes), 0)).where(
        RecordingUpload.state.in_(HOLDING_AUDIO)
    )
    if doctor_id is not None:
        query = query.where(RecordingUpload.doctor_account_id == doctor_id)
    return int(session.scalar(query) or 0)


def last_part_size(session: Session, upload_id: uuid.UUID) -> int | None:
    """The size of the upload's latest chunk (None before the first)."""
    return session.scalar(
        select(func.octet_length(RecordingPart.data))
        .where(RecordingPart.upload_id == upload_id)
        .order_by(RecordingPart.offset.desc())
        .limit(1)
    )


def delete_uploads(session: Session, upload_ids: Sequence[uuid.UUID]) -> None:
    """The uploads and their audio (parts go with them: ON DELETE CASCADE)."""
    session.execute(delete(RecordingUpload).where(RecordingUpload.id.in_(upload_ids)))
