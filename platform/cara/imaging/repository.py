"""Every query of the imaging domain: the hospital's PACS row and the studies' holders."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from cara.models.tenant import ImagingStudy, PacsSettings

HOSPITAL_OWNER = "hospital"


def pacs_settings(session: Session) -> PacsSettings | None:
    return session.get(PacsSettings, HOSPITAL_OWNER)


def save_pacs_settings(
    session: Session, base_url: str, username: str | None, password_encrypted: str | None
) -> PacsSettings:
    row = session.get(PacsSettings, HOSPITAL_OWNER, with_for_update=True)
    if row is None:
        row = PacsSettings(owner=HOSPITAL_OWNER, base_url=base_url)
        session.add(row)
    row.base_url = base_url
    row.username = username
    row.password_encrypted = password_encrypted
    session.flush()
    return row


def delete_pacs_settings(session: Session) -> None:
    row = session.get(PacsSettings, HOSPITAL_OWNER, with_for_update=True)
    if row is not None:
        session.delete(row)
        session.flush()


def studies_by_uid(session: Session, uids: Sequence[str]) -> dict[str, ImagingStudy]:
    """The tenant's rows for these StudyInstanceUIDs, locked: whoever holds them."""
    if not uids:
        return {}
    rows = session.scalars(
        select(ImagingStudy).where(ImagingStudy.study_instance_uid.in_(list(uids))).with_for_update()
    )
    return {row.study_instance_uid: row for row in rows}


def add_study(
    session: Session,
    *,
    study_uid: str,
    doctor_id: uuid.UUID,
    consultation_id: uuid.UUID | None,
    pacs: str,
    instance_count: int,
) -> ImagingStudy:
    row = ImagingStudy(
        study_instance_uid=study_uid,
        doctor_account_id=doctor_id,
        consultation_id=consultation_id,
        pacs=pacs,
        instance_count=instance_count,
    )
    session.add(row)
    session.flush()
    return row


def doctor_studies(
    session: Session, doctor_id: uuid.UUID, *, consultation_id: uuid.UUID | None, limit: int
) -> list[ImagingStudy]:
    """The doctor's studies, newest first."""
    query = select(ImagingStudy).where(ImagingStudy.doctor_account_id == doctor_id)
    if consultation_id is not None:
        query = query.where(ImagingStudy.consultation_id == consultation_id)
    query = query.order_by(ImagingStudy.created_at.desc(), ImagingStudy.id).limit(limit)
    return list(session.scalars(query))
