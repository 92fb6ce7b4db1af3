"""Reads and writes of a hospital's doctors: the platform account joined to the
tenant profile in one statement (no query per doctor)."""

from __future__ import annotations

import uuid
from decimal import Decimal

from sqlalchemy import Select, func, select
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


def list_version(
    session: Session, hospital_id: uuid.UUID, *, hospital_created: bool | None
) -> tuple[int, Decimal | None, Decimal | None]:
    """How many doctors the list holds, and the exact sums of their accounts' and profiles'
    `updated_at` instants: any change to the list changes one of the three."""
    query = (
        select(
            func.count(),
            # numeric in PostgreSQL: exact to the microsecond, however many rows are summed
            func.sum(func.extract("epoch", Account.updated_at)),
            func.sum(func.extract("epoch", DoctorProfile.updated_at)),
        )
        .select_from(Account)
        .join(DoctorProfile, DoctorProfile.account_id == Account.id)
        .where(Account.hospital_id == hospital_id, Account.role == "doctor")
    )
    if hospital_created is not None:
        query = query.where(DoctorProfile.is_hospital_created.is_(hospital_created))
    count, accounts_changed, profiles_changed = session.execute(query).one()
    return int(count), accounts_changed, profiles_changed
