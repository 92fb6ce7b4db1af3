"""Every query of the consultation record. The session is bound to the caller's tenant schema;
every read is also filtered by the doctor (the shared `independent` schema holds many doctors)."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session

from cara.models import Consultation, RecordSettings


def add_consultation(session: Session, consultation: Consultation) -> Consultation:
    session.add(consultation)
    session.flush()
    return consultation


def doctor_consultation(
    session: Session, doctor_id: uuid.UUID, consultation_id: uuid.UUID, *, for_update: bool = False
) -> Consultation | None:
    query = select(Consultation).where(
        Consultation.id == consultation_id, Consultation.doctor_account_id == doctor_id
    )
    if for_update:
        query = query.with_for_update()
    return session.scalar(query)


def settings_row(session: Session, owner: str) -> RecordSettings | None:
    return session.get(RecordSettings, owner)
