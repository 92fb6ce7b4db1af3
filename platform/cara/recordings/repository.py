"""Every query of the recordings domain."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, time
from typing import Any

from sqlalchemy import DateTime, Select, delete, func, select
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


def abandoned(session: Session, before: datetime) -> list[uuid.UUID]:
    """Uploads never completed, or failed, and untouched since `before`."""
    return list(
        session.scalars(
            select(RecordingUpload.id).where(
                RecordingUpload.state.in_(("receiving", "failed")), RecordingUpload.updated_at < before
            )
        )
    )


def delete_uploads(session: Session, upload_ids: Sequence[uuid.UUID]) -> None:
    """The uploads and their audio (parts go with them: ON DELETE CASCADE)."""
    session.execute(delete(RecordingUpload).where(RecordingUpload.id.in_(upload_ids)))
