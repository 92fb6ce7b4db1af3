"""Every query of the auth domain."""

from __future__ import annotations

import functools
import uuid
from datetime import datetime
from typing import Any

import psycopg
from psycopg import sql
from psycopg.pq import ExecStatus
from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session

from cara.kit.db import async_connection, read_only_preamble
from cara.models import (
    Account,
    DoctorProfile,
    EmailChange,
    Hospital,
    MfaRecoveryCode,
    PasswordReset,
    SessionFamily,
    Tenant,
)


def account_by_email(session: Session, email: str) -> Account | None:
    return session.scalar(select(Account).where(Account.email == email))


def email_taken(session: Session, email: str) -> bool:
    return session.scalar(select(Account.id).where(Account.email == email)) is not None


# Built once: a statement object keeps its cache key, so the statements run on every request
# skip SQLAlchemy's per-call construction and cache-key walk.
_ACCOUNT_WITH_TENANT = (
    select(Account, Tenant.schema_name, Tenant.kind, Tenant.status)
    .outerjoin(Tenant, Tenant.id == Account.tenant_id)
    .where(Account.id == bindparam("account_id"))
)
_DOCTOR_PROFILE = select(DoctorProfile).where(DoctorProfile.account_id == bindparam("account_id"))


def account_with_tenant(
    session: Session, account_id: uuid.UUID
) -> tuple[Account, str | None, str | None, str | None] | None:
    """The account with its tenant's schema, kind and status (all None without a tenant)."""
    row = session.execute(_ACCOUNT_WITH_TENANT, {"account_id": account_id}).first()
    return None if row is None else (row[0], row[1], row[2], row[3])


def tenant_of(session: Session, account: Account) -> Tenant | None:
    return session.get(Tenant, account.tenant_id) if account.tenant_id else None


def hospital(session: Session, hospital_id: uuid.UUID) -> Hospital | None:
    return session.get(Hospital, hospital_id)


def doctor_profile(session: Session, account_id: uuid.UUID) -> DoctorProfile | None:
    """Reads the profile from the tenant the session is bound to."""
    return session.scalar(_DOCTOR_PROFILE, {"account_id": account_id})


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


def reset_with_email(session: Session, reset_id: uuid.UUID) -> tuple[PasswordReset, str] | None:
    """A password reset and its account's email, the reset locked until commit (mailed once)."""
    row = session.execute(
        select(PasswordReset, Account.email)
        .join(Account, Account.id == PasswordReset.account_id)
        .where(PasswordReset.id == reset_id)
        .with_for_update(of=PasswordReset)
    ).first()
    return None if row is None else (row[0], row[1])


def delete_resets_expired_before(session: Session, cutoff: datetime) -> None:
    session.execute(delete(PasswordReset).where(PasswordReset.expires_at < cutoff))


def email_change_by_hash(session: Session, kind: str, token_hash: str) -> EmailChange | None:
    """The email change of this link, locked until commit (a link is used once)."""
    return session.scalar(
        select(EmailChange)
        .where(EmailChange.kind == kind, EmailChange.token_hash == token_hash)
        .with_for_update()
    )


def account_for_update(session: Session, account_id: uuid.UUID) -> Account | None:
    return session.get(Account, account_id, with_for_update=True)


def unverified_hospital_schemas(session: Session, created_before: datetime) -> list[str]:
    return list(
        session.scalars(
            select(Tenant.schema_name)
            .join(Account, Account.tenant_id == Tenant.id)
            .where(
                Account.role == "hospital",
                Account.email_verified_at.is_(None),
                Account.created_at < created_before,
                Tenant.kind == "hospital",
            )
            .order_by(Account.created_at)
        )
    )


def session_family_for_update(session: Session, family_id: uuid.UUID) -> SessionFamily | None:
    return session.get(SessionFamily, family_id, with_for_update=True)


def revoke_session_families(session: Session, account_id: uuid.UUID, now: datetime) -> list[uuid.UUID]:
    """Revoke every live session family of the account; their ids."""
    return list(
        session.scalars(
            update(SessionFamily)
            .where(SessionFamily.account_id == account_id, SessionFamily.revoked_at.is_(None))
            .values(revoked_at=now)
            .returning(SessionFamily.id)
        )
    )


def doctors_without_mfa_for_update(session: Session, hospital_id: uuid.UUID) -> list[Account]:
    """The hospital's doctors with no two-factor sign-in enrolled (`mfa.is_enabled` false),
    locked until commit so an enrolment cannot cross the sign-out."""
    return list(
        session.scalars(
            select(Account)
            .where(
                Account.hospital_id == hospital_id,
                Account.role == "doctor",
                (Account.mfa_enabled_at.is_(None)) | (Account.mfa_secret.is_(None)),
            )
            .order_by(Account.id)
            .with_for_update()
        )
    )


def revoke_session_families_of(session: Session, account_ids: list[uuid.UUID], now: datetime) -> None:
    """`revoke_session_families` for several accounts in one statement."""
    if account_ids:
        session.execute(
            update(SessionFamily)
            .where(SessionFamily.account_id.in_(account_ids), SessionFamily.revoked_at.is_(None))
            .values(revoked_at=now)
        )


def unused_recovery_code(session: Session, account_id: uuid.UUID, code_hash: str) -> MfaRecoveryCode | None:
    """The account's unused recovery code with this hash, locked until commit (used once)."""
    return session.scalar(
        select(MfaRecoveryCode)
        .where(
            MfaRecoveryCode.account_id == account_id,
            MfaRecoveryCode.code_hash == code_hash,
            MfaRecoveryCode.used_at.is_(None),
        )
        .with_for_update()
    )


def unused_recovery_code_count(session: Session, account_id: uuid.UUID) -> int:
    return int(
        session.scalar(
            select(func.count())
            .select_from(MfaRecoveryCode)
            .where(MfaRecoveryCode.account_id == account_id, MfaRecoveryCode.used_at.is_(None))
        )
        or 0
    )


def replace_recovery_codes(session: Session, account_id: uuid.UUID, code_hashes: list[str]) -> None:
    """The account's recovery codes become exactly these (none: all removed)."""
    session.execute(delete(MfaRecoveryCode).where(MfaRecoveryCode.account_id == account_id))
    if code_hashes:
        session.execute(
            insert(MfaRecoveryCode),
            [{"id": uuid.uuid4(), "account_id": account_id, "code_hash": h} for h in code_hashes],
        )


# ---------------------------------------------------------------- the signed-in user, one round trip

_USER_COLUMNS = (
    "a.id, a.name, a.email, a.role, a.phone_number, a.is_active, a.is_verified,"
    " a.email_verified_at IS NOT NULL, a.hospital_id,"
    " h.name, h.is_verified, h.country, h.state, current_user"
)
_PROFILE_COLUMNS = (
    ", p.specialty, p.profile_picture, p.license_number, p.experience, p.country, p.state,"
    " p.education, p.certifications, p.work_history, p.availability, p.is_hospital_created"
)
_USER_FROM = " FROM platform.accounts a LEFT JOIN platform.hospitals h ON h.id = a.hospital_id"
UserRow = tuple[Any, ...]


def _user_query(account_id: uuid.UUID, schema: str | None, role: str | None) -> bytes:
    """One simple-query string, so one round trip: BEGIN, the tenant's role (SET LOCAL), the
    account with its hospital and (in the tenant's schema) its doctor profile, COMMIT. No
    parameters (a multi-statement string cannot carry them): identifiers are quoted by
    psycopg.sql once per tenant (`_user_query_head`), and the id is a UUID's own text."""
    if not isinstance(account_id, uuid.UUID):
        account_id = uuid.UUID(str(account_id))
    return _user_query_head(schema, role) + b"'" + str(account_id).encode() + b"'; COMMIT"


# One entry per tenant: sized for tens of thousands of hospitals (at 4,096 the cache was
# emptied over and over by a load spread over 10,000, ops/bench/foundation.py section 3).
@functools.lru_cache(maxsize=65536)
def _user_query_head(schema: str | None, role: str | None) -> bytes:
    """The query up to the account id (`WHERE a.id = `): the same for every user of a tenant."""
    parts: list[sql.Composable] = [read_only_preamble(role)]
    if schema is not None:
        parts.append(
            sql.SQL(
                "SELECT "
                + _USER_COLUMNS
                + _PROFILE_COLUMNS
                + _USER_FROM
                + " LEFT JOIN {}.doctors p ON p.account_id = a.id AND a.role = 'doctor'"
            ).format(sql.Identifier(schema))
        )
    else:
        parts.append(sql.SQL("SELECT " + _USER_COLUMNS + _USER_FROM))
    parts.append(sql.SQL(" WHERE a.id = "))
    return sql.Composed(parts).as_bytes(None)


async def user_row(account_id: uuid.UUID, schema: str | None, role: str | None) -> UserRow | None:
    """The account, its hospital, the database role the read ran under (`current_user`, index
    13) and its doctor profile (from index 14) as one row (None: no such account), read on the
    event loop over the async pool (cara.kit.db.async_connection)."""
    query = _user_query(account_id, schema, role)
    for attempt in (1, 2):
        try:
            async with async_connection() as conn:
                cursor = await conn.execute(query)
                # BEGIN, SET: on to the SELECT's result. By its status, not `description`,
                # which builds a column object for each of the 25 columns every time it is read.
                while (result := cursor.pgresult) is None or result.status != ExecStatus.TUPLES_OK:
                    if not cursor.nextset():
                        return None
                row = await cursor.fetchone()
                return None if row is None else tuple(row)
        except psycopg.OperationalError:
            # A pooled connection closed by the server or a proxy (the pool drops it): once
            # more on another, as the engine's pre-ping does for an idle connection.
            if attempt == 2:
                raise
    return None
