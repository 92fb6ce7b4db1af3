"""Every query of the auth domain."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from cara.models import Account, DoctorProfile, Hospital, PasswordReset, Tenant


def account_by_email(session: Session, email: str) -> Account | None:
    return session.scalar(select(Account).where(Account.email == email))


def email_taken(session: Session, email: str) -> bool:
    return session.scalar(select(Account.id).where(Account.email == email)) is not None


def tenant_of(session: Session, account: Account) -> Tenant | None:
    return session.get(Tenant, account.tenant_id) if account.tenant_id else None


def hospital(session: Session, hospital_id: uuid.UUID) -> Hospital | None:
    return session.get(Hospital, hospital_id)


def doctor_profile(session: Session, account_id: uuid.UUID) -> DoctorProfile | None:
    """Reads the profile from the tenant the session is bound to."""
    return session.scalar(select(DoctorProfile).where(DoctorProfile.account_id == account_id))


def reset_by_hash(session: Session, token_hash: str) -> PasswordReset | None:
    return session.scalar(
        select(PasswordReset).where(PasswordReset.token_hash == token_hash).with_for_update()
    )


def invalidate_resets(session: Session, account_id: uuid.UUID, now: datetime) -> None:
    session.execute(
        update(PasswordReset)
        .where(PasswordReset.account_id == account_id, PasswordReset.used_at.is_(None))
        .values(used_at=now)
    )
