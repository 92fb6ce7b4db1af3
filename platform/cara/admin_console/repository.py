"""Every query of the admin console. Lists are one round trip for the page and its
count; no per-row queries and no tenant schema is opened."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from psycopg import sql
from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from cara.kit.db import fetch_sets
from cara.kit.listing import ListQuery
from cara.models import Account, Hospital, Tenant, TenantRollup


def _like(value: str) -> str:
    return "%" + value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


# ------------------------------------------------------------------ hospitals


def _hospitals() -> Select[Any]:
    return (
        select(Hospital, Tenant.status, func.coalesce(TenantRollup.doctors_total, 0))
        .join(Tenant, Tenant.id == Hospital.tenant_id)
        .outerjoin(TenantRollup, TenantRollup.tenant_id == Tenant.id)
    )


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


def hospital_schema(session: Session, hospital_id: uuid.UUID) -> str | None:
    return session.scalar(
        select(Tenant.schema_name)
        .join(Hospital, Hospital.tenant_id == Tenant.id)
        .where(Hospital.id == hospital_id)
    )


# ------------------------------------------------------------------ doctors


def _doctors() -> Select[Any]:
    return (
        select(Account, Hospital.name)
        .outerjoin(Hospital, Hospital.id == Account.hospital_id)
        .where(Account.role == "doctor")
    )


def doctor_row(session: Session, account_id: uuid.UUID) -> Any | None:
    return session.execute(_doctors().where(Account.id == account_id)).first()


def doctor_account(session: Session, account_id: uuid.UUID) -> Account | None:
    return session.scalar(
        select(Account).where(Account.id == account_id, Account.role == "doctor").with_for_update()
    )


# ------------------------------------------------------------------ reads on the event loop
#
# The console's reads (the dashboard's stats and analytics, the four lists) in one round trip
# each over the async pool (cara.kit.db.fetch_sets): platform tables only, no tenant role. One
# simple-query string carries no parameters, so every value is a quoted literal.


def _literal(value: Any) -> bytes:
    return sql.Literal(value).as_bytes(None)


async def mfa_enabled(account_id: uuid.UUID) -> bool:
    """Whether the account has two-factor sign-in on (cara.auth.mfa.is_enabled's rule)."""
    (rows,) = await fetch_sets(
        b"SELECT mfa_enabled_at IS NOT NULL AND mfa_secret IS NOT NULL FROM platform.accounts WHERE id = "
        + _literal(account_id)
    )
    return bool(rows and rows[0][0])


async def tenants_with_names_async() -> list[tuple[str, str | None, str | None]]:
    """Every tenant: (schema, hospital id as text, hospital name); the independent one has no
    hospital. One round trip; the ids come as text, what the AI usage list answers."""
    (rows,) = await fetch_sets(
        b"SELECT t.schema_name, h.id::text, h.name FROM platform.tenants t"
        b" LEFT JOIN platform.hospitals h ON h.tenant_id = t.id"
    )
    return rows  # type: ignore[return-value]


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


# The lists' sort keys (react-admin's field names) as SQL over each list's joins. A page is
# ordered by its key, then by id ascending (the order the console has always had); the platform
# migration p0009 indexes the keys the console sorts on, so a page in either direction walks an
# index (a backward walk sorts only the rows of an equal key by id: PostgreSQL's incremental sort).


@dataclass(frozen=True, slots=True)
class _List:
    """A list's SQL: the page's `columns` over `table` (`alias`'s rows, one per listed row) and
    `joins` (each to at most one row: they never add or remove rows)."""

    columns: bytes
    table: bytes
    alias: bytes
    joins: bytes
    sort: dict[str, bytes]
    # Sort keys read from `alias` alone (no join).
    own_sort: frozenset[str]


async def _page_async(
    listed: _List, query: ListQuery, own: list[bytes], joined: list[bytes]
) -> tuple[list[tuple[Any, ...]], int]:
    """The page's rows and the total, in one round trip. `own` are conditions on the list's
    table alone, `joined` ones that read its joins (each `AND ...`).

    When the order and conditions read the list's table alone, the page's ids come first (an
    index walk of the offset and the page, a join of nothing) and only the page's rows are
    joined; the total counts the table alone (an index-only count). Otherwise the joined rows are
    ordered, and counted, as a whole."""
    key = listed.sort[query.sort_field]
    direction = b" DESC" if query.descending else b" ASC"
    order = b"%s%s, %s.id" % (key, direction, listed.alias)
    where = b" WHERE true" + b"".join(own) + b"".join(joined)
    window = b" OFFSET %d LIMIT %d" % (query.start, query.limit)
    if query.sort_field in listed.own_sort and not joined:
        table = b" FROM %s %s" % (listed.table, listed.alias)
        ids = b"SELECT %s.id%s%s ORDER BY %s%s" % (listed.alias, table, where, order, window)
        page = b"SELECT %s FROM (%s) page JOIN %s %s ON %s.id = page.id%s ORDER BY %s" % (
            listed.columns,
            ids,
            listed.table,
            listed.alias,
            listed.alias,
            listed.joins,
            order,
        )
        count = b"SELECT count(*)%s%s" % (table, where)
    else:
        source = b" FROM %s %s%s%s" % (listed.table, listed.alias, listed.joins, where)
        page = b"SELECT %s%s ORDER BY %s%s" % (listed.columns, source, order, window)
        count = b"SELECT count(*)" + source
    rows, total = await fetch_sets(page + b"; " + count)
    return rows, int(total[0][0])


HOSPITAL_SORT = {
    "name": b"h.name",
    "email": b"h.email",
    "city": b"h.state",
    "country": b"h.country",
    "isVerified": b"h.is_verified",
    "status": b"t.status",
    "doctorsCount": b"coalesce(r.doctors_total, 0)",
    "createdAt": b"h.created_at",
}
# Every hospital has its tenant (a non-null key), so the left join to it neither adds nor removes
# a row, and a count that reads neither join does not make them (PostgreSQL drops a left join to
# a unique key whose columns are not read).
_HOSPITALS = _List(
    columns=b"h.id, h.name, h.email, h.state, h.country, h.is_verified, t.status,"
    b" coalesce(r.doctors_total, 0), h.created_at",
    table=b"platform.hospitals",
    alias=b"h",
    joins=b" LEFT JOIN platform.tenants t ON t.id = h.tenant_id"
    b" LEFT JOIN platform.tenant_rollups r ON r.tenant_id = t.id",
    sort=HOSPITAL_SORT,
    own_sort=frozenset(HOSPITAL_SORT) - {"status", "doctorsCount"},
)


async def list_hospitals_async(
    query: ListQuery, *, q: str | None, verified: bool | None, status: str | None
) -> tuple[list[tuple[Any, ...]], int]:
    """`list_hospitals` on the event loop: the page's rows (id, name, email, state, country,
    is_verified, status, doctors, created_at) and the total, in one round trip."""
    own: list[bytes] = []
    if q:
        pattern = _literal(_like(q))
        own.append(b" AND (h.name ILIKE %s OR h.email ILIKE %s OR h.state ILIKE %s)" % ((pattern,) * 3))
    if verified is not None:
        own.append(b" AND h.is_verified = " + _literal(verified))
    joined = [b" AND t.status = " + _literal(status)] if status else []
    return await _page_async(_HOSPITALS, query, own, joined)


DOCTOR_SORT = {
    "name": b"a.name",
    "email": b"a.email",
    "specialization": b"a.specialty",
    "hospitalName": b"h.name",
    "isVerified": b"a.is_verified",
    "isActive": b"a.is_active",
    "createdAt": b"a.created_at",
}
_DOCTORS = _List(
    columns=b"a.id, a.name, a.email, a.specialty, a.hospital_id, h.name, a.is_verified, a.is_active,"
    b" a.created_at",
    table=b"platform.accounts",
    alias=b"a",
    joins=b" LEFT JOIN platform.hospitals h ON h.id = a.hospital_id",
    sort=DOCTOR_SORT,
    own_sort=frozenset(DOCTOR_SORT) - {"hospitalName"},
)


async def list_doctors_async(
    query: ListQuery, *, q: str | None, specialty: str | None, verified: bool | None
) -> tuple[list[tuple[Any, ...]], int]:
    """`list_doctors` on the event loop: (id, name, email, specialty, hospital id, hospital name,
    is_verified, is_active, created_at) rows and the total."""
    own = [b" AND a.role = 'doctor'"]  # the predicate of the doctors' partial indexes, verbatim
    if q:
        pattern = _literal(_like(q))
        own.append(b" AND (a.name ILIKE %s OR a.email ILIKE %s)" % (pattern, pattern))
    if specialty:
        own.append(b" AND a.specialty = " + _literal(specialty))
    if verified is not None:
        own.append(b" AND a.is_verified = " + _literal(verified))
    return await _page_async(_DOCTORS, query, own, [])


PAYMENT_SORT = {
    "userName": b"a.name",
    "plan": b"pl.name",
    "amount": b"pay.amount_cents",
    "status": b"pay.status",
    # The expression of the payments' date indexes, verbatim.
    "date": b"coalesce(pay.paid_at, pay.created_at)",
}
_PAYMENTS = _List(
    columns=b"pay.id, a.name, pl.name, pay.amount_cents, pay.status, pay.paid_at, pay.created_at",
    table=b"platform.payments",
    alias=b"pay",
    joins=b" LEFT JOIN platform.accounts a ON a.id = pay.account_id"
    b" LEFT JOIN platform.plans pl ON pl.id = pay.plan_id",
    sort=PAYMENT_SORT,
    own_sort=frozenset(PAYMENT_SORT) - {"userName", "plan"},
)


async def list_payments_async(
    query: ListQuery, *, q: str | None, status: str | None
) -> tuple[list[tuple[Any, ...]], int]:
    """`list_payments` on the event loop: (id, user name, plan name, amount in cents, status,
    paid_at, created_at) rows and the total."""
    own = [b" AND pay.status = " + _literal(status)] if status else []
    joined: list[bytes] = []
    if q:
        pattern = _literal(_like(q))
        joined.append(b" AND (a.name ILIKE %s OR pl.name ILIKE %s)" % (pattern, pattern))
    return await _page_async(_PAYMENTS, query, own, joined)


AUDIT_SORT = {"createdAt": b"e.created_at", "action": b"e.action"}
_AUDIT = _List(
    columns=b"e.id, e.action, actor.email, e.actor_role, e.target_type, e.target_id, e.tenant_schema,"
    b" e.created_at",
    table=b"platform.audit_events",
    alias=b"e",
    joins=b" LEFT JOIN platform.accounts actor ON actor.id = e.actor_account_id",
    sort=AUDIT_SORT,
    own_sort=frozenset(AUDIT_SORT),
)


async def list_audit_events_async(
    query: ListQuery, *, action: str | None
) -> tuple[list[tuple[Any, ...]], int]:
    """`list_audit_events` on the event loop: (id, action, actor email, actor role, target type,
    target id, tenant schema, created_at) rows and the total."""
    own = [b" AND e.action ILIKE " + _literal(_like(action))] if action else []
    return await _page_async(_AUDIT, query, own, [])
