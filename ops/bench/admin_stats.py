"""Admin console reads: `GET /api/admin/stats?timeRange=weekly` over 2,000 and 10,000 hospitals.

    .venv/bin/python ops/bench/admin_stats.py [--hospitals 2000,10000] [--doctors 300] [--keep-db NAME]
        [--lists-only] [--quick]

Prints figures, the target (p99 < 20 ms at concurrency 20, at every size) and the ratio to a bare
FastAPI app answering the same bytes, measured in the same run.

Setup, per size (the hospitals are topped up from one size to the next): H hospitals, D
hospital-created doctors spread at random over them plus a few independent doctors, creation
dates spread over the last 12 months, subscriptions (hospital and doctor plans, monthly and
annual, mixed statuses) and their payments across the last 12 months in platform.subscriptions /
platform.payments. `--seed-with bulk` (the default) inserts the platform rows (tenants, hospitals,
accounts, the independent doctors' signup trials) with a few multi-row INSERTs and no tenant
schema: the stats never open one (tests/cara/admin_console checks it), they read the rollups.
`--seed-with signup` creates real tenants through cara.registration.service.signup instead (slow).
An independent doctor already holds the signup trial: the ones the seed makes pay end it first
(one live subscription per account). Then the rollups: `cara.analytics.rollups.refresh_all` once
(what the scheduler runs every 5 minutes and a payment or signup triggers; timed), and a backfill
of the periods the charts show (12 weeks, 12 months, 5 years; timed), the first admin through
`cara.admin_console.service.ensure_first_admin` and a real `POST /api/auth/login` for its token.

Load: the API as deployed, `python -m cara.serve` with `--workers` processes (default
WEB_CONCURRENCY, else one per usable core; the count is printed), and wrk -t1 at concurrency 20
(closed loop) on five loads in 4 rounds whose order rotates (2 s warm-up + 5 s each):
`/api/admin/stats?timeRange=weekly` and `/api/admin/subscription-analytics` (target p99 < 20 ms),
the bare app (ops/bench/bare_app.py: FastAPI, an `async def` handler, no middleware, one uvicorn
process) answering the stats' very bytes, the admin's `/api/auth/user` (the authenticated-request
floor every endpoint pays) and, for information, `/api/admin/hospitals?range=[0,24]&sort=["name","ASC"]`.
Printed: each load's req/s, p50 and p99 (medians over rounds), server CPU per request (every server
process) and PostgreSQL CPU per request (the bench database's backends), the load average, and
stats / bare, analytics / bare and floor / bare. Then each product endpoint at concurrency 1 (the
unqueued service time). Then the console's lists as react-admin asks for them (25 rows), one load
each at the same concurrency: the hospitals by creation (the console's default), by name, by name
on the last page and filtered (unverified), the doctors, the payments and the audit log by their
defaults, the payments' last page, and the AI usage per hospital (most tokens first; the bench
records no usage, so every hospital counts zero). `--lists-only`: only the floor and the lists.
wrk shares the machine's cores with the servers and PostgreSQL; latency ratios mean little when
the load average is high, server CPU per request much less so.

Servers: BENCH_DATABASE_URL / BENCH_REDIS_URL as for foundation.py (the Redis db is flushed);
a `cara_bench_<random>` database is created and dropped at the end, even on error, unless
`--keep-db NAME`: that database is seeded on the first run and kept; a later run with the same name
measures it as it is (migrated to the current head; sizes below its hospitals are skipped, larger
ones topped up). Drop it when done (`DROP DATABASE NAME WITH (FORCE)`).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
from _common import (
    DOCTOR_PASSWORD,
    HOSPITAL_PASSWORD,
    ApiServer,
    Summary,
    create_doctors,
    create_hospitals,
    log,
    run_bench,
)
from consultations_list import Load, ServeServer, load_average, wrk
from request_overhead import BareServer, Row, ensure_wrk, profile

STATS_P99_TARGET_MS = 20.0
ADMIN_EMAIL = "bench-admin@example.com"
ADMIN_PASSWORD = "bench-admin-passphrase"  # noqa: S105 - throwaway account in a throwaway database
STATS = ("/api/admin/stats", {"timeRange": "weekly"})
ANALYTICS: tuple[str, dict[str, str]] = ("/api/admin/subscription-analytics", {})
HOSPITALS = ("/api/admin/hospitals", {"range": "[0,24]", "sort": '["name","ASC"]'})
# The authenticated-request floor: the admin's own account (token, principal, one read), no stats.
FLOOR: tuple[str, dict[str, str]] = ("/api/auth/user", {})
YEAR = timedelta(days=365)
MONTH = timedelta(days=30)


# ---------------------------------------------------------------- data


def spread_creation_dates(seed: int, since: datetime) -> None:
    """This round's hospitals (and their accounts) created over the last 12 months, doctors after
    their hospital, each independent doctor's signup trial when the doctor signed up (ended 14
    days later unless that is still ahead). Rows created before `since` (earlier sizes) stay."""
    from sqlalchemy import text

    from cara.kit.db import session_scope

    fresh = {"since": since}
    with session_scope() as session:
        session.execute(text("SELECT setseed(:s)"), {"s": (seed % 1000) / 1000})
        session.execute(
            text(
                "UPDATE platform.hospitals SET created_at = now() - random() * interval '365 days' "
                "WHERE created_at >= :since"
            ),
            fresh,
        )
        session.execute(
            text(
                "UPDATE platform.accounts a SET created_at = h.created_at FROM platform.hospitals h "
                "WHERE a.hospital_id = h.id AND a.role = 'hospital' AND a.created_at >= :since"
            ),
            fresh,
        )
        session.execute(
            text(
                "UPDATE platform.accounts a "
                "SET created_at = h.created_at + random() * (now() - h.created_at) "
                "FROM platform.hospitals h WHERE a.hospital_id = h.id AND a.role = 'doctor' "
                "AND a.created_at >= :since"
            ),
            fresh,
        )
        session.execute(
            text(
                "UPDATE platform.accounts SET created_at = now() - random() * interval '365 days' "
                "WHERE role = 'doctor' AND hospital_id IS NULL AND created_at >= :since"
            ),
            fresh,
        )
        session.execute(
            text(
                "UPDATE platform.subscriptions s SET created_at = a.created_at, "
                "current_period_start = a.created_at, trial_end = a.created_at + interval '14 days', "
                "status = CASE WHEN a.created_at + interval '14 days' < now() THEN 'canceled' "
                "ELSE 'trialing' END, "
                "updated_at = least(now(), a.created_at + interval '14 days') "
                "FROM platform.accounts a WHERE a.id = s.account_id AND s.status = 'trialing' "
                "AND s.stripe_subscription_id IS NULL AND s.created_at >= :since"
            ),
            fresh,
        )


# ---------------------------------------------------------------- bulk rows (no tenant schema)


def bulk_hospitals(count: int, tag: str) -> list[tuple[uuid.UUID, uuid.UUID]]:
    """`count` hospital tenants as platform rows only: tenant, hospital, account. Returns
    (tenant id, hospital id) pairs. No schema is created: nothing the admin console reads needs one."""
    from sqlalchemy import insert

    from cara.auth import passwords
    from cara.kit.db import session_scope
    from cara.models import Account, Hospital, Tenant

    hashed = passwords.hash_password(HOSPITAL_PASSWORD)
    pairs: list[tuple[uuid.UUID, uuid.UUID]] = []
    for start in range(0, count, 2000):
        tenants, hospitals, accounts = [], [], []
        for i in range(start, min(count, start + 2000)):
            tenant_id, hospital_id = uuid.uuid4(), uuid.uuid4()
            name = f"Bench Hospital {tag}-{i:05d}"
            email = f"bench-hospital-{tag}-{i:05d}@example.com"
            tenants.append({"id": tenant_id, "schema_name": f"hospital_b{tag}{i:05d}", "kind": "hospital"})
            hospitals.append(
                {
                    "id": hospital_id,
                    "tenant_id": tenant_id,
                    "name": name,
                    "email": email,
                    "phone_number": "+233200000000",
                    "country": "Ghana",
                    "state": ("Greater Accra", "Ashanti", "Volta", "Northern")[i % 4],
                }
            )
            accounts.append(
                {
                    "email": email,
                    "password_hash": hashed,
                    "role": "hospital",
                    "name": name,
                    "tenant_id": tenant_id,
                    "hospital_id": hospital_id,
                }
            )
            pairs.append((tenant_id, hospital_id))
        with session_scope() as session:
            session.execute(insert(Tenant), tenants)
            session.execute(insert(Hospital), hospitals)
            session.execute(insert(Account), accounts)
    return pairs


def bulk_doctors(owners: Sequence[tuple[uuid.UUID, uuid.UUID] | None], tag: str) -> int:
    """One doctor account per owner (tenant, hospital), or independent for None; an independent
    doctor gets the signup trial, as cara.billing.seats.start_trial gives it."""
    from sqlalchemy import insert, select

    from cara.auth import passwords
    from cara.kit.db import session_scope
    from cara.models import Account, Subscription, Tenant

    hashed = passwords.hash_password(DOCTOR_PASSWORD)
    specialties = ("Cardiologist", "Nurse", "General Practitioner", "Oncologist", "Radiologist")
    now = datetime.now(UTC)
    with session_scope() as session:
        independent = session.scalar(select(Tenant.id).where(Tenant.kind == "independent"))
        rows, trials = [], []
        for i, owner in enumerate(owners):
            account_id = uuid.uuid4()
            rows.append(
                {
                    "id": account_id,
                    "email": f"bench-doctor-{tag}-{i:05d}@example.com",
                    "password_hash": hashed,
                    "role": "doctor",
                    "name": f"Dr Bench {tag}-{i:05d}",
                    "tenant_id": owner[0] if owner else independent,
                    "hospital_id": owner[1] if owner else None,
                    "specialty": specialties[i % len(specialties)],
                }
            )
            if owner is None:
                trials.append(
                    {
                        "account_id": account_id,
                        "status": "trialing",
                        "billing_cycle": "monthly",
                        "current_period_start": now,
                        "trial_end": now + timedelta(days=14),
                    }
                )
        for start in range(0, len(rows), 2000):
            session.execute(insert(Account), rows[start : start + 2000])
        if trials:
            session.execute(insert(Subscription), trials)
    return len(owners)


@dataclass(frozen=True)
class Billing:
    subscriptions: int
    payments: int
    by_status: dict[str, int]


def seed_billing(
    rng: random.Random, *, hospital_share: float, doctor_share: float, seen: set[uuid.UUID]
) -> Billing:
    """Subscriptions of a share of the hospitals and independent doctors, with their payments.

    Rows look like the billing domain's (tests/cara/admin_console/seed.py): one subscription per
    account, monthly (mostly) or annual, statuses mixed; ended ones carry their end in
    `updated_at`; one payment per billing period until now or the end, 5 % of them failed.
    """
    from sqlalchemy import insert, select, update

    from cara.kit.db import session_scope
    from cara.models import Account, Payment, Plan, Subscription

    now = datetime.now(UTC)
    statuses = ("active", "trialing", "past_due", "canceled", "unpaid")
    weights = (65, 8, 5, 17, 5)
    subscriptions: list[dict[str, Any]] = []
    payments: list[dict[str, Any]] = []
    by_status: dict[str, int] = {}
    ended_trials: dict[uuid.UUID, datetime] = {}
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
            if account_id in seen:
                continue  # billed (or not) at an earlier size
            seen.add(account_id)
            if rng.random() >= (hospital_share if role == "hospital" else doctor_share):
                continue
            plan = rng.choice(plans[role])
            status = rng.choices(statuses, weights)[0]
            if status == "trialing":
                start = now - timedelta(days=rng.uniform(0, 14))
            else:
                start = created + (now - created) * rng.random()
            if role == "doctor":
                # The signup trial ends when the paid subscription starts (one live per account).
                ended_trials[account_id] = start
            annual = rng.random() < (0.1 if role == "hospital" else 0.05)
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
        for account_id, ended_at in ended_trials.items():
            session.execute(
                update(Subscription)
                .where(Subscription.account_id == account_id, Subscription.status == "trialing")
                .values(status="canceled", updated_at=ended_at)
            )
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


def bootstrap_admin(api: ApiServer, *, reused: bool = False) -> str:
    """The first admin from FIRST_ADMIN_* (set for this process only; already there in a `reused`
    database), then a real login."""
    from cara.admin_console.service import ensure_first_admin
    from cara.kit.db import session_scope

    with session_scope() as session:
        created = ensure_first_admin(session)
    if not created and not reused:
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


def _path(endpoint: tuple[str, dict[str, str]]) -> str:
    path, params = endpoint
    return path + ("?" + urlencode(params) if params else "")


def _combined(loads: list[Load]) -> Load:
    """Rounds of one load together: counts and CPU summed, p50 and p99 the rounds' medians."""
    return Load(
        sum(x.requests for x in loads),
        sum(x.seconds for x in loads),
        sum(x.errors for x in loads),
        statistics.median(x.p50 for x in loads),
        statistics.median(x.p99 for x in loads),
        sum(x.server_cpu for x in loads),
        sum(x.database_cpu for x in loads),
    )


def bench_endpoints(
    api: ServeServer,
    token: str,
    summary: Summary,
    *,
    size: int,
    duration: float,
    warmup: float,
    concurrency: int,
    rounds: int,
    serial: float,
    bare: BareServer,
) -> None:
    """The stats, the analytics, the hospital list, the authenticated floor and the bare app with
    wrk at `concurrency`, in rounds whose order rotates (background load spreads over all); then
    concurrency 1 on the product. Prints and records the product's ratios to the bare app."""
    binary = ensure_wrk()
    endpoints = {
        "stats": STATS,
        "analytics": ANALYTICS,
        "bare": STATS,
        "floor": FLOOR,
        "hospitals": HOSPITALS,
    }

    def run(name: str, seconds: float, connections: int) -> Load:
        url, cpu = (
            (bare.base_url, bare.cpu_seconds)
            if name == "bare"
            else (
                api.base_url,
                api.cpu_seconds,
            )
        )
        path = _path(endpoints[name])
        return wrk(binary, url, [path], token, seconds=seconds, connections=connections, cpu=cpu)

    print(
        f"\nserver: python -m cara.serve, {api.workers} process(es) (pids {api.pids()}); bare app: "
        f"{bare.workers} uvicorn process(es); wrk -t1 -c{concurrency}, {warmup:g} s warm-up + {duration:g} s "
        "per endpoint"
        + (f" and round, {rounds} rounds (order rotates)" if rounds > 1 else "")
        + f"; {load_average()}",
        flush=True,
    )
    measured: dict[str, list[Load]] = {name: [] for name in endpoints}
    names = list(endpoints)
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        if r % 2:
            order.reverse()
        for name in order:
            if warmup > 0:
                run(name, warmup, concurrency)
            load = run(name, duration, concurrency)
            measured[name].append(load)
            prefix = f"round {r + 1} " if rounds > 1 else ""
            print(f"{prefix}{name:9} c={concurrency}: {load.line()}", flush=True)
    results = {name: _combined(loads) for name, loads in measured.items()}
    print(f"after the loads: {load_average()}", flush=True)

    base = results["bare"]
    for name in ("stats", "analytics", "floor"):
        mine = results[name]
        ratio = (
            f"p50 x{mine.p50 / max(base.p50, 1e-9):.2f}, p99 x{mine.p99 / max(base.p99, 1e-9):.2f}, "
            f"req/s x{mine.rps / max(base.rps, 1e-9):.2f}, "
            f"server CPU/request x{mine.cpu_ms / max(base.cpu_ms, 1e-9):.2f}"
        )
        print(f"{name} / bare: {ratio}", flush=True)
        summary.add(f"[{size}]   {name} / bare (same run)", ratio)

    unqueued: dict[str, Load] = {}
    del endpoints["bare"]
    if serial > 0:
        print(f"concurrency 1 (unqueued service time), 1 s warm-up + {serial:.0f} s per endpoint")
        for name in endpoints:
            run(name, 1, 1)
            unqueued[name] = run(name, serial, 1)
            print(f"{name:9} c=1: {unqueued[name].line()}", flush=True)

    for name in ("stats", "analytics"):
        print(
            f"target: GET {endpoints[name][0]} p99 < {STATS_P99_TARGET_MS:.0f} ms at concurrency "
            f"{concurrency}: {results[name].p99:.1f} ms"
        )
    for name, result in results.items():
        targeted = name in ("stats", "analytics")
        what = "bare app, the stats' bytes" if name == "bare" else f"GET {endpoints[name][0]}"
        summary.add(
            f"[{size}] {what} c={concurrency}",
            f"{result.rps:.0f} req/s, p50 {result.p50:.1f} / p99 {result.p99:.1f} ms"
            + (f", errors {result.errors}" if result.errors else ""),
            f"p99 < {STATS_P99_TARGET_MS:.0f} ms" if targeted else "",
            (result.p99 < STATS_P99_TARGET_MS and not result.errors) if targeted else None,
        )
        summary.add(
            f"[{size}]   cpu per request",
            f"server {result.cpu_ms:.2f} ms, PostgreSQL {result.db_ms:.2f} ms",
        )
    for name, result in unqueued.items():
        summary.add(
            f"[{size}] GET {endpoints[name][0]} c=1 (unqueued)",
            f"{result.rps:.0f} req/s, p50 {result.p50:.1f} / p99 {result.p99:.1f} ms, "
            f"server {result.cpu_ms:.2f} ms CPU/req",
        )


def _list(path: str, sort: tuple[str, str], start: int = 0, **filters: object) -> tuple[str, dict[str, str]]:
    """A list request as react-admin's data provider sends it (25 rows from `start`)."""
    import json

    params = {"sort": json.dumps(list(sort)), "range": f"[{start},{start + 24}]"}
    if filters:
        params["filter"] = json.dumps(filters)
    return path, params


def _total(client: httpx.Client, endpoint: tuple[str, dict[str, str]]) -> int:
    response = client.get(endpoint[0], params=endpoint[1])
    if response.status_code != 200:
        raise RuntimeError(f"{endpoint[0]}: {response.status_code} {response.text[:300]}")
    return int(response.headers["content-range"].rsplit("/", 1)[1])


def bench_lists(
    api: ServeServer,
    token: str,
    summary: Summary,
    *,
    size: int,
    duration: float,
    warmup: float,
    concurrency: int,
) -> None:
    """The console's lists, a page of 25 as the console asks for it, one wrk load each (the
    floor first, for scale): server and PostgreSQL CPU per request."""
    binary = ensure_wrk()
    hospitals, payments = "/api/admin/hospitals", "/api/admin/payment-history"
    with httpx.Client(base_url=api.base_url, timeout=30, headers={"Authorization": f"Bearer {token}"}) as c:
        hospitals_total = _total(c, _list(hospitals, ("createdAt", "DESC")))
        payments_total = _total(c, _list(payments, ("date", "DESC")))
        unverified = _total(c, _list(hospitals, ("createdAt", "DESC"), isVerified=False))
        loads: dict[str, tuple[str, dict[str, str]]] = {
            "floor": FLOOR,
            "hospitals by creation": _list(hospitals, ("createdAt", "DESC")),
            "hospitals by name": _list(hospitals, ("name", "ASC")),
            "hospitals by name, last page": _list(hospitals, ("name", "ASC"), max(0, hospitals_total - 25)),
            "hospitals unverified": _list(hospitals, ("createdAt", "DESC"), isVerified=False),
            "doctors by creation": _list("/api/admin/doctors", ("createdAt", "DESC")),
            "payments by date": _list(payments, ("date", "DESC")),
            "payments by date, last page": _list(payments, ("date", "DESC"), max(0, payments_total - 25)),
            "audit log": _list("/api/admin/audit-events", ("createdAt", "DESC")),
            # Every tenant's AI minutes and tokens over 30 days (from Redis), most tokens first.
            "AI usage": _list("/api/admin/ai-usage", ("tokens", "DESC")),
        }
        for name, endpoint in loads.items():
            answer = c.get(endpoint[0], params=endpoint[1])
            if answer.status_code != 200:
                raise RuntimeError(f"{name}: {answer.status_code} {answer.text[:300]}")
    print(
        f"\nlists ({hospitals_total} hospitals, {unverified} unverified, {payments_total} payments): "
        f"wrk -t1 -c{concurrency}, {warmup:g} s warm-up + {duration:g} s each; {load_average()}",
        flush=True,
    )
    for name, endpoint in loads.items():
        path = _path(endpoint)
        if warmup > 0:
            wrk(
                binary,
                api.base_url,
                [path],
                token,
                seconds=warmup,
                connections=concurrency,
                cpu=api.cpu_seconds,
            )
        load = wrk(
            binary,
            api.base_url,
            [path],
            token,
            seconds=duration,
            connections=concurrency,
            cpu=api.cpu_seconds,
        )
        print(f"{name:29} c={concurrency}: {load.line()}", flush=True)
        summary.add(
            f"[{size}] {name} c={concurrency}",
            f"{load.rps:.0f} req/s, server {load.cpu_ms:.2f} ms, PostgreSQL {load.db_ms:.2f} ms CPU/request"
            + (f", errors {load.errors}" if load.errors else ""),
        )
    print(f"after the lists: {load_average()}", flush=True)


@dataclass(frozen=True)
class Plan:
    sizes: tuple[int, ...]
    doctors: int
    independent_doctors: int
    seeding: str
    duration: float
    warmup: float
    concurrency: int
    rounds: int
    serial: float
    workers: int
    seed: int
    profile: str | None = None
    keep_db: str | None = None
    lists_only: bool = False


def parse_args(argv: Sequence[str] | None) -> Plan:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="small smoke run (200 and 1000 hospitals, 2 rounds of 3 s)"
    )
    parser.add_argument(
        "--hospitals", help="hospital counts, measured in turn, comma-separated (default 2000,10000)"
    )
    parser.add_argument(
        "--doctors", type=int, help="hospital-created doctors per size, spread at random (default 300)"
    )
    parser.add_argument("--independent-doctors", type=int, help="independent doctors per size (default 100)")
    parser.add_argument(
        "--seed-with",
        choices=("bulk", "signup"),
        default="bulk",
        help="bulk platform rows (default) or real tenants through signup (slow)",
    )
    parser.add_argument("--duration", type=float, help="measured seconds per endpoint and round (default 5)")
    parser.add_argument("--warmup", type=float, help="warm-up seconds per endpoint and round (default 2)")
    parser.add_argument("--concurrency", type=int, default=20, help="client concurrency (default 20)")
    parser.add_argument("--rounds", type=int, help="rounds over the four loads, order rotating (default 4)")
    parser.add_argument(
        "--serial", type=float, help="seconds at concurrency 1 per endpoint, 0 to skip (default 5)"
    )
    parser.add_argument(
        "--workers", help="server processes (default: WEB_CONCURRENCY, else one per usable core, as deployed)"
    )
    parser.add_argument("--seed", type=int, default=7, help="random seed of the data (default 7)")
    parser.add_argument(
        "--profile",
        help="afterwards, py-spy raw stacks of the server processes under the stats' load here (and "
        "PATH.analytics under the analytics')",
    )
    parser.add_argument("--keep-db", help="seed this database once and keep it; later runs reuse it")
    parser.add_argument(
        "--lists-only", action="store_true", help="measure only the floor and the console's lists"
    )
    args = parser.parse_args(argv)
    from cara.serve import web_concurrency  # reads no settings

    quick, full = (
        Plan((200, 1000), 60, 20, "bulk", 3.0, 1.0, 20, 2, 2.0, 1, 7),
        Plan((2000, 10000), 300, 100, "bulk", 5.0, 2.0, 20, 4, 5.0, 1, 7),
    )
    base = quick if args.quick else full
    sizes = tuple(int(x) for x in args.hospitals.split(",")) if args.hospitals else base.sizes
    if list(sizes) != sorted(sizes) or sizes[0] < 1:
        parser.error("--hospitals: increasing positive counts")
    return Plan(
        sizes=sizes,
        doctors=args.doctors if args.doctors is not None else base.doctors,
        independent_doctors=(
            args.independent_doctors if args.independent_doctors is not None else base.independent_doctors
        ),
        seeding=args.seed_with,
        duration=args.duration or base.duration,
        warmup=args.warmup if args.warmup is not None else base.warmup,
        concurrency=args.concurrency,
        rounds=max(1, args.rounds or base.rounds),
        serial=args.serial if args.serial is not None else base.serial,
        workers=web_concurrency(args.workers),
        seed=args.seed,
        profile=args.profile,
        keep_db=args.keep_db,
        lists_only=args.lists_only,
    )


def seeded_platform() -> tuple[int, set[uuid.UUID]]:
    """The hospitals a kept database already holds (0 in a fresh one), and the accounts the
    seeding has already billed or passed over (a top-up bills only the new ones)."""
    from sqlalchemy import text

    from cara.kit.db import session_scope

    with session_scope() as session:
        have = session.execute(text("SELECT count(*) FROM platform.hospitals")).scalar_one()
        seen = session.execute(
            text(
                "SELECT id FROM platform.accounts "
                "WHERE role = 'hospital' OR (role = 'doctor' AND hospital_id IS NULL)"
            )
        ).scalars()
        return int(have), set(seen)


def seed_platform(
    plan: Plan, summary: Summary, *, have: int, size: int, seen: set[uuid.UUID], rng: random.Random
) -> None:
    """Top the platform up from `have` to `size` hospitals (with this size's doctors and billing)."""
    from sqlalchemy import text

    from cara.kit.db import session_scope

    with session_scope() as session:
        since = session.execute(text("SELECT now()")).scalar_one()
    tag = f"{size}"
    adding = size - have
    started = time.perf_counter()
    if plan.seeding == "signup":
        logins = create_hospitals(adding)
        hospitals: list[Any] = logins
    else:
        hospitals = bulk_hospitals(adding, tag)
    took = time.perf_counter() - started
    print(
        f"setup: {adding} hospitals ({plan.seeding}) in {took:.1f} s ({adding / max(took, 1e-9):.0f}/s)",
        flush=True,
    )

    started = time.perf_counter()
    owners: list[Any] = [rng.choice(hospitals) for _ in range(plan.doctors)]
    owners += [None] * plan.independent_doctors
    count = len(create_doctors(owners)) if plan.seeding == "signup" else bulk_doctors(owners, tag)
    print(
        f"setup: {plan.doctors} hospital-created + {plan.independent_doctors} independent doctors "
        f"in {time.perf_counter() - started:.1f} s",
        flush=True,
    )

    spread_creation_dates(plan.seed + size, since)
    started = time.perf_counter()
    billing = seed_billing(rng, hospital_share=0.6, doctor_share=0.5, seen=seen)
    print(
        f"setup: {billing.subscriptions} subscriptions {billing.by_status} and {billing.payments} "
        f"payments over the last 12 months in {time.perf_counter() - started:.1f} s",
        flush=True,
    )

    times = run_rollups()
    print(
        f"rollups: refresh_all + commit {times.refresh_all * 1000:.0f} ms (its tenant_rollups part over "
        f"{size + 1} tenants: ~{times.tenant_rollups * 1000:.0f} ms); "
        f"backfill of {times.backfilled} chart periods {times.backfill * 1000:.0f} ms",
        flush=True,
    )
    summary.add(
        f"[{size}] setup (added)",
        f"{adding} hospitals, {count} doctors, {billing.subscriptions} subscriptions, "
        f"{billing.payments} payments",
    )
    summary.add(
        f"[{size}] rollups.refresh_all + commit (once)",
        f"{times.refresh_all * 1000:.0f} ms (tenant rollups ~{times.tenant_rollups * 1000:.0f} ms)",
    )
    summary.add(f"[{size}]   backfill of {times.backfilled} chart periods", f"{times.backfill * 1000:.0f} ms")


def start_bare(api: ApiServer, token: str, into: Path) -> BareServer:
    """The bare app answering /api/admin/stats with the product's bytes of this moment."""
    import base64
    import json

    r = httpx.get(
        f"{api.base_url}{STATS[0]}", params=STATS[1], headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    if r.status_code != 200:
        raise RuntimeError(f"stats: {r.status_code} {r.text[:300]}")
    responses = into / "bare.json"
    responses.write_text(
        json.dumps(
            {
                STATS[0]: (
                    r.status_code,
                    r.headers.get("content-type", ""),
                    base64.b64encode(r.content).decode(),
                )
            }
        )
    )
    # As many processes as the product (ServeServer.workers), so that the ratios compare like with like.
    bare = BareServer(into / "bare.log", responses, workers=getattr(api, "workers", 1))
    bare.wait_ready(STATS[0])
    return bare


def main(argv: Sequence[str] | None = None) -> int:
    plan = parse_args(argv)
    summary = Summary()

    def body(api: ApiServer) -> None:
        assert isinstance(api, ServeServer)
        have, seen = seeded_platform()
        token = bootstrap_admin(api, reused=have > 0)
        log("first admin bootstrapped and logged in")
        rng = random.Random(plan.seed)
        for size in plan.sizes:
            if size < have:
                print(f"\n== {size} hospitals: skipped, {plan.keep_db} holds {have}", flush=True)
                continue
            print(f"\n== GET /api/admin/stats over {size} hospitals", flush=True)
            if size > have:
                seed_platform(plan, summary, have=have, size=size, seen=seen, rng=rng)
                have = size
            else:
                log(f"reusing the {have} hospitals of {plan.keep_db}")
            describe(api, token)
            lists = partial(
                bench_lists,
                api,
                token,
                summary,
                size=size,
                duration=plan.duration,
                warmup=plan.warmup,
                concurrency=plan.concurrency,
            )
            if plan.lists_only:
                lists()
                continue
            with tempfile.TemporaryDirectory(prefix="cara-bare-") as folder:
                bare = start_bare(api, token, Path(folder))
                try:
                    bench_endpoints(
                        api,
                        token,
                        summary,
                        size=size,
                        duration=plan.duration,
                        warmup=plan.warmup,
                        concurrency=plan.concurrency,
                        rounds=plan.rounds,
                        serial=plan.serial,
                        bare=bare,
                    )
                finally:
                    bare.stop()
            lists()
        if plan.profile:
            binary = ensure_wrk()
            for name, endpoint, out in (
                ("stats", STATS, plan.profile),
                ("analytics", ANALYTICS, plan.profile + ".analytics"),
            ):
                log(f"py-spy under the {name} load ({load_average()})")
                row = Row(name, _path(endpoint), (token,), True)
                profile(
                    api, binary, row, out, seconds=plan.duration, connections=plan.concurrency, native=False
                )

    return run_bench(
        plan,
        summary,
        body,
        # The benchmark's admin signs in with its password alone (no two-factor enrolment to script).
        env={
            "FIRST_ADMIN_EMAIL": ADMIN_EMAIL,
            "FIRST_ADMIN_PASSWORD": ADMIN_PASSWORD,
            "ADMIN_MFA_REQUIRED": "false",
        },
        modules=("cara.admin_console.service", "cara.analytics.rollups", "cara.analytics.periods"),
        keep_db=plan.keep_db,
        server=lambda path: ServeServer(path, plan.workers),
    )


if __name__ == "__main__":
    sys.exit(main())
