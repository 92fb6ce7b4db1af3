"""Rollup correctness against a seeded set of tenants, idempotence, past periods."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import func, select, update

from cara.analytics import rollups
from cara.analytics.__main__ import main as cli
from cara.analytics.periods import label, last_starts, next_start, period_start, previous_start
from cara.kit.db import session_scope
from cara.models import Account, PeriodRollup, Tenant, TenantRollup
from tests.cara.admin_console.seed import pay, subscribe
from tests.factories import add_staff, doctor_payload, hospital_payload, signup

NOV = datetime(2026, 11, 10, 12, tzinfo=UTC)
OCT = datetime(2026, 10, 5, 9, tzinfo=UTC)


def seed(client: Any) -> dict[str, Any]:
    """Two hospitals (3 and 1 doctors), 2 independent doctors, subscriptions and payments."""
    h1 = signup(client, hospital_payload(name="Korle Bu"))
    h2 = signup(client, hospital_payload(name="Ridge"))
    for _ in range(3):
        add_staff(client, doctor_payload(isHospitalCreated=True), h1["token"])
    add_staff(client, doctor_payload(isHospitalCreated=True), h2["token"])
    independents = [signup(client, doctor_payload()) for _ in range(2)]
    # one of Korle Bu's doctors is deactivated
    with session_scope() as s:
        doctor_id = s.scalar(
            select(Account.id).where(Account.role == "doctor", Account.hospital_id.is_not(None)).limit(1)
        )
        s.execute(update(Account).where(Account.id == doctor_id).values(is_active=False))
    subscribe(h1["user"]["email"], "hospital-gold", created=OCT)
    subscribe(
        h2["user"]["email"],
        "hospital-bronze",
        status="canceled",
        created=OCT,
        updated=datetime(2026, 10, 20, tzinfo=UTC),
    )
    subscribe(independents[0]["user"]["email"], "doctor-basic", status="trialing", created=NOV)
    pay(h1["user"]["email"], "hospital-gold", 49_900, OCT)
    pay(h1["user"]["email"], "hospital-gold", 49_900, NOV)
    pay(h2["user"]["email"], "hospital-bronze", 9_900, OCT)
    pay(h2["user"]["email"], "hospital-bronze", 9_900, NOV, status="failed")
    return {"h1": h1, "h2": h2}


class TestPeriods:
    def test_boundaries(self) -> None:
        assert period_start("week", date(2026, 11, 23)) == date(2026, 11, 23)  # a Monday
        assert period_start("week", date(2026, 11, 29)) == date(2026, 11, 23)
        assert next_start("month", date(2026, 12, 1)) == date(2027, 1, 1)
        assert previous_start("month", date(2026, 1, 1)) == date(2025, 12, 1)
        assert last_starts("month", date(2026, 2, 14), 3) == [
            date(2025, 12, 1),
            date(2026, 1, 1),
            date(2026, 2, 1),
        ]
        assert label("month", date(2026, 3, 1)) == "Mar"


class TestTenantRollups:
    def test_counts_per_tenant(self, client: Any) -> None:
        seed(client)
        with session_scope() as s:
            assert rollups.refresh_tenant_rollups(s) == 3  # two hospitals + independent
        with session_scope() as s:
            rows = s.execute(
                select(
                    Tenant.kind,
                    TenantRollup.doctors_total,
                    TenantRollup.doctors_active,
                    TenantRollup.active_subscriptions,
                    TenantRollup.plan_name,
                ).join(Tenant, Tenant.id == TenantRollup.tenant_id)
            ).all()
        by = sorted((tuple(r) for r in rows), key=lambda r: (r[0], -r[1]))
        assert by == [
            ("hospital", 3, 2, 1, "Gold"),
            ("hospital", 1, 1, 0, None),
            ("independent", 2, 2, 1, None),
        ]

    def test_idempotent(self, client: Any) -> None:
        seed(client)
        with session_scope() as s:
            rollups.refresh_tenant_rollups(s)
        with session_scope() as s:
            first = sorted(s.execute(select(TenantRollup.tenant_id, TenantRollup.doctors_total)).all())
            rollups.refresh_tenant_rollups(s)
        with session_scope() as s:
            assert (
                sorted(s.execute(select(TenantRollup.tenant_id, TenantRollup.doctors_total)).all()) == first
            )
            assert s.scalar(select(func.count()).select_from(TenantRollup)) == 3


class TestPeriodRollups:
    def test_month_figures(self, client: Any) -> None:
        seed(client)
        with session_scope() as s:
            october = rollups.rollup_period(s, "month", date(2026, 10, 1))
            november = rollups.rollup_period(s, "month", date(2026, 11, 1))
        assert october["revenue_cents"] == 49_900 + 9_900
        assert october["payments_count"] == 2
        assert october["revenue_by_plan"] == {"hospital-gold": 49_900, "hospital-bronze": 9_900}
        # at the end of October: Gold active; Bronze canceled on Oct 20 → expired
        assert october["subscriptions_active"] == 1
        assert october["subscriptions_expired"] == 1
        assert october["by_plan"] == {"hospital-gold": 1}
        # November: the failed payment is not revenue; the trial counts as active
        assert november["revenue_cents"] == 49_900
        assert november["subscriptions_active"] == 2
        assert november["by_type"] == {"hospital": 1, "doctor": 1}
        # the signup trial has no plan: it is a trial, not 'Unknown'
        assert november["by_plan"] == {"hospital-gold": 1, "trial": 1}
        # monthly payments are recognised when paid; the trial pays nothing
        assert november["recognised_cents"] == 49_900
        assert november["mrr_cents"] == 49_900

    def test_an_annual_payment_is_spread_over_its_year(self, client: Any) -> None:
        h = signup(client, hospital_payload(name="Annual"))
        email = h["user"]["email"]
        paid = datetime(2026, 3, 15, 10, tzinfo=UTC)  # a Sunday: its week starts on March 9
        sub = subscribe(email, "hospital-gold", created=paid, cycle="annual")
        pay(email, "hospital-gold", 479_000, paid, subscription=sub)
        with session_scope() as s:
            month = {
                d: rollups.rollup_period(s, "month", d)
                for d in (date(2026, 2, 1), date(2026, 3, 1), date(2027, 2, 1), date(2027, 3, 1))
            }
            years = {y: rollups.rollup_period(s, "year", date(y, 1, 1)) for y in (2026, 2027)}
            weeks = {
                d: rollups.rollup_period(s, "week", d)
                for d in (date(2026, 3, 2), date(2026, 3, 9), date(2027, 3, 1), date(2027, 3, 8))
            }
        # the cash lands once, in March 2026
        assert month[date(2026, 3, 1)]["revenue_cents"] == 479_000
        assert [m["recognised_cents"] for m in month.values()] == [0, 39_917, 39_917, 0]
        # ten months of it in 2026, two in 2027
        assert years[2026]["recognised_cents"] == 399_167
        assert years[2027]["recognised_cents"] == 79_833
        assert [w["recognised_cents"] for w in weeks.values()] == [0, 9_212, 9_212, 0]
        # monthly recurring revenue: the annual price / 12 while it is paying
        assert month[date(2026, 2, 1)]["mrr_cents"] == 0
        assert month[date(2026, 3, 1)]["mrr_cents"] == 39_917
        assert years[2027]["mrr_cents"] == 39_917

    def test_rerun_for_a_past_period_replaces_the_row(self, client: Any) -> None:
        seed(client)
        assert cli(["rollup", "--granularity", "month", "--from", "2026-09-01", "--to", "2026-11-01"]) == 0
        with session_scope() as s:
            assert s.scalar(select(func.count()).select_from(PeriodRollup)) == 3
            s.execute(update(PeriodRollup).values(revenue_cents=1))  # corrupt it
        assert cli(["rollup", "--granularity", "month", "--from", "2026-10-01"]) == 0
        with session_scope() as s:
            row = s.get(PeriodRollup, ("month", date(2026, 10, 1)))
            assert row is not None and row.revenue_cents == 59_800
            assert s.scalar(select(func.count()).select_from(PeriodRollup)) == 3

    def test_actor_refreshes_everything(self, client: Any, worker: Any) -> None:
        seed(client)
        worker.get_actor("analytics.refresh_rollups").send()
        worker.join("analytics", timeout=15_000)
        with session_scope() as s:
            assert s.scalar(select(func.count()).select_from(TenantRollup)) == 3
            granularities = set(s.scalars(select(PeriodRollup.granularity)))
        assert granularities == {"week", "month", "year"}
