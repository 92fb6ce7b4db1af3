"""Rules of the admin console. Services never commit.

The first platform admin comes from configuration, never from a public form:
FIRST_ADMIN_EMAIL and FIRST_ADMIN_PASSWORD create it once; later runs leave an
existing account untouched (changing the variables does not reset a password that
the admin may have changed since).
"""

from __future__ import annotations

import logging
import time
import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal

from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from cara.admin_console import repository
from cara.admin_console.schemas import (
    AiUsageOut,
    AuditEventOut,
    DoctorOut,
    HospitalOut,
    PaymentOut,
    RevenueData,
    RevenueDataset,
    Series,
    StatsOut,
    SubscriptionAnalyticsOut,
    SubscriptionDetails,
)
from cara.analytics.periods import Granularity, label, last_starts, period_start
from cara.audit import service as audit
from cara.auth import passwords
from cara.auth.principal import Principal
from cara.auth.service import ADMIN_MFA_FIRST, email_taken
from cara.config import get_settings
from cara.kit.errors import Conflict, Forbidden, NotFound, ValidationFailed
from cara.kit.listing import ListQuery
from cara.kit.validation import email_error, normalise_email
from cara.live import service as live
from cara.models import Account
from cara.recordings import service as recordings

log = logging.getLogger("cara.admin_console")

TimeRange = Literal["weekly", "monthly", "yearly"]
_RANGES: dict[str, tuple[Granularity, int]] = {
    "weekly": ("week", 12),
    "monthly": ("month", 12),
    "yearly": ("year", 5),
}


def _dollars(cents: int) -> float:
    return round(cents / 100, 2)


def _uuid(value: str, what: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError as exc:
        raise NotFound(f"{what} not found.") from exc


# ------------------------------------------------------------------ statistics


# Each process keeps a stats answer this long (per time range and day). The figures are
# rollups already (refreshed a few seconds after a change, see cara.analytics.service), so a
# few more seconds cost nothing in freshness and spare every dashboard poll the query.
STATS_CACHE_SECONDS = 5.0
_stats_cache: dict[tuple[str, date], tuple[float, bytes]] = {}


async def stats_json(time_range: str | None) -> bytes:
    """`stats` as the JSON body the endpoint answers, from this process's short-lived cache."""
    key = (time_range or "weekly").lower()
    day = datetime.now(UTC).date()
    now = time.monotonic()
    hit = _stats_cache.get((key, day))
    if hit is not None and now - hit[0] < STATS_CACHE_SECONDS:
        return hit[1]
    body = (await stats(key)).model_dump_json().encode()  # an unknown range raises: never cached
    if len(_stats_cache) > 2 * len(_RANGES):
        _stats_cache.clear()  # yesterday's answers
    _stats_cache[(key, day)] = (now, body)
    return body


def forget_cached_stats() -> None:
    """Drop this process's cached stats and analytics answers (tests, or after a refresh run
    in-process)."""
    _stats_cache.clear()
    _analytics_cache.clear()


async def stats(time_range: str | None, today: datetime | None = None) -> StatsOut:
    """Dashboard figures, read from the rollups only (one read on the event loop)."""
    key = (time_range or "weekly").lower()
    if key not in _RANGES:
        raise ValidationFailed(
            {"timeRange": "Time range must be weekly, monthly or yearly"}, message="Invalid time range."
        )
    granularity, count = _RANGES[key]
    day = (today or datetime.now(UTC)).date()
    starts = last_starts(granularity, day, count)
    rows, month = await repository.dashboard_rollups_async(granularity, starts, period_start("month", day))
    if month is None:
        return StatsOut(
            totalHospitals=0,
            totalDoctors=0,
            activeSubscriptions=0,
            monthlyRevenue=0.0,
            revenueData=_revenue_data(granularity, starts, rows),
            subscriptionDetails=SubscriptionDetails(),
        )
    return StatsOut(
        totalHospitals=month.hospitals_total,
        totalDoctors=month.doctors_total,
        activeSubscriptions=month.subscriptions_active,
        monthlyRevenue=_dollars(month.mrr_cents),
        revenueData=_revenue_data(granularity, starts, rows),
        subscriptionDetails=SubscriptionDetails(
            total=month.subscriptions_total,
            active=month.subscriptions_active,
            expired=month.subscriptions_expired,
            byPlan=dict(month.by_plan),
            byType={"hospital": 0, "doctor": 0, **month.by_type},
        ),
        computedAt=month.computed_at,
    )


def _revenue_data(granularity: Granularity, starts: list[date], rows: dict[date, Any]) -> RevenueData:
    """Revenue per period with annual payments spread over their year (see PeriodRollup)."""
    return RevenueData(
        labels=[label(granularity, s) for s in starts],
        datasets=[
            RevenueDataset(
                label="Revenue",
                data=[_dollars(rows[s].recognised_cents) if s in rows else 0.0 for s in starts],
            )
        ],
    )


_analytics_cache: dict[date, tuple[float, bytes]] = {}


async def subscription_analytics_json() -> bytes:
    """`subscription_analytics` as the JSON body the endpoint answers, kept `STATS_CACHE_SECONDS`
    per process as the stats are (rollups too); the zeros of a failure are never kept."""
    day = datetime.now(UTC).date()
    now = time.monotonic()
    hit = _analytics_cache.get(day)
    if hit is not None and now - hit[0] < STATS_CACHE_SECONDS:
        return hit[1]
    try:
        body = (await _subscription_analytics(day)).model_dump_json().encode()
    except Exception:
        log.exception("subscription analytics failed; answering with zeros")
        return SubscriptionAnalyticsOut().model_dump_json().encode()
    _analytics_cache.clear()  # yesterday's answer
    _analytics_cache[day] = (now, body)
    return body


async def _subscription_analytics(day: date) -> SubscriptionAnalyticsOut:
    months, latest = await repository.month_rollups_async(period_start("month", day))
    by_start = {m.period_start: m for m in months}
    starts = last_starts("month", day, 12)
    revenue_by_plan: dict[str, int] = {}
    for m in months:
        for plan, cents in m.revenue_by_plan.items():
            revenue_by_plan[plan] = revenue_by_plan.get(plan, 0) + int(cents)
    active = latest.subscriptions_active if latest else 0
    return SubscriptionAnalyticsOut(
        totalRevenue=_dollars(sum(m.revenue_cents for m in months)),
        activeSubscriptions=active,
        subscriptionTrends=Series(
            labels=[label("month", s) for s in starts],
            data=[float(by_start[s].subscriptions_active) if s in by_start else 0.0 for s in starts],
        ),
        revenueByPlan=Series(
            labels=list(revenue_by_plan), data=[_dollars(c) for c in revenue_by_plan.values()]
        ),
    )


async def require_admin_mfa(principal: Principal) -> None:
    """cara.auth.service.require_admin_mfa for the async reads: while two-factor sign-in is
    required of admins, an admin without it may not use the console (403). One read, and none
    when the rule is off."""
    required = principal.role == "admin" and get_settings().admin_mfa_required
    if required and not await repository.mfa_enabled(principal.id):
        raise Forbidden(ADMIN_MFA_FIRST)


# ------------------------------------------------------------------ lists


def hospital_out(row: Any) -> HospitalOut:
    hospital, status, doctors = row
    return HospitalOut(
        id=str(hospital.id),
        name=hospital.name,
        email=hospital.email,
        city=hospital.state,
        country=hospital.country,
        isVerified=hospital.is_verified,
        status=status,
        doctorsCount=int(doctors),
        createdAt=hospital.created_at,
    )


def doctor_out(row: Any) -> DoctorOut:
    account, hospital_name = row
    return DoctorOut(
        id=str(account.id),
        name=account.name,
        email=account.email,
        specialization=account.specialty,
        hospitalId=str(account.hospital_id) if account.hospital_id else None,
        hospitalName=hospital_name,
        isVerified=account.is_verified,
        isActive=account.is_active,
        createdAt=account.created_at,
    )


async def list_hospitals_async(
    query: ListQuery, q: str | None, verified: bool | None, status: str | None
) -> tuple[list[HospitalOut], int]:
    """`list_hospitals` in one read on the event loop."""
    if status is not None and status not in ("active", "suspended"):
        raise ValidationFailed({"filter": "status must be active or suspended"}, message="Invalid filter.")
    rows, total = await repository.list_hospitals_async(query, q=q, verified=verified, status=status)
    return [
        HospitalOut(
            id=str(ident),
            name=name,
            email=email,
            city=state,
            country=country,
            isVerified=verified_,
            status=tenant_status,
            doctorsCount=int(doctors),
            createdAt=created_at,
        )
        for ident, name, email, state, country, verified_, tenant_status, doctors, created_at in rows
    ], total


async def list_doctors(
    query: ListQuery, *, q: str | None, specialty: str | None, verified: bool | None
) -> tuple[list[DoctorOut], int]:
    rows, total = await repository.list_doctors_async(query, q=q, specialty=specialty, verified=verified)
    return [
        DoctorOut(
            id=str(ident),
            name=name,
            email=email,
            specialization=specialty_,
            hospitalId=str(hospital_id) if hospital_id else None,
            hospitalName=hospital_name,
            isVerified=verified_,
            isActive=active,
            createdAt=created_at,
        )
        for ident, name, email, specialty_, hospital_id, hospital_name, verified_, active, created_at in rows
    ], total


async def list_payments(
    query: ListQuery, *, q: str | None, status: str | None
) -> tuple[list[PaymentOut], int]:
    rows, total = await repository.list_payments_async(query, q=q, status=status)
    return [
        PaymentOut(
            id=str(ident),
            userName=user_name,
            plan=plan_name,
            amount=_dollars(cents),
            status=status_,
            date=paid_at or created_at,
        )
        for ident, user_name, plan_name, cents, status_, paid_at, created_at in rows
    ], total


async def list_audit_events(query: ListQuery, *, action: str | None) -> tuple[list[AuditEventOut], int]:
    rows, total = await repository.list_audit_events_async(query, action=action)
    return [
        AuditEventOut(
            id=ident,
            action=action_,
            actorEmail=email,
            actorRole=role,
            targetType=target_type,
            targetId=target_id,
            tenantSchema=schema,
            createdAt=created_at,
        )
        for ident, action_, email, role, target_type, target_id, schema, created_at in rows
    ], total


AI_USAGE_SORT = ("name", "aiMinutes", "tokens")
AI_USAGE_DAYS = 30
INDEPENDENT_NAME = "Independent doctors"


async def ai_usage(
    query: ListQuery, days: object = None, today: date | None = None
) -> tuple[list[AiUsageOut], int]:
    """AI minutes and tokens of the live consultations per hospital over the last `days` days
    (today included; 30 by default, at most as many as the counts are kept), every hospital
    listed, the independent doctors as one row.

    Every tenant is ordered (the counts are in Redis, the names in PostgreSQL), as plain tuples;
    only the page's rows become models (10,000 models a page were most of its cost)."""
    days = AI_USAGE_DAYS if days is None or days == "" else days
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= live.USAGE_KEPT_DAYS:
        message = f"days must be between 1 and {live.USAGE_KEPT_DAYS}"
        raise ValidationFailed({"filter": message}, message="Invalid filter.")
    last = today or datetime.now(UTC).date()
    first = last - timedelta(days=days - 1)
    # Redis reads (a day each) on a worker thread: the event loop does not wait on them.
    counts = await run_in_threadpool(live.usage_between, first, last)
    nothing: dict[str, int] = {}
    rows = []  # (lower-cased name, minutes, tokens, hospital id, name), in the tenants' order
    for schema, hospital_id, name in await repository.tenants_with_names_async():
        used = counts.get(schema, nothing)
        shown = name or INDEPENDENT_NAME
        rows.append(
            (shown.lower(), round(used.get("seconds", 0) / 60, 1), used.get("tokens", 0), hospital_id, shown)
        )
    # Python's sort is stable, descending too: ties keep the tenants' order, as before.
    if query.sort_field == "name":
        rows.sort(key=lambda r: r[0], reverse=query.descending)
    elif query.sort_field == "aiMinutes":
        rows.sort(key=lambda r: (r[1], r[0]), reverse=query.descending)
    else:
        rows.sort(key=lambda r: (r[2], r[0]), reverse=query.descending)
    return [
        AiUsageOut(
            id=hospital_id or "independent",
            name=shown,
            kind="hospital" if hospital_id else "independent",
            aiMinutes=minutes,
            tokens=tokens,
            fromDate=first,
            toDate=last,
        )
        for _, minutes, tokens, hospital_id, shown in rows[query.start : query.end + 1]
    ], len(rows)


def get_hospital(session: Session, hospital_id: str) -> HospitalOut:
    hid = _uuid(hospital_id, "Hospital")
    row = repository.hospital_row(session, hid)
    schema = repository.hospital_schema(session, hid)
    if row is None or schema is None:
        raise NotFound("Hospital not found.")
    held, quota = recordings.tenant_storage(schema)
    return hospital_out(row).model_copy(update={"recordingHeldBytes": held, "recordingQuotaBytes": quota})


def get_doctor(session: Session, doctor_id: str) -> DoctorOut:
    row = repository.doctor_row(session, _uuid(doctor_id, "Doctor"))
    if row is None:
        raise NotFound("Doctor not found.")
    return doctor_out(row)


# ------------------------------------------------------------------ actions


def verify_hospital(session: Session, principal: Principal, hospital_id: str) -> HospitalOut:
    found = repository.hospital_with_tenant(session, _uuid(hospital_id, "Hospital"))
    if found is None:
        raise NotFound("Hospital not found.")
    hospital, tenant = found
    if not hospital.is_verified:
        hospital.is_verified = True
        audit.record_platform(
            session,
            action="hospital.verified",
            actor_id=principal.id,
            actor_role=principal.role,
            target_type="hospital",
            target_id=hospital.id,
            tenant_schema=tenant.schema_name,
        )
        session.flush()
    return get_hospital(session, hospital_id)


def set_hospital_status(
    session: Session, principal: Principal, hospital_id: str, status: Literal["active", "suspended"]
) -> HospitalOut:
    """Suspend or reinstate a hospital tenant. While suspended, every one of its
    users is refused at login and on each request (cara.auth.principal)."""
    found = repository.hospital_with_tenant(session, _uuid(hospital_id, "Hospital"))
    if found is None:
        raise NotFound("Hospital not found.")
    hospital, tenant = found
    if tenant.status == status:
        word = "suspended" if status == "suspended" else "active"
        raise Conflict(f"This hospital is already {word}.")
    tenant.status = status
    audit.record_platform(
        session,
        action="hospital.suspended" if status == "suspended" else "hospital.reinstated",
        actor_id=principal.id,
        actor_role=principal.role,
        target_type="hospital",
        target_id=hospital.id,
        tenant_schema=tenant.schema_name,
    )
    session.flush()
    return get_hospital(session, hospital_id)


def verify_doctor(session: Session, principal: Principal, doctor_id: str) -> DoctorOut:
    account = repository.doctor_account(session, _uuid(doctor_id, "Doctor"))
    if account is None:
        raise NotFound("Doctor not found.")
    if not account.is_verified:
        account.is_verified = True
        audit.record_platform(
            session,
            action="doctor.verified",
            actor_id=principal.id,
            actor_role=principal.role,
            target_type="doctor",
            target_id=account.id,
        )
        session.flush()
    return get_doctor(session, doctor_id)


# ------------------------------------------------------------------ first admin


def ensure_first_admin(session: Session) -> bool:
    """Create the admin named by FIRST_ADMIN_*; False if unset or the account already exists."""
    settings = get_settings()
    if not settings.first_admin_email or not settings.first_admin_password:
        return False
    if email_error(settings.first_admin_email):
        raise ValueError("FIRST_ADMIN_EMAIL is not a valid email address")
    if len(settings.first_admin_password) < 8:
        raise ValueError("FIRST_ADMIN_PASSWORD must be at least 8 characters")
    email = normalise_email(settings.first_admin_email)
    if email_taken(session, email):
        return False
    account = Account(
        email=email,
        password_hash=passwords.hash_password(settings.first_admin_password),
        role="admin",
        name=settings.first_admin_name,
    )
    session.add(account)
    session.flush()
    audit.record_platform(
        session,
        action="admin.bootstrapped",
        actor_id=None,
        actor_role=None,
        target_type="account",
        target_id=account.id,
    )
    return True
