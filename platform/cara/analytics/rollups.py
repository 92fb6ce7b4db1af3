"""Computing the rollups. Each function is an idempotent upsert: running it
twice, or again later for a past period, leaves the same rows.

Everything here reads platform tables only (accounts carry each doctor's
tenant, active flag and specialty), so a rollup never opens tenant schemas
and costs the same whether there are 10 or 10,000 of them.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from cara.analytics.periods import (
    GRANULARITIES,
    Granularity,
    next_start,
    period_start,
    previous_start,
    shift_months,
)

# Statuses that count as a paying or trialling customer at a point in time.
ACTIVE = ("active", "trialing", "past_due")
EXPIRED = ("canceled", "incomplete_expired", "unpaid")

# Keys of the by-plan figures: a plan's code ("hospital-gold", "doctor-basic"),
# TRIAL for a subscription in its trial (the signup trial has no plan yet), and
# OTHER for a row whose plan is unknown. The admin console names them in its
# language; there is no "Unknown".
TRIAL = "trial"
OTHER = "other"
_PLAN_KEY = f"CASE WHEN s.status = 'trialing' THEN '{TRIAL}' ELSE coalesce(p.code, '{OTHER}') END"

# An annual payment is spread evenly over the year it pays for: 1/52 of it in
# each of 52 weeks, 1/12 in each of 12 months, from the period it was paid in.
_SPREAD_UNITS = {"week": 52, "month": 12, "year": 12}
_MONDAY = date(2000, 1, 3)


def _unit_index(granularity: Granularity, day: date) -> int:
    """Weeks (for weekly figures) or months (monthly and yearly) since a fixed origin."""
    if granularity == "week":
        return (day - _MONDAY).days // 7
    return day.year * 12 + day.month - 1


def _unit_sql(granularity: Granularity) -> str:
    utc = "(pay.paid_at AT TIME ZONE 'UTC')"
    if granularity == "week":
        return f"((date_trunc('week', {utc})::date - DATE '{_MONDAY.isoformat()}') / 7)"
    return f"(extract(year FROM {utc})::int * 12 + extract(month FROM {utc})::int - 1)"


def _recognised_sql(granularity: Granularity) -> str:
    unit = _unit_sql(granularity)
    return f"""
    SELECT coalesce(round(sum(
        CASE WHEN s.billing_cycle = 'annual'
             THEN pay.amount_cents::numeric
                  * greatest(0, least(:end_unit, {unit} + :spread) - greatest(:start_unit, {unit}))
                  / :spread
             WHEN pay.paid_at >= :start THEN pay.amount_cents
             ELSE 0 END)), 0)
    FROM platform.payments pay
    LEFT JOIN platform.subscriptions s ON s.id = pay.subscription_id
    WHERE pay.status = 'succeeded' AND pay.paid_at >= :window AND pay.paid_at < :end
    """


def _window_start(granularity: Granularity, start: date) -> date:
    """The earliest day an annual payment still counting in the period can have been paid."""
    if granularity == "week":
        return start - timedelta(weeks=_SPREAD_UNITS["week"] - 1)
    return shift_months(start, -(_SPREAD_UNITS[granularity] - 1))


_TENANT_ROLLUPS = text(
    """
    INSERT INTO platform.tenant_rollups
        (tenant_id, doctors_total, doctors_active, active_subscriptions, plan_name, computed_at)
    SELECT t.id,
           coalesce(d.total, 0),
           coalesce(d.active, 0),
           coalesce(s.active, 0),
           s.plan_name,
           now()
    FROM platform.tenants t
    LEFT JOIN (
        SELECT tenant_id, count(*) AS total, count(*) FILTER (WHERE is_active) AS active
        FROM platform.accounts WHERE role = 'doctor' GROUP BY tenant_id
    ) d ON d.tenant_id = t.id
    LEFT JOIN (
        SELECT a.tenant_id,
               count(*) AS active,
               (array_agg(p.name ORDER BY s.created_at DESC)
                    FILTER (WHERE a.role = 'hospital'))[1] AS plan_name
        FROM platform.subscriptions s
        JOIN platform.accounts a ON a.id = s.account_id
        LEFT JOIN platform.plans p ON p.id = s.plan_id
        WHERE s.status IN ('active', 'trialing', 'past_due')
        GROUP BY a.tenant_id
    ) s ON s.tenant_id = t.id
    ON CONFLICT (tenant_id) DO UPDATE SET
        doctors_total = EXCLUDED.doctors_total,
        doctors_active = EXCLUDED.doctors_active,
        active_subscriptions = EXCLUDED.active_subscriptions,
        plan_name = EXCLUDED.plan_name,
        computed_at = EXCLUDED.computed_at
    """
)


def refresh_tenant_rollups(session: Session) -> int:
    """One row per tenant; returns how many tenants were rolled up."""
    result = session.execute(_TENANT_ROLLUPS)
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def _at(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def _pairs(rows: Any) -> dict[str, Any]:
    return {str(key): value for key, value in rows}


def compute_period(session: Session, granularity: Granularity, start: date) -> dict[str, Any]:
    """Figures for the period [start, next start). Subscriptions are counted as
    they stood at the period's end (or now, for the current period)."""
    start = period_start(granularity, start)
    params = {"start": _at(start), "end": _at(next_start(granularity, start))}
    q = session.execute
    revenue, payments = q(
        text(
            "SELECT coalesce(sum(amount_cents), 0), count(*) FROM platform.payments "
            "WHERE status = 'succeeded' AND paid_at >= :start AND paid_at < :end"
        ),
        params,
    ).one()
    revenue_by_plan: dict[str, Any] = _pairs(
        q(
            text(
                f"SELECT coalesce(p.code, '{OTHER}'), sum(pay.amount_cents) FROM platform.payments pay "
                "LEFT JOIN platform.plans p ON p.id = pay.plan_id "
                "WHERE pay.status = 'succeeded' AND pay.paid_at >= :start AND pay.paid_at < :end "
                "GROUP BY 1"
            ),
            params,
        ).all()
    )
    end = next_start(granularity, start)
    recognised = q(
        text(_recognised_sql(granularity)),
        {
            **params,
            "window": _at(_window_start(granularity, start)),
            "start_unit": _unit_index(granularity, start),
            "end_unit": _unit_index(granularity, end),
            "spread": _SPREAD_UNITS[granularity],
        },
    ).scalar_one()
    hospitals = q(
        text("SELECT count(*) FROM platform.hospitals WHERE created_at < :end"), params
    ).scalar_one()
    doctors = q(
        text("SELECT count(*) FROM platform.accounts WHERE role = 'doctor' AND created_at < :end"), params
    ).scalar_one()
    # A subscription was active at the period's end if it existed then and is
    # still live, or ended only after that.
    active_then = (
        "s.created_at < :end AND (s.status IN ('active', 'trialing', 'past_due') "
        "OR (s.status IN ('canceled', 'incomplete_expired', 'unpaid') AND s.updated_at >= :end))"
    )
    total, active, expired = q(
        text(
            f"SELECT count(*), count(*) FILTER (WHERE {active_then}), "
            "count(*) FILTER (WHERE s.status IN ('canceled', 'incomplete_expired', 'unpaid') "
            "AND s.updated_at < :end) "
            "FROM platform.subscriptions s WHERE s.created_at < :end"
        ),
        params,
    ).one()
    by_plan: dict[str, Any] = _pairs(
        q(
            text(
                f"SELECT {_PLAN_KEY}, count(*) FROM platform.subscriptions s "
                f"LEFT JOIN platform.plans p ON p.id = s.plan_id WHERE {active_then} GROUP BY 1"
            ),
            params,
        ).all()
    )
    # Monthly recurring revenue: every subscription paying at the period's end
    # (a trial pays nothing yet) for its plan's monthly price, an annual plan for
    # its annual price / 12 (12 x monthly less 15 % where the plan has no annual
    # price, the catalogue's rule).
    mrr = q(
        text(
            "SELECT coalesce(round(sum(CASE WHEN s.billing_cycle = 'annual' "
            "THEN coalesce(p.annual_price_cents, round(p.price_cents * 12 * 0.85))::numeric / 12 "
            "ELSE p.price_cents END)), 0) "
            "FROM platform.subscriptions s JOIN platform.plans p ON p.id = s.plan_id "
            f"WHERE {active_then} AND s.status <> 'trialing'"
        ),
        params,
    ).scalar_one()
    by_type: dict[str, Any] = _pairs(
        q(
            text(
                "SELECT a.role, count(*) FROM platform.subscriptions s "
                f"JOIN platform.accounts a ON a.id = s.account_id WHERE {active_then} GROUP BY 1"
            ),
            params,
        ).all()
    )
    return {
        "granularity": granularity,
        "period_start": start,
        "revenue_cents": int(revenue),
        "recognised_cents": int(recognised),
        "mrr_cents": int(mrr),
        "payments_count": int(payments),
        "hospitals_total": int(hospitals),
        "doctors_total": int(doctors),
        "subscriptions_total": int(total),
        "subscriptions_active": int(active),
        "subscriptions_expired": int(expired),
        "by_plan": {k: int(v) for k, v in by_plan.items()},
        "by_type": {"hospital": int(by_type.get("hospital", 0)), "doctor": int(by_type.get("doctor", 0))},
        "revenue_by_plan": {k: int(v) for k, v in revenue_by_plan.items()},
    }


_UPSERT_PERIOD = text(
    """
    INSERT INTO platform.period_rollups
        (granularity, period_start, revenue_cents, recognised_cents, mrr_cents, payments_count,
         hospitals_total, doctors_total, subscriptions_total, subscriptions_active,
         subscriptions_expired, by_plan, by_type, revenue_by_plan, computed_at)
    VALUES
        (:granularity, :period_start, :revenue_cents, :recognised_cents, :mrr_cents, :payments_count,
         :hospitals_total, :doctors_total,
         :subscriptions_total, :subscriptions_active, :subscriptions_expired, CAST(:by_plan AS jsonb),
         CAST(:by_type AS jsonb), CAST(:revenue_by_plan AS jsonb), now())
    ON CONFLICT (granularity, period_start) DO UPDATE SET
        revenue_cents = EXCLUDED.revenue_cents,
        recognised_cents = EXCLUDED.recognised_cents,
        mrr_cents = EXCLUDED.mrr_cents,
        payments_count = EXCLUDED.payments_count,
        hospitals_total = EXCLUDED.hospitals_total,
        doctors_total = EXCLUDED.doctors_total,
        subscriptions_total = EXCLUDED.subscriptions_total,
        subscriptions_active = EXCLUDED.subscriptions_active,
        subscriptions_expired = EXCLUDED.subscriptions_expired,
        by_plan = EXCLUDED.by_plan,
        by_type = EXCLUDED.by_type,
        revenue_by_plan = EXCLUDED.revenue_by_plan,
        computed_at = EXCLUDED.computed_at
    """
)


def rollup_period(session: Session, granularity: Granularity, start: date) -> dict[str, Any]:
    import json

    figures = compute_period(session, granularity, start)
    session.execute(
        _UPSERT_PERIOD,
        {
            **figures,
            "by_plan": json.dumps(figures["by_plan"]),
            "by_type": json.dumps(figures["by_type"]),
            "revenue_by_plan": json.dumps(figures["revenue_by_plan"]),
        },
    )
    return figures


def refresh_all(session: Session, today: date | None = None) -> None:
    """Tenant rollups plus the current and previous period of every granularity
    (the previous one catches payments that arrived late)."""
    today = today or datetime.now(UTC).date()
    refresh_tenant_rollups(session)
    for granularity in GRANULARITIES:
        current = period_start(granularity, today)
        rollup_period(session, granularity, previous_start(granularity, current))
        rollup_period(session, granularity, current)
