"""Every query of the admin console. Lists are one query for the page plus one
count; no per-row queries and no tenant schema is opened."""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

from sqlalchemy import Select, and_, func, or_, select
from sqlalchemy.orm import Session

from cara.kit.listing import ListQuery
from cara.models import (
    Account,
    AuditEvent,
    Hospital,
    Payment,
    PeriodRollup,
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


# ------------------------------------------------------------------ statistics


def dashboard_rollups(
    session: Session, granularity: str, starts: list[date], month: date
) -> tuple[dict[date, PeriodRollup], PeriodRollup | None]:
    """The chart's periods and the latest month rolled up (on or before `month`), in one query."""
    latest = (
        select(func.max(PeriodRollup.period_start))
        .where(PeriodRollup.granularity == "month", PeriodRollup.period_start <= month)
        .scalar_subquery()
    )
    rows = session.scalars(
        select(PeriodRollup).where(
            or_(
                and_(PeriodRollup.granularity == granularity, PeriodRollup.period_start.in_(starts)),
                and_(PeriodRollup.granularity == "month", PeriodRollup.period_start == latest),
            )
        )
    ).all()
    chart = {r.period_start: r for r in rows if r.granularity == granularity}
    months = [r for r in rows if r.granularity == "month"]
    current = max(months, key=lambda r: r.period_start) if months else None
    return chart, current


def latest_month_rollup(session: Session, month: date) -> PeriodRollup | None:
    return session.scalar(
        select(PeriodRollup)
        .where(PeriodRollup.granularity == "month", PeriodRollup.period_start <= month)
        .order_by(PeriodRollup.period_start.desc())
        .limit(1)
    )


def all_month_rollups(session: Session) -> list[PeriodRollup]:
    return list(
        session.scalars(
            select(PeriodRollup)
            .where(PeriodRollup.granularity == "month")
            .order_by(PeriodRollup.period_start)
        )
    )


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


def list_hospitals(
    session: Session, query: ListQuery, *, q: str | None, verified: bool | None, status: str | None
) -> tuple[list[Any], int]:
    stmt = _hospitals()
    if q:
        pattern = _like(q)
        stmt = stmt.where(
            or_(Hospital.name.ilike(pattern), Hospital.email.ilike(pattern), Hospital.state.ilike(pattern))
        )
    if verified is not None:
        stmt = stmt.where(Hospital.is_verified.is_(verified))
    if status:
        stmt = stmt.where(Tenant.status == status)
    return _page(session, stmt, HOSPITAL_SORT[query.sort_field], query, Hospital.id)


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
