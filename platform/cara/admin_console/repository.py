"""Every query of the admin console. Lists are one query for the page plus one
count; no per-row queries and no tenant schema is opened."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from psycopg import sql
from sqlalchemy import Select, and_, func, or_, select
from sqlalchemy.orm import Session

from cara.kit.db import fetch_sets
from cara.kit.listing import ListQuery
from cara.models import (
    Account,
    AuditEvent,
    Hospital,
    Payment,
    Plan,
    Tenant,
    TenantRollup,
)


def _page(
    session: Session, stmt: Select[Any], order: Any, query: ListQuery, tiebreak: Any
) -> tuple[list[Any], int]:
    total = session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery())) or 0
    ordered = stmt.order_by(order.desc() if query.descending else order.asc(), tiebreak)
    rows = session.execute(ordered.offset(query.start).limit(query.limit)).all()
    return list(rows), int(total)


def _like(value: str) -> str:
    return "%" + value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


# ------------------------------------------------------------------ hospitals

HOSPITAL_SORT = {
    "name": Hospital.name,
    "email": Hospital.email,
    "city": Hospital.state,
    "country": Hospital.country,
    "isVerified": Hospital.is_verified,
    "status": Tenant.status,
    "doctorsCount": func.coalesce(TenantRollup.doctors_total, 0),
    "createdAt": Hospital.created_at,
}


def _hospitals() -> Select[Any]:
    return (
        select(Hospital, Tenant.status, func.coalesce(TenantRollup.doctors_total, 0))
        .join(Tenant, Tenant.id == Hospital.tenant_id)
        .outerjoin(TenantRollup, TenantRollup.tenant_id == Tenant.id)
    )


def tenants_with_names(session: Session) -> list[tuple[str, uuid.UUID | None, str | None]]:
    """Every tenant: (schema, hospital id, hospital name); the independent one has no hospital."""
    rows = session.execute(
        select(Tenant.schema_name, Hospital.id, Hospital.name).outerjoin(
            Hospital, Hospital.tenant_id == Tenant.id
        )
    ).all()
    return [(r[0], r[1], r[2]) for r in rows]


def hospital_row(session: Session, hospital_id: uuid.UUID) -> Any | None:
    return session.execute(_hospitals().where(Hospital.id == hospital_id)).first()


def hospital_with_tenant(session: Session, hospital_id: uuid.UUID) -> tuple[Hospital, Tenant] | None:
    row = session.execute(
        select(Hospital, Tenant)
        .join(Tenant, Tenant.id == Hospital.tenant_id)
        .where(Hospital.id == hospital_id)
        .with_for_update()
    ).first()
    return (row[0], row[1]) if row else None


# ------------------------------------------------------------------ doctors

DOCTOR_SORT = {
    "name": Account.name,
    "email": Account.email,
    "specialization": Account.specialty,
    "hospitalName": Hospital.name,
    "isVerified": Account.is_verified,
    "isActive": Account.is_active,
    "createdAt": Account.created_at,
}


def _doctors() -> Select[Any]:
    return (
        select(Account, Hospital.name)
        .outerjoin(Hospital, Hospital.id == Account.hospital_id)
        .where(Account.role == "doctor")
    )


def list_doctors(
    session: Session, query: ListQuery, *, q: str | None, specialty: str | None, verified: bool | None
) -> tuple[list[Any], int]:
    stmt = _doctors()
    if q:
        pattern = _like(q)
        stmt = stmt.where(or_(Account.name.ilike(pattern), Account.email.ilike(pattern)))
    if specialty:
        stmt = stmt.where(Account.specialty == specialty)
    if verified is not None:
        stmt = stmt.where(Account.is_verified.is_(verified))
    return _page(session, stmt, DOCTOR_SORT[query.sort_field], query, Account.id)


def doctor_row(session: Session, account_id: uuid.UUID) -> Any | None:
    return session.execute(_doctors().where(Account.id == account_id)).first()


def doctor_account(session: Session, account_id: uuid.UUID) -> Account | None:
    return session.scalar(
        select(Account).where(Account.id == account_id, Account.role == "doctor").with_for_update()
    )


# ------------------------------------------------------------------ payments

PAYMENT_SORT = {
    "userName": Account.name,
    "plan": Plan.name,
    "amount": Payment.amount_cents,
    "status": Payment.status,
    "date": func.coalesce(Payment.paid_at, Payment.created_at),
}


def list_payments(
    session: Session, query: ListQuery, *, q: str | None, status: str | None
) -> tuple[list[Any], int]:
    stmt = (
        select(Payment, Account.name, Plan.name)
        .outerjoin(Account, Account.id == Payment.account_id)
        .outerjoin(Plan, Plan.id == Payment.plan_id)
    )
    if q:
        pattern = _like(q)
        stmt = stmt.where(or_(Account.name.ilike(pattern), Plan.name.ilike(pattern)))
    if status:
        stmt = stmt.where(Payment.status == status)
    return _page(session, stmt, PAYMENT_SORT[query.sort_field], query, Payment.id)


# ------------------------------------------------------------------ audit log

AUDIT_SORT = {"createdAt": AuditEvent.created_at, "action": AuditEvent.action}


def list_audit_events(session: Session, query: ListQuery, *, action: str | None) -> tuple[list[Any], int]:
    actor = Account.__table__.alias("actor")
    stmt = select(AuditEvent, actor.c.email).outerjoin(actor, actor.c.id == AuditEvent.actor_account_id)
    if action:
        stmt = stmt.where(and_(AuditEvent.action.ilike(_like(action))))
    return _page(session, stmt, AUDIT_SORT[query.sort_field], query, AuditEvent.id)


# ------------------------------------------------------------------ reads on the event loop
#
# The console's hot reads (the dashboard's stats and analytics, the hospital list) in one round
# trip each over the async pool (cara.kit.db.fetch_sets): platform tables only, no tenant role.
# One simple-query string carries no parameters, so every value is a quoted literal.


def _literal(value: Any) -> bytes:
    return sql.Literal(value).as_bytes(None)


async def mfa_enabled(account_id: uuid.UUID) -> bool:
    """Whether the account has two-factor sign-in on (cara.auth.mfa.is_enabled's rule)."""
    (rows,) = await fetch_sets(
        b"SELECT mfa_enabled_at IS NOT NULL AND mfa_secret IS NOT NULL FROM platform.accounts WHERE id = "
        + _literal(account_id)
    )
    return bool(rows and rows[0][0])


@dataclass(frozen=True, slots=True)
class Rollup:
    """A row of platform.period_rollups (the attributes of PeriodRollup the console reads)."""

    granularity: str
    period_start: date
    revenue_cents: int
    recognised_cents: int
    mrr_cents: int
    hospitals_total: int
    doctors_total: int
    subscriptions_total: int
    subscriptions_active: int
    subscriptions_expired: int
    by_plan: dict[str, int]
    by_type: dict[str, int]
    revenue_by_plan: dict[str, int]
    computed_at: datetime


_ROLLUP_COLUMNS = (
    b"SELECT granularity, period_start, revenue_cents, recognised_cents, mrr_cents, hospitals_total,"
    b" doctors_total, subscriptions_total, subscriptions_active, subscriptions_expired, by_plan, by_type,"
    b" revenue_by_plan, computed_at FROM platform.period_rollups"
)


async def dashboard_rollups_async(
    granularity: str, starts: list[date], month: date
) -> tuple[dict[date, Rollup], Rollup | None]:
    """`dashboard_rollups` on the event loop: the chart's periods and the latest month rolled
    up (on or before `month`), in one statement."""
    listed = b", ".join(_literal(s) for s in starts) or b"NULL"
    (rows,) = await fetch_sets(
        _ROLLUP_COLUMNS
        + b" WHERE (granularity = "
        + _literal(granularity)
        + b" AND period_start IN ("
        + listed
        + b")) OR (granularity = 'month' AND period_start = (SELECT max(period_start)"
        b" FROM platform.period_rollups WHERE granularity = 'month' AND period_start <= "
        + _literal(month)
        + b"))"
    )
    found = [Rollup(*row) for row in rows]
    chart = {r.period_start: r for r in found if r.granularity == granularity}
    months = [r for r in found if r.granularity == "month"]
    return chart, (max(months, key=lambda r: r.period_start) if months else None)


async def month_rollups_async(month: date) -> tuple[list[Rollup], Rollup | None]:
    """Every month rolled up, oldest first, and the latest on or before `month` (one round trip)."""
    rows, latest = await fetch_sets(
        _ROLLUP_COLUMNS
        + b" WHERE granularity = 'month' ORDER BY period_start; "
        + _ROLLUP_COLUMNS
        + b" WHERE granularity = 'month' AND period_start <= "
        + _literal(month)
        + b" ORDER BY period_start DESC LIMIT 1"
    )
    return [Rollup(*row) for row in rows], (Rollup(*latest[0]) if latest else None)


# The hospital list's sort keys as SQL (HOSPITAL_SORT's, over the same joins).
_HOSPITAL_SORT_SQL = {
    "name": b"h.name",
    "email": b"h.email",
    "city": b"h.state",
    "country": b"h.country",
    "isVerified": b"h.is_verified",
    "status": b"t.status",
    "doctorsCount": b"coalesce(r.doctors_total, 0)",
    "createdAt": b"h.created_at",
}
_HOSPITALS_FROM = (
    b" FROM platform.hospitals h JOIN platform.tenants t ON t.id = h.tenant_id"
    b" LEFT JOIN platform.tenant_rollups r ON r.tenant_id = t.id WHERE true"
)


async def list_hospitals_async(
    query: ListQuery, *, q: str | None, verified: bool | None, status: str | None
) -> tuple[list[tuple[Any, ...]], int]:
    """`list_hospitals` on the event loop: the page's rows (id, name, email, state, country,
    is_verified, status, doctors, created_at) and the total, in one round trip."""
    where = [_HOSPITALS_FROM]
    if q:
        pattern = _literal(_like(q))
        where.append(b" AND (h.name ILIKE %s OR h.email ILIKE %s OR h.state ILIKE %s)" % ((pattern,) * 3))
    if verified is not None:
        where += [b" AND h.is_verified = ", _literal(verified)]
    if status:
        where += [b" AND t.status = ", _literal(status)]
    condition = b"".join(where)
    order = _HOSPITAL_SORT_SQL[query.sort_field] + (b" DESC" if query.descending else b" ASC")
    rows, total = await fetch_sets(
        b"SELECT h.id, h.name, h.email, h.state, h.country, h.is_verified, t.status,"
        b" coalesce(r.doctors_total, 0), h.created_at"
        + condition
        + b" ORDER BY "
        + order
        + b", h.id OFFSET "
        + _literal(query.start)
        + b" LIMIT "
        + _literal(query.limit)
        + b"; SELECT count(*)"
        + condition
    )
    return rows, int(total[0][0])
