"""Reads and writes of a hospital's doctors: the platform account joined to the
tenant profile in one statement (no query per doctor)."""

from __future__ import annotations

import uuid

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from cara.models import Account, DoctorProfile


def _doctors(hospital_id: uuid.UUID) -> Select[tuple[Account, DoctorProfile]]:
    return (
        select(Account, DoctorProfile)
        .join(DoctorProfile, DoctorProfile.account_id == Account.id)
        .where(Account.hospital_id == hospital_id, Account.role == "doctor")
    )


def list_for_hospital(
    session: Session, hospital_id: uuid.UUID, *, hospital_created: bool | None
) -> list[tuple[Account, DoctorProfile]]:
    query = _doctors(hospital_id)
    if hospital_created is not None:
        query = query.where(DoctorProfile.is_hospital_created.is_(hospital_created))
    rows = session.execute(query.order_by(Account.name, Account.id)).tuples().all()
    return list(rows)


def get_for_hospital(
    session: Session, hospital_id: uuid.UUID, doctor_id: uuid.UUID, *, lock: bool = False
) -> tuple[Account, DoctorProfile] | None:
    query = _doctors(hospital_id).where(Account.id == doctor_id)
    if lock:
        query = query.with_for_update()
    row = session.execute(query).tuples().first()
    return (row[0], row[1]) if row else None
