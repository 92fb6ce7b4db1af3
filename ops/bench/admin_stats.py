"""Admin console reads: `GET /api/admin/stats?timeRange=weekly` over 2,000 hospital tenants.

    .venv/bin/python ops/bench/admin_stats.py [--hospitals 2000] [--doctors 300] [--quick]

Prints figures only; the target (p99 < 50 ms at concurrency 20) is printed next to them.

Setup: H hospital tenants (cara.registration.service.signup with one precomputed password hash, as in
foundation.py), D hospital-created doctors spread at random over them plus a few independent
doctors, creation dates spread over the last 12 months, subscriptions (hospital and doctor plans,
mixed statuses) and their monthly payments across the last 12 months in platform.subscriptions /
platform.payments. Then the rollups: `cara.analytics.rollups.refresh_all` once (what the
scheduler runs every 5 minutes; timed), and a backfill of the periods the charts show (12 weeks,
12 months, 5 years; timed), the first admin through `cara.admin_console.service.ensure_first_admin`
and a real `POST /api/auth/login` for its token.

Load: one uvicorn worker, asyncio httpx client, closed loop at concurrency 20 for 3 s warm-up +
15 s on `/api/admin/stats?timeRange=weekly` (target p99 < 50 ms), then the same on
`/api/admin/hospitals?range=[0,24]&sort=["name","ASC"]` (information), each also at concurrency
1 (the unqueued service time, information), and `/api/admin/stats` in open loop at a few fixed
offered rates (`--open-rates`, latency counted from when each request was due; information). The
client shares the machine's cores with the server and PostgreSQL: every run prints how many cores
each of them kept busy.

Servers: BENCH_DATABASE_URL / BENCH_REDIS_URL as for foundation.py (the Redis db is flushed);
a `cara_bench_<random>` database is created and dropped at the end, even on error.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from _common import (
    ApiServer,
    LoadResult,
    Login,
    Summary,
    create_doctors,
    create_hospitals,
    hammer,
    log,
    run_bench,
)

STATS_P99_TARGET_MS = 50.0
ADMIN_EMAIL = "bench-admin@example.com"
ADMIN_PASSWORD = "bench-admin-passphrase"  # noqa: S105 - throwaway account in a throwaway database
STATS = ("/api/admin/stats", {"timeRange": "weekly"})
HOSPITALS = ("/api/admin/hospitals", {"range": "[0,24]", "sort": '["name","ASC"]'})
OPEN_SECONDS = 10.0  # measured seconds per open-loop rate (at most --duration)
OPEN_MAX_IN_FLIGHT = 100
YEAR = timedelta(days=365)
MONTH = timedelta(days=30)


# ---------------------------------------------------------------- data


def spread_creation_dates(seed: int) -> None:
    """Hospitals (and their accounts) created over the last 12 months, doctors after their hospital."""
    from sqlalchemy import text

    from cara.kit.db import session_scope

    with session_scope() as session:
        session.execute(text("SELECT setseed(:s)"), {"s": (seed % 1000) / 1000})
        session.execute(
            text("UPDATE platform.hospitals SET created_at = now() - random() * interval '365 days'")
        )
        session.execute(
            text(
                "UPDATE platform.accounts a SET created_at = h.created_at FROM platform.hospitals h "
                "WHERE a.hospital_id = h.id AND a.role = 'hospital'"
            )
        )
        session.execute(
            text(
                "UPDATE platform.accounts a "
                "SET created_at = h.created_at + random() * (now() - h.created_at) "
                "FROM platform.hospitals h WHERE a.hospital_id = h.id AND a.role = 'doctor'"
            )
        )
        session.execute(
            text(
                "UPDATE platform.accounts SET created_at = now() - random() * interval '365 days' "
                "WHERE role = 'doctor' AND hospital_id IS NULL"
            )
        )


@dataclass(frozen=True)
class Billing:
    subscriptions: int
    payments: int
    by_status: dict[str, int]


def seed_billing(rng: random.Random, *, hospital_share: float, doctor_share: float) -> Billing:
    """Subscriptions of a share of the hospitals and independent doctors, with their payments.

    Rows look like the billing domain's (tests/cara/admin_console/seed.py): one subscription per
    account, monthly (mostly) or annual, statuses mixed; ended ones carry their end in
    `updated_at`; one payment per billing period until now or the end, 5 % of them failed.
    """
    from sqlalchemy import insert, select

    from cara.kit.db import session_scope
    from cara.models import Account, Payment, Plan, Subscription

    now = datetime.now(UTC)
    statuses = ("active", "trialing", "past_due", "canceled", "unpaid")
    weights = (65, 8, 5, 17, 5)
    subscriptions: list[dict[str, Any]] = []
    payments: list[dict[str, Any]] = []
    by_status: dict[str, int] = {}
    with session_scope() as session:
        plans = {
            audience: [p for p in session.scalars(select(Plan)) if p.audience == audience]
            for audience in ("hospital", "doctor")
        }
        accounts = session.execute(
            select(Account.id, Account.role, Account.created_at)
            .where(
                (Account.role == "hospital") | ((Account.role == "doctor") & Account.hospital_id.is_(None))
            )
            .order_by(Account.email)
        ).all()
        for account_id, role, created in accounts:
            if rng.random() >= (hospital_share if role == "hospital" else doctor_share):
                continue
            plan = rng.choice(plans[role])
            status = rng.choices(statuses, weights)[0]
            if status == "trialing":
                start = now - timedelta(days=rng.uniform(0, 14))
            else:
                start = created + (now - created) * rng.random()
            annual = role == "hospital" and rng.random() < 0.1
            cycle = YEAR if annual else MONTH
            price = (plan.annual_price_cents or plan.price_cents * 10) if annual else plan.price_cents
            ended = (
                start + (now - start) * rng.uniform(0.2, 1.0) if status in ("canceled", "unpaid") else None
            )
            sub_id = uuid.uuid4()
            paid_until = ended or now
            period_start = start
            last_paid = None
            while status != "trialing" and period_start <= paid_until:
                ok = rng.random() >= 0.05
                payments.append(
                    {
                        "id": uuid.uuid4(),
                        "account_id": account_id,
                        "subscription_id": sub_id,
                        "plan_id": plan.id,
                        "amount_cents": price,
                        "currency": "usd",
                        "status": "succeeded" if ok else "failed",
                        "paid_at": period_start if ok else None,
                        "created_at": period_start,
                    }
                )
                last_paid = period_start if ok else last_paid
                period_start += cycle
            current = period_start - cycle if period_start > start else start
            subscriptions.append(
                {
                    "id": sub_id,
                    "account_id": account_id,
                    "plan_id": plan.id,
                    "status": status,
                    "billing_cycle": "annual" if annual else "monthly",
                    "current_period_start": current,
                    "current_period_end": current + cycle,
                    "trial_end": start + timedelta(days=14) if status == "trialing" else None,
                    "cancel_at_period_end": False,
                    "last_payment_at": last_paid,
                    "created_at": start,
                    "updated_at": ended or last_paid or start,
                }
            )
            by_status[status] = by_status.get(status, 0) + 1
        if subscriptions:
            session.execute(insert(Subscription), subscriptions)
        for chunk in range(0, len(payments), 5000):
            session.execute(insert(Payment), payments[chunk : chunk + 5000])
    return Billing(len(subscriptions), len(payments), by_status)


@dataclass(frozen=True)
class RollupTimes:
    refresh_all: float
    tenant_rollups: float
    backfill: float
    backfilled: int


def run_rollups() -> RollupTimes:
    """`refresh_all` once as the scheduler runs it (timed, session + commit), then the chart periods."""
    from cara.analytics import rollups
    from cara.analytics.periods import Granularity, last_starts
    from cara.kit.db import platform_session, session_scope

    session = platform_session()
    try:
        started = time.perf_counter()
        rollups.refresh_all(session)
        session.commit()
        refresh = time.perf_counter() - started
    finally:
        session.close()

    started = time.perf_counter()
    with session_scope() as session:  # again, tenant part only, for the breakdown
        rollups.refresh_tenant_rollups(session)
    tenant_part = time.perf_counter() - started

    today = datetime.now(UTC).date()
    chart: tuple[tuple[Granularity, int], ...] = (("week", 12), ("month", 12), ("year", 5))
    started = time.perf_counter()
    count = 0
    with session_scope() as session:
        for granularity, periods in chart:
            for start in last_starts(granularity, today, periods):
                rollups.rollup_period(session, granularity, start)
                count += 1
    return RollupTimes(refresh, tenant_part, time.perf_counter() - started, count)


def bootstrap_admin(api: ApiServer) -> str:
    """The first admin from FIRST_ADMIN_* (set for this process only), then a real login."""
    from cara.admin_console.service import ensure_first_admin
    from cara.kit.db import session_scope

    with session_scope() as session:
        created = ensure_first_admin(session)
    if not created:
        raise RuntimeError("ensure_first_admin did not create the admin (are FIRST_ADMIN_* set?)")
    response = httpx.post(
        f"{api.base_url}/api/auth/login",
        json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "role": "admin"},
        timeout=30,
    )
    if response.status_code != 200:
        raise RuntimeError(f"admin login failed: {response.status_code} {response.text[:300]}")
    return str(response.json()["token"])


# ---------------------------------------------------------------- the benchmark


def describe(api: ApiServer, token: str) -> None:
    """One request to each endpoint: status and what it answered (a sanity check)."""
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=api.base_url, timeout=30, headers=headers) as client:
        stats = client.get(STATS[0], params=STATS[1])
        if stats.status_code != 200:
            raise RuntimeError(f"stats: {stats.status_code} {stats.text[:300]}")
        body = stats.json()
        weeks = body["revenueData"]["datasets"][0]["data"]
        print(
            f"stats answer: totalHospitals={body['totalHospitals']} totalDoctors={body['totalDoctors']} "
            f"activeSubscriptions={body['activeSubscriptions']} monthlyRevenue={body['monthlyRevenue']} "
            f"weeks with revenue={sum(1 for w in weeks if w)}/{len(weeks)} "
            f"byType={body['subscriptionDetails']['byType']} ({len(stats.content)} bytes)"
        )
        listing = client.get(HOSPITALS[0], params=HOSPITALS[1])
        if listing.status_code != 200:
            raise RuntimeError(f"hospitals: {listing.status_code} {listing.text[:300]}")
        rows = listing.json()
        print(
            f"hospitals answer: {len(rows)} rows, Content-Range {listing.headers.get('content-range')}, "
            f"first {rows[0]['name']!r} ({len(listing.content)} bytes)"
        )


def bench_endpoints(
    api: ApiServer,
    token: str,
    summary: Summary,
    *,
    duration: float,
    warmup: float,
    concurrency: int,
    rounds: int,
    serial: float,
    open_rates: Sequence[float],
) -> None:
    endpoints = {"stats": STATS, "hospitals": HOSPITALS}
    print(
        f"\nuvicorn --workers 1, asyncio httpx closed loop, concurrency {concurrency}, "
        f"{warmup:.0f} s warm-up + {duration:.0f} s per endpoint"
        + (f" and round, {rounds} rounds (order alternates)" if rounds > 1 else ""),
        flush=True,
    )
    results = {name: LoadResult() for name in endpoints}
    for r in range(rounds):
        order = list(endpoints) if r % 2 == 0 else list(reversed(endpoints))
        for name in order:
            path, params = endpoints[name]
            result = hammer(
                api, path, [token], params=params, duration=duration, warmup=warmup, concurrency=concurrency
            )
            results[name].merge(result)
            prefix = f"round {r + 1} " if rounds > 1 else ""
            print(f"{prefix}{name} c={concurrency}: {result.line()}", flush=True)
            print(f"    {result.cpu_line()}", flush=True)
    if rounds > 1:
        for name, result in results.items():
            print(f"all rounds {name} c={concurrency}: {result.line()}")
            print(f"    {result.cpu_line()}")

    unqueued: dict[str, LoadResult] = {}
    if serial > 0:
        print(f"concurrency 1 (unqueued service time), 1 s warm-up + {serial:.0f} s per endpoint")
        for name, (path, params) in endpoints.items():
            unqueued[name] = hammer(
                api, path, [token], params=params, duration=serial, warmup=1, concurrency=1
            )
            print(f"{name} c=1: {unqueued[name].line()}")
            print(f"    {unqueued[name].cpu_line()}", flush=True)

    paced: dict[float, LoadResult] = {}
    if open_rates:
        print(
            f"open loop on /api/admin/stats (a request every 1/rate s, latency from when it was due), "
            f"{warmup:.0f} s warm-up + {min(duration, OPEN_SECONDS):.0f} s per rate"
        )
        for rate in open_rates:
            paced[rate] = hammer(
                api,
                STATS[0],
                [token],
                params=STATS[1],
                duration=min(duration, OPEN_SECONDS),
                warmup=warmup,
                concurrency=OPEN_MAX_IN_FLIGHT,
                rate=rate,
            )
            print(f"stats at {rate:g} req/s offered: {paced[rate].line()}")
            print(f"    {paced[rate].cpu_line()}", flush=True)

    stats = results["stats"]
    p99 = stats.latency.p99_ms
    print(
        f"target: /api/admin/stats p99 < {STATS_P99_TARGET_MS:.0f} ms at concurrency {concurrency}: "
        f"{p99:.1f} ms"
    )
    for name, result in results.items():
        lat = result.latency
        is_stats = name == "stats"
        summary.add(
            f"GET {endpoints[name][0]} c={concurrency}",
            f"{result.rps:.0f} req/s, p50 {lat.p50_ms:.1f} / p95 {lat.p95_ms:.1f} / p99 {lat.p99_ms:.1f} ms"
            + (f", errors {result.errors}" if result.errors else ""),
            f"p99 < {STATS_P99_TARGET_MS:.0f} ms" if is_stats else "",
            (lat.p99_ms < STATS_P99_TARGET_MS and not result.errors) if is_stats else None,
        )
        issued = max(result.issued, 1)
        summary.add(
            "  cpu per request | cores busy",
            f"server {result.server_cpu / issued * 1000:.2f} ms, "
            f"PostgreSQL {result.database_cpu / issued * 1000:.2f} ms | "
            f"server {result.cores(result.server_cpu):.2f}, "
            f"PostgreSQL {result.cores(result.database_cpu):.2f}, "
            f"client {result.cores(result.client_cpu):.2f}, rest {result.cores(result.other_cpu):.2f}",
        )
    for name, result in unqueued.items():
        lat = result.latency
        summary.add(
            f"GET {endpoints[name][0]} c=1 (unqueued)",
            f"{result.rps:.0f} req/s, p50 {lat.p50_ms:.1f} / p99 {lat.p99_ms:.1f} ms, "
            f"server {result.server_cpu / max(result.issued, 1) * 1000:.2f} ms CPU/req",
        )
    for rate, result in paced.items():
        lat = result.latency
        summary.add(
            f"GET /api/admin/stats open loop {rate:g} req/s",
            f"{result.rps:.0f} req/s, p50 {lat.p50_ms:.1f} / p95 {lat.p95_ms:.1f} / p99 {lat.p99_ms:.1f} ms, "
            f"server {result.cores(result.server_cpu):.2f} cores",
        )


@dataclass(frozen=True)
class Plan:
    hospitals: int
    doctors: int
    independent_doctors: int
    duration: float
    warmup: float
    concurrency: int
    rounds: int
    serial: float
    open_rates: tuple[float, ...]
    seed: int


def parse_args(argv: Sequence[str] | None) -> Plan:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small smoke run (200 hospitals, 5 s)")
    parser.add_argument("--hospitals", type=int, help="hospital tenants (default 2000)")
    parser.add_argument(
        "--doctors", type=int, help="hospital-created doctors, spread at random (default 300)"
    )
    parser.add_argument("--independent-doctors", type=int, help="independent doctors (default 100)")
    parser.add_argument("--duration", type=float, help="measured seconds per endpoint (default 15)")
    parser.add_argument("--warmup", type=float, help="warm-up seconds per endpoint (default 3)")
    parser.add_argument("--concurrency", type=int, default=20, help="client concurrency (default 20)")
    parser.add_argument(
        "--rounds", type=int, help="rounds over both endpoints, order alternating (default 1)"
    )
    parser.add_argument(
        "--serial", type=float, help="seconds at concurrency 1 per endpoint, 0 to skip (default 5)"
    )
    parser.add_argument(
        "--open-rates",
        default="25,50",
        help="offered loads (req/s) for open-loop runs on /api/admin/stats, '' to skip (default 25,50)",
    )
    parser.add_argument("--seed", type=int, default=7, help="random seed of the data (default 7)")
    args = parser.parse_args(argv)
    quick, full = (
        Plan(200, 60, 20, 5.0, 2.0, 20, 1, 3.0, (), 7),
        Plan(2000, 300, 100, 15.0, 3.0, 20, 1, 5.0, (), 7),
    )
    base = quick if args.quick else full
    return Plan(
        hospitals=args.hospitals or base.hospitals,
        doctors=args.doctors if args.doctors is not None else base.doctors,
        independent_doctors=(
            args.independent_doctors if args.independent_doctors is not None else base.independent_doctors
        ),
        duration=args.duration or base.duration,
        warmup=args.warmup if args.warmup is not None else base.warmup,
        concurrency=args.concurrency,
        rounds=max(1, args.rounds or base.rounds),
        serial=args.serial if args.serial is not None else base.serial,
        open_rates=tuple(float(x) for x in args.open_rates.split(",") if x.strip()),
        seed=args.seed,
    )


def seed_platform(plan: Plan, summary: Summary) -> None:
    rng = random.Random(plan.seed)
    started = time.perf_counter()
    hospitals = create_hospitals(plan.hospitals)
    took = time.perf_counter() - started
    print(
        f"setup: {len(hospitals)} hospital tenants + accounts in {took:.1f} s ({len(hospitals) / took:.0f}/s)"
    )

    owners: list[Login | None] = [rng.choice(hospitals) for _ in range(plan.doctors)]
    owners += [None] * plan.independent_doctors
    started = time.perf_counter()
    doctors = create_doctors(owners)
    took = time.perf_counter() - started
    print(
        f"setup: {plan.doctors} hospital-created doctors in {len({o.schema for o in owners if o})} tenants "
        f"+ {plan.independent_doctors} independent doctors in {took:.1f} s ({len(doctors) / took:.0f}/s)"
    )

    spread_creation_dates(plan.seed)
    started = time.perf_counter()
    billing = seed_billing(rng, hospital_share=0.6, doctor_share=0.5)
    print(
        f"setup: {billing.subscriptions} subscriptions {billing.by_status} and {billing.payments} "
        f"payments over the last 12 months in {time.perf_counter() - started:.1f} s"
    )

    times = run_rollups()
    print(
        f"rollups: refresh_all + commit {times.refresh_all * 1000:.0f} ms (its tenant_rollups part over "
        f"{plan.hospitals + 1} tenants: ~{times.tenant_rollups * 1000:.0f} ms); "
        f"backfill of {times.backfilled} chart periods {times.backfill * 1000:.0f} ms"
    )
    summary.add(
        "setup",
        f"{plan.hospitals} hospitals, {len(doctors)} doctors, {billing.subscriptions} subscriptions, "
        f"{billing.payments} payments",
    )
    summary.add(
        "rollups.refresh_all + commit (once)",
        f"{times.refresh_all * 1000:.0f} ms (tenant rollups ~{times.tenant_rollups * 1000:.0f} ms)",
    )
    summary.add(f"  backfill of {times.backfilled} chart periods", f"{times.backfill * 1000:.0f} ms")


def main(argv: Sequence[str] | None = None) -> int:
    plan = parse_args(argv)
    summary = Summary()

    def body(api: ApiServer) -> None:
        print(f"\n== GET /api/admin/stats over {plan.hospitals} hospital tenants", flush=True)
        seed_platform(plan, summary)
        token = bootstrap_admin(api)
        log("first admin bootstrapped and logged in")
        describe(api, token)
        bench_endpoints(
            api,
            token,
            summary,
            duration=plan.duration,
            warmup=plan.warmup,
            concurrency=plan.concurrency,
            rounds=plan.rounds,
            serial=plan.serial,
            open_rates=plan.open_rates,
        )

    return run_bench(
        plan,
        summary,
        body,
        env={"FIRST_ADMIN_EMAIL": ADMIN_EMAIL, "FIRST_ADMIN_PASSWORD": ADMIN_PASSWORD},
        modules=("cara.admin_console.service", "cara.analytics.rollups", "cara.analytics.periods"),
    )


if __name__ == "__main__":
    sys.exit(main())
