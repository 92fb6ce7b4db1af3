"""Mixed open-loop load against 100, 1,000 and 10,000 hospitals: does a request cost the same?

    .venv/bin/python ops/bench/mixed_load.py [--sizes 100,1000,10000] [--rate 40] [--duration 30]
        [--active 100] [--keep] [--processes 1,2] [--quick]

Prints figures only. For each size N, a database with N hospital tenants (every one a schema with
its tables, indexes and tenant role): `--active` of them (default 100) have a hospital account and
two doctors, the others are provisioned schemas only, so the catalog PostgreSQL works with is the
one of N hospitals. Then `python -m cara.serve` (one process) and an OPEN-loop client: requests are
due at a fixed rate (`--rate` per second, default 15, Poisson-free: evenly spaced) whatever the server does,
each one's latency counted from when it was due (no coordinated omission; a slow answer delays
nothing else, requests beyond 200 connections in flight wait and that wait counts). The mix, per
100 requests, as the consoles produce it:

    40 dashboard           GET /api/auth/user                   (a doctor opening the app)
    25 subscription status GET /api/subscription/current        (doctor or hospital)
    20 doctor list page    GET /api/doctors/page?limit=50       (a hospital's Manage Doctors)
    13 profile update      PUT /api/auth/doctor/profile          (a doctor saving their details)
     2 login               POST /api/auth/login                 (a doctor signing in: argon2id)

The table gives per size: p50/p99 over all requests and per kind, server CPU per request (the
serving process tree, /proc), PostgreSQL backend CPU per request, errors (any status >= 400 or
transport failure). Goal: p99 at the largest size within 1.2x of the smallest, zero errors.

Provisioning N schemas takes a while (printed); `--keep` keeps each size's database
(`cara_mixed_<N>`, its tokens and JWT key in .data/bench-mixed/) and reuses it on the next run.
Without it a throwaway `cara_bench_*` database per size is dropped at the end.

`--processes 1,2` then measures the authenticated GET (`/api/auth/user`, closed loop, 50
connections) against `cara.serve` with WEB_CONCURRENCY=1 and =2 on the last size's database and
prints both req/s and their ratio.

Servers: BENCH_DATABASE_URL / BENCH_REDIS_URL as for foundation.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import secrets
import signal
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import httpx
import psycopg
from _common import (
    DOCTOR_PASSWORD,
    REPO,
    ApiServer,
    LatencyStats,
    Login,
    Servers,
    Summary,
    _drop_tenant_roles,
    configure_env,
    create_doctors,
    create_hospitals,
    database_backend_cpu,
    fill_bare_hospitals,
    hammer,
    import_app_modules,
    log,
    plain_conninfo,
    prepare_database,
    servers,
)
from sqlalchemy.engine import make_url

P99_RATIO_TARGET = 1.2
STATE_DIR = REPO / ".data" / "bench-mixed"
MIX = (("dashboard", 40), ("subscription", 25), ("doctor page", 20), ("profile update", 13), ("login", 2))
MAX_IN_FLIGHT = 200


# ---------------------------------------------------------------- seeding


@dataclass
class Seeded:
    size: int
    jwt_secret: str
    hospitals: list[Login]
    doctors: list[Login]
    emails: list[str]  # of `doctors`, same order
    seconds: dict[str, float] = field(default_factory=dict)

    def dump(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = {
            "hospitals": [[str(h.account_id), h.schema, h.token] for h in self.hospitals],
            "doctors": [[str(d.account_id), d.schema, d.token] for d in self.doctors],
        }
        path.write_text(
            json.dumps(
                {
                    "size": self.size,
                    "jwt_secret": self.jwt_secret,
                    "emails": self.emails,
                    "seconds": self.seconds,
                }
                | rows
            )
        )

    @classmethod
    def load(cls, path: Path) -> Seeded | None:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return None

        def logins(rows: list[list[str]]) -> list[Login]:
            return [Login(uuid.UUID(a), s, t) for a, s, t in rows]

        return cls(
            data["size"],
            data["jwt_secret"],
            logins(data["hospitals"]),
            logins(data["doctors"]),
            data["emails"],
            data.get("seconds", {}),
        )


def provision_bare_schemas(count: int, *, platform_keys: bool = True) -> None:
    """`count` hospital tenants without accounts: a tenant row, its schema, tables and role."""
    from foundation import provision_schemas_fast

    if count > 0:
        provision_schemas_fast(count, platform_keys=platform_keys)


def seed(size: int, active: int, jwt_secret: str, *, platform_keys: bool = True) -> Seeded:
    from sqlalchemy import select

    from cara.kit.db import platform_session
    from cara.models import Account

    active = min(active, size)
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    log(f"provisioning {size - active} hospital schemas without accounts")
    provision_bare_schemas(size - active, platform_keys=platform_keys)
    seconds["bare schemas"] = time.perf_counter() - started
    started = time.perf_counter()
    hospitals = create_hospitals(active)
    doctors = create_doctors([h for h in hospitals for _ in range(2)])
    seconds["active hospitals"] = time.perf_counter() - started
    with platform_session() as session:
        query = select(Account.id, Account.email).where(Account.id.in_([d.account_id for d in doctors]))
        emails: dict[uuid.UUID, str] = {row[0]: row[1] for row in session.execute(query)}
    rate = (size - active) / seconds["bare schemas"] if seconds["bare schemas"] else float("nan")
    log(
        f"seeded {size} hospitals: {size - active} bare schemas in {seconds['bare schemas']:.1f} s "
        f"({rate:.0f}/s), {active} with accounts and {len(doctors)} doctors"
        f" in {seconds['active hospitals']:.1f} s"
    )
    return Seeded(size, jwt_secret, hospitals, doctors, [emails[d.account_id] for d in doctors], seconds)


def adopt(size: int, active: int, jwt_secret: str) -> Seeded:
    """A kept database whose seeding stopped part way (`--adopt`): its hospital schemas as they
    are, `active` of them with a hospital account and a doctor (those it has, else cloned from a
    real signup by `_common.fill_bare_hospitals`), tokens issued anew."""
    from sqlalchemy import text

    from cara.auth import tokens
    from cara.kit.db import get_engine

    started = time.perf_counter()
    with get_engine().connect() as conn:
        pairs = conn.execute(
            text(
                "SELECT DISTINCT ON (t.id) t.schema_name, h.id, d.id FROM platform.tenants t"
                " JOIN platform.accounts h ON h.tenant_id = t.id AND h.role = 'hospital'"
                " JOIN platform.accounts d ON d.tenant_id = t.id AND d.role = 'doctor'"
                " WHERE t.kind = 'hospital' ORDER BY t.id, d.created_at LIMIT :n"
            ),
            {"n": active},
        ).all()
        bare = list(
            conn.execute(
                text(
                    "SELECT t.schema_name FROM platform.tenants t WHERE t.kind = 'hospital' AND NOT EXISTS"
                    " (SELECT 1 FROM platform.accounts a WHERE a.tenant_id = t.id) LIMIT :n"
                ),
                {"n": max(0, active - len(pairs))},
            ).scalars()
        )
    hospitals = [
        Login(h, schema, tokens.issue(account_id=h, role="hospital", tenant_schema=schema))
        for schema, h, _d in pairs
    ]
    doctors = [
        Login(d, schema, tokens.issue(account_id=d, role="doctor", tenant_schema=schema))
        for schema, _h, d in pairs
    ]
    if bare:
        with running_api(1) as api:
            filled = fill_bare_hospitals(bare, api.base_url)
        hospitals += filled[0]
        doctors += filled[1]
    with get_engine().connect() as conn:
        emails = dict(
            conn.execute(
                text("SELECT id, email FROM platform.accounts WHERE id = ANY(:ids)"),
                {"ids": [d.account_id for d in doctors]},
            ).all()
        )
    log(f"adopted the database: {len(hospitals)} hospitals with a doctor ({len(bare)} filled)")
    return Seeded(
        size,
        jwt_secret,
        hospitals,
        doctors,
        [emails[d.account_id] for d in doctors],
        {"adopted": time.perf_counter() - started},
    )


@contextmanager
def size_database(
    stack: ExitStack, size: int, keep: bool, adopt: bool = False
) -> Iterator[tuple[Servers, Path | None]]:
    """A throwaway database (dropped after), or with `keep` the size's own `cara_mixed_<N>`."""
    if not keep:
        with servers(stack) as found:
            yield found, None
        return
    db_server = os.environ.get("BENCH_DATABASE_URL")
    redis_url = os.environ.get("BENCH_REDIS_URL")
    if not db_server or not redis_url:
        raise SystemExit("--keep needs BENCH_DATABASE_URL and BENCH_REDIS_URL (a database kept across runs)")
    if "+psycopg" not in db_server:
        db_server = db_server.replace("postgresql://", "postgresql+psycopg://", 1)
    found = Servers(db_server_url=db_server, redis_url=redis_url)
    found.dbname = f"cara_mixed_{size}"
    state = STATE_DIR / f"{found.dbname}.json"
    with psycopg.connect(plain_conninfo(db_server), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (found.dbname,)).fetchone()
        if exists and not state.exists() and not adopt:  # a seeding that did not finish: start again
            conn.execute(f'DROP DATABASE "{found.dbname}" WITH (FORCE)')
            _drop_tenant_roles(db_server, found.dbname)
            exists = None
        if not exists:
            conn.execute(f'CREATE DATABASE "{found.dbname}"')
            state.unlink(missing_ok=True)
    found.db_url = make_url(db_server).set(database=found.dbname).render_as_string(hide_password=False)
    log(f"{'reusing' if exists else 'created'} database {found.dbname} (--keep: not dropped)")
    yield found, state


def bring_tenants_to_head() -> None:
    """A kept database's hospital schemas, migrated when the tenant tree has moved since."""
    from sqlalchemy import select

    from cara.kit.db import get_engine, platform_session
    from cara.models import Tenant
    from tenants import migrate

    head = migrate.tenant_scripts().get_current_head()
    with platform_session() as session:
        schemas = list(session.scalars(select(Tenant.schema_name).where(Tenant.kind == "hospital")))
    with get_engine().connect() as conn:
        if not schemas or migrate.tenant_revision(conn, schemas[-1]) == head:
            return
    started = time.perf_counter()
    results = migrate.upgrade_tenant_schemas(get_engine(), schemas, jobs=4)
    bad = migrate.failed(results)
    took = time.perf_counter() - started
    log(f"migrated {len(schemas)} kept schemas to {head} in {took:.0f} s, {len(bad)} failed")
    if bad:
        raise RuntimeError(f"could not migrate the kept schemas: {bad[0].schema}: {bad[0].error}")


# ---------------------------------------------------------------- the server


def tree_cpu_seconds(root: int) -> float:
    """utime + stime of `root` and every descendant (cara.serve's server processes)."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / ticks
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo += [child for child, parent in parents.items() if parent == pid]
    return total


@contextmanager
def cara_serve(workers: int) -> Iterator[None]:
    """_common's ApiServer runs `uvicorn cara.main:app`; run `python -m cara.serve` instead, as
    deployments do, with `workers` server processes."""
    from cara_devstack import embedded

    original = embedded.spawn

    def spawn(argv: list[str], **options: Any) -> Any:
        if "cara.main:app" in argv:
            port = argv[argv.index("--port") + 1]
            argv = [sys.executable, "-m", "cara.serve", "--host", "127.0.0.1", "--port", port]
            argv += ["--workers", str(workers)]
        return original(argv, **options)

    with mock.patch.object(embedded, "spawn", spawn):
        yield


@contextmanager
def running_api(workers: int = 1) -> Iterator[ApiServer]:
    with tempfile.TemporaryDirectory(prefix="cara-bench-") as tmp, cara_serve(workers):
        api = ApiServer(Path(tmp) / "serve.log")
        try:
            api.wait_ready(120)
            deadline = time.monotonic() + 120
            while api.log_path.read_text(errors="replace").count("Application startup complete") < workers:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"not every server process started; see {api.log_path}")
                time.sleep(0.2)
            yield api
        except BaseException:
            tail = api.tail()
            if tail:
                print(f"--- server log (warnings/errors, last 20) ---\n{tail}", file=sys.stderr)
            raise
        finally:
            api.stop()


# ---------------------------------------------------------------- the load


@dataclass
class MixedResult:
    seconds: float = 0.0
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    issued: int = 0
    late_starts: int = 0  # requests the client itself sent more than 10 ms after they were due
    server_cpu: float = 0.0
    database_cpu: float = 0.0
    floors: list[SqlFloor] = field(default_factory=list)
    schemas: int = 0  # hospital schemas in the database (its catalog)

    @property
    def all_latencies(self) -> list[float]:
        return [v for values in self.latencies.values() for v in values]

    @property
    def requests(self) -> int:
        return len(self.all_latencies)


def profile_body(i: int) -> dict[str, Any]:
    return {"phoneNumber": f"024{i % 10_000_000:07d}", "experience": i % 40}


async def mixed_load(
    api: ApiServer, seeded: Seeded, *, rate: float, duration: float, warmup: float
) -> MixedResult:
    rng = random.Random(7)
    kinds = [kind for kind, weight in MIX for _ in range(weight)]
    result = MixedResult(seconds=duration)
    limits = httpx.Limits(max_connections=MAX_IN_FLIGHT, max_keepalive_connections=MAX_IN_FLIGHT)
    doctors, hospitals = seeded.doctors, seeded.hospitals

    def bearer(login: Login) -> dict[str, str]:
        return {"Authorization": f"Bearer {login.token}"}

    async with httpx.AsyncClient(base_url=api.base_url, limits=limits, timeout=30) as client:
        begin = time.perf_counter()
        measure_from = begin + warmup
        end = measure_from + duration

        async def fire(due: float, kind: str, n: int) -> None:
            if time.perf_counter() - due > 0.010:
                result.late_starts += 1
            doctor = doctors[n % len(doctors)]
            try:
                if kind == "dashboard":
                    r = await client.get("/api/auth/user", headers=bearer(doctor))
                elif kind == "subscription":
                    who = doctor if n % 2 else hospitals[n % len(hospitals)]
                    r = await client.get("/api/subscription/current", headers=bearer(who))
                elif kind == "doctor page":
                    hospital = hospitals[n % len(hospitals)]
                    r = await client.get(
                        "/api/doctors/page", params={"limit": "50"}, headers=bearer(hospital)
                    )
                elif kind == "profile update":
                    r = await client.put(
                        "/api/auth/doctor/profile", json=profile_body(n), headers=bearer(doctor)
                    )
                else:
                    email = seeded.emails[n % len(doctors)]
                    body = {"email": email, "password": DOCTOR_PASSWORD, "role": "doctor"}
                    r = await client.post("/api/auth/login", json=body)
                status = str(r.status_code)
                ok = r.status_code < 400
            except httpx.HTTPError as exc:
                status, ok = type(exc).__name__, False
            if due < measure_from:
                return
            result.latencies.setdefault(kind, []).append(time.perf_counter() - due)
            if not ok:
                result.errors[f"{kind}: {status}"] += 1

        tasks: list[asyncio.Task[None]] = []
        n = 0
        while (due := begin + n / rate) < end:
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(fire(due, rng.choice(kinds), rng.randrange(1 << 30))))
            n += 1
        result.issued = n
        await asyncio.gather(*tasks)
    return result


def measure(api: ApiServer, seeded: Seeded, *, rate: float, duration: float, warmup: float) -> MixedResult:
    server_before = tree_cpu_seconds(api.process.pid)
    database_before = database_backend_cpu()
    result = asyncio.run(mixed_load(api, seeded, rate=rate, duration=duration, warmup=warmup))
    result.server_cpu = tree_cpu_seconds(api.process.pid) - server_before
    database_after = database_backend_cpu()
    result.database_cpu = sum(
        cpu - database_before.get(pid, 0.0)
        for pid, cpu in database_after.items()
        if cpu >= database_before.get(pid, 0.0)
    )
    return result


# ---------------------------------------------------------------- the bare SQL floor


@dataclass
class SqlFloor:
    """A tenant request's database work without the application, on the size's own database."""

    touched: str
    latencies: list[float] = field(default_factory=list)
    database_cpu: float = 0.0
    catalog: str = ""

    def line(self) -> str:
        lat = LatencyStats.of(self.latencies)
        n = max(len(self.latencies), 1)
        return (
            f"bare SQL, {self.touched}: p50 {lat.p50_ms:.2f} ms, p99 {lat.p99_ms:.2f} ms,"
            f" PostgreSQL CPU {self.database_cpu / n * 1000:.2f} ms per transaction"
        )


def sql_floor(seeded: Seeded, *, everyone: bool, transactions: int = 3000, connections: int = 8) -> SqlFloor:
    """What PostgreSQL does for a tenant request, from plain psycopg on `connections` fresh
    connections (fewer than the server's pool of 20: the machine's PostgreSQL is shared):
    BEGIN; SET LOCAL ROLE <tenant role>; one doctor profile read by account id from the
    tenant's schema; COMMIT, in random tenants, after a first pass that is not counted. Either
    the active hospitals' schemas (what the mixed load touches) or, with `everyone`, every
    hospital schema of the database, so each backend meets schemas it has never opened (catalog
    and relation caches are built per backend). Latency per transaction and PostgreSQL backend
    CPU."""
    from concurrent.futures import ThreadPoolExecutor

    from sqlalchemy import text

    from cara.kit.db import get_engine
    from tenants.roles import role_for

    with get_engine().connect() as conn:
        database = str(conn.execute(text("SELECT current_database()")).scalar_one())
        if everyone:
            schemas = list(
                conn.execute(
                    text("SELECT schema_name FROM platform.tenants WHERE kind = 'hospital'")
                ).scalars()
            )
        else:
            schemas = sorted({d.schema for d in seeded.doctors})
        catalog = conn.execute(
            text(
                "SELECT (SELECT count(*) FROM pg_class), pg_size_pretty(pg_total_relation_size('pg_class')),"
                " (SELECT count(*) FROM pg_attribute), pg_size_pretty(pg_total_relation_size('pg_attribute'))"
            )
        ).one()
    conninfo = plain_conninfo(get_engine().url.render_as_string(hide_password=False))
    rng = random.Random(3)
    warmup = [rng.choice(schemas) for _ in range(transactions)]
    picks = [rng.choice(schemas) for _ in range(transactions)]
    account = uuid.uuid4()  # no such doctor: the read is an index probe, as for one that exists
    result = SqlFloor(
        f"every hospital schema ({len(schemas)})"
        if everyone
        else f"the {len(schemas)} active hospitals' schemas"
    )
    result.catalog = (
        f"pg_class {catalog[0]:,} rows ({catalog[1]}), pg_attribute {catalog[2]:,} rows ({catalog[3]})"
    )
    conns = [psycopg.connect(conninfo) for _ in range(connections)]
    try:
        pids = [c.info.backend_pid for c in conns]

        def run(i: int, chosen: list[str]) -> list[float]:
            conn = conns[i]
            times = []
            for schema in chosen[i::connections]:
                started = time.perf_counter()
                with conn.transaction():
                    conn.execute(f'SET LOCAL ROLE "{role_for(database, schema)}"')
                    conn.execute(
                        f'SELECT * FROM "{schema}".doctors WHERE account_id = %s', (account,)
                    ).fetchall()
                times.append(time.perf_counter() - started)
            return times

        with ThreadPoolExecutor(max_workers=connections) as pool:
            list(pool.map(run, range(connections), [warmup] * connections))  # a first pass, not counted
            before = {pid: _pid_cpu(pid) for pid in pids}
            for times in pool.map(run, range(connections), [picks] * connections):
                result.latencies += times
        result.database_cpu = sum(_pid_cpu(pid) - before[pid] for pid in pids)
    finally:
        for c in conns:
            c.close()
    return result


def _pid_cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


# ---------------------------------------------------------------- one size


def run_size(
    size: int, args: argparse.Namespace, summary: Summary, table: list[tuple[int, MixedResult, Seeded]]
) -> None:
    with ExitStack() as stack, size_database(stack, size, args.keep, args.adopt) as (found, state_path):
        seeded = Seeded.load(state_path) if state_path else None
        if seeded is not None and seeded.size != size:
            seeded = None
        jwt_secret = seeded.jwt_secret if seeded else secrets.token_hex(32)
        configure_env(
            found,
            {
                "JWT_SECRET": jwt_secret,
                # Kept databases keep their tokens: long enough to reuse them across runs.
                "JWT_TTL_MINUTES": str(60 * 24 * 30),
                "WEB_CONCURRENCY": "1",
                "DB_POOL_SIZE": "20",
            },
        )
        # The broker binds to REDIS_URL at import: import once the environment is set.
        import_app_modules(("tenants.provisioning", "cara.auth.tokens", "workers.registry"))
        from cara.config import get_settings
        from cara.kit.db import reset_engine

        get_settings.cache_clear()
        reset_engine()
        if seeded is None and args.adopt and state_path:
            prepare_database()
            bring_tenants_to_head()
            seeded = adopt(size, args.active, jwt_secret)
            seeded.dump(state_path)
        elif seeded is None:
            prepare_database()
            seeded = seed(size, args.active, jwt_secret, platform_keys=args.platform_keys)
            if state_path:
                seeded.dump(state_path)
        else:
            log(f"reusing {size} hospitals seeded earlier ({len(seeded.doctors)} doctors with tokens)")
            prepare_database()  # the code may have moved on since: platform schema to head
            bring_tenants_to_head()
        with running_api(1) as api:
            log(
                f"size {size}: open loop at {args.rate:g} req/s,"
                f" {args.warmup:g} s warm-up + {args.duration:g} s"
            )
            result = measure(api, seeded, rate=args.rate, duration=args.duration, warmup=args.warmup)
            result.schemas = hospital_schemas()
            table.append((size, result, seeded))
            print_size(size, result)
            if args.sql_floor:
                for everyone in (False, True):
                    floor = sql_floor(seeded, everyone=everyone)
                    result.floors.append(floor)
                    print(f"    {floor.line()}", flush=True)
                print(f"    catalog: {floor.catalog}", flush=True)
            if result.errors:
                print(f"--- server log (warnings/errors, last 20) ---\n{api.tail()}", flush=True)
            if args.processes and size == args.sizes[-1]:
                compare_processes(api, seeded, args, summary)
        reset_engine()


def hospital_schemas() -> int:
    from sqlalchemy import text

    from cara.kit.db import get_engine

    with get_engine().connect() as conn:
        return int(
            conn.execute(
                text(
                    "SELECT count(*) FROM platform.tenants t JOIN pg_namespace n ON n.nspname = t.schema_name"
                    " WHERE t.kind = 'hospital'"
                )
            ).scalar_one()
        )


def print_size(size: int, result: MixedResult) -> None:
    lat = LatencyStats.of(result.all_latencies)
    print(
        f"{size} hospitals ({result.schemas} hospital schemas in the database): "
        f"{result.requests} requests in {result.seconds:g} s, p50 {lat.p50_ms:.1f} ms, "
        f"p99 {lat.p99_ms:.1f} ms, errors {sum(result.errors.values())},"
        f" late client starts {result.late_starts}",
        flush=True,
    )
    for kind, values in sorted(result.latencies.items()):
        k = LatencyStats.of(values)
        print(f"    {kind:<15} n={len(values):<6} p50 {k.p50_ms:7.1f} ms  p99 {k.p99_ms:7.1f} ms")
    for error, count in result.errors.most_common(5):
        print(f"    error {error}: {count}")


def compare_processes(api_one: ApiServer, seeded: Seeded, args: argparse.Namespace, summary: Summary) -> None:
    """Closed-loop GET /api/auth/user, 50 connections, with 1 and then N server processes."""
    tokens = [d.token for d in seeded.doctors]
    rps: dict[int, float] = {}
    for workers in args.processes:
        if workers == 1:
            result = hammer(
                api_one, "/api/auth/user", tokens, duration=args.duration, warmup=3, concurrency=50
            )
        else:
            with running_api(workers) as api:
                result = hammer(
                    api, "/api/auth/user", tokens, duration=args.duration, warmup=3, concurrency=50
                )
        rps[workers] = result.rps
        print(
            f"WEB_CONCURRENCY={workers}: GET /api/auth/user closed loop, 50 connections: {result.line()}",
            flush=True,
        )
        summary.add(
            f"GET /api/auth/user, {workers} process(es)",
            f"{result.rps:.0f} req/s, p50 {result.latency.p50_ms:.1f} ms, p99 {result.latency.p99_ms:.1f} ms"
            + (f", errors {result.errors}" if result.errors else ""),
        )
    if 1 in rps and len(rps) > 1:
        most = max(rps)
        summary.add(
            f"  req/s ratio {most} / 1 process(es)",
            f"{rps[most] / rps[1]:.2f}x",
            f"on {os.cpu_count()} cores",
        )


# ---------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes", default=None, help="hospital counts, comma-separated (default 100,1000,10000)"
    )
    parser.add_argument("--rate", type=float, default=None, help="requests due per second (default 15)")
    parser.add_argument("--duration", type=float, default=None, help="measured seconds per size (default 30)")
    parser.add_argument("--warmup", type=float, default=None, help="warm-up seconds per size (default 5)")
    parser.add_argument(
        "--active", type=int, default=100, help="hospitals with accounts and doctors (default 100)"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep and reuse each size's database (cara_mixed_<N>)"
    )
    parser.add_argument(
        "--processes",
        default=None,
        help="compare req/s with these WEB_CONCURRENCY values (default 1,2; '' skips)",
    )
    parser.add_argument(
        "--adopt",
        action="store_true",
        help="with --keep: a kept database whose seeding did not finish is used as it is (its "
        "hospital schemas; accounts added to --active of them) instead of being seeded again",
    )
    parser.add_argument(
        "--no-sql-floor",
        dest="sql_floor",
        action="store_false",
        help="skip the bare SQL floor measured on each size's database after its load",
    )
    parser.add_argument(
        "--no-platform-keys",
        dest="platform_keys",
        action="store_false",
        help="seed the bare schemas without their foreign keys into platform.accounts (each one "
        "rebuilds that table's trigger list: ~100 min at 10,000 hospitals); the active ones keep them",
    )
    parser.add_argument("--quick", action="store_true", help="small smoke run (20,100 hospitals, 5 s)")
    args = parser.parse_args(argv)
    quick = args.quick
    args.sizes = [
        int(s) for s in (args.sizes or ("20,100" if quick else "100,1000,10000")).split(",") if s.strip()
    ]
    args.rate = args.rate or 15.0
    args.duration = args.duration or (5.0 if quick else 30.0)
    args.warmup = args.warmup if args.warmup is not None else (2.0 if quick else 5.0)
    args.active = min(args.active, 20 if quick else args.active)
    processes = args.processes if args.processes is not None else "1,2"
    args.processes = [int(p) for p in processes.split(",") if p.strip()]
    if not args.sizes or min(args.sizes) < 1 or args.rate <= 0:
        parser.error("--sizes must be positive counts and --rate positive")

    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request otherwise
    summary = Summary()
    table: list[tuple[int, MixedResult, Seeded]] = []
    print(
        f"host: {os.cpu_count()} CPUs; sizes {args.sizes}; open loop {args.rate:g} req/s; mix "
        + ", ".join(f"{kind} {weight}%" for kind, weight in MIX),
        flush=True,
    )
    try:
        for size in args.sizes:
            run_size(size, args, summary, table)
    finally:
        report(table, summary)
        summary.print()
    return 0


def report(table: list[tuple[int, MixedResult, Seeded]], summary: Summary) -> None:
    if not table:
        return
    print(
        "\nhospitals | schemas | seeded in | requests | p50 ms | p99 ms | server CPU/req | PostgreSQL CPU/req"
        " | errors"
    )
    for size, result, seeded in table:
        lat = LatencyStats.of(result.all_latencies)
        n = max(result.issued, 1)
        seeded_in = sum(seeded.seconds.values())
        print(
            f"{size:>9} | {result.schemas:>7} | {seeded_in:>7.0f} s | {result.requests:>8} | "
            f"{lat.p50_ms:>6.1f} | {lat.p99_ms:>6.1f} | "
            f"{result.server_cpu / n * 1000:>11.2f} ms | {result.database_cpu / n * 1000:>15.2f} ms | "
            f"{sum(result.errors.values())}"
        )
        for floor in result.floors:
            lat = LatencyStats.of(floor.latencies)
            summary.add(
                f"  bare SQL transaction, {floor.touched}",
                f"p50 {lat.p50_ms:.2f} ms, p99 {lat.p99_ms:.2f} ms,"
                f" PostgreSQL {floor.database_cpu / max(len(floor.latencies), 1) * 1000:.2f} ms/tx",
            )
        lat = LatencyStats.of(result.all_latencies)
        summary.add(
            f"mixed load, {size} hospitals",
            f"p50 {lat.p50_ms:.1f} ms, p99 {lat.p99_ms:.1f} ms,"
            f" server {result.server_cpu / n * 1000:.2f} ms/req, "
            f"PostgreSQL {result.database_cpu / n * 1000:.2f} ms/req",
            "0 errors",
            not result.errors,
        )
    (first, a, _), (last, b, _) = table[0], table[-1]
    if len(table) > 1 and len(a.floors) == len(b.floors):
        for fa, fb in zip(a.floors, b.floors, strict=True):
            la, lb = LatencyStats.of(fa.latencies), LatencyStats.of(fb.latencies)
            which = "every" if "every" in fa.touched else "active"
            cpu_a = fa.database_cpu / max(len(fa.latencies), 1)
            cpu_b = fb.database_cpu / max(len(fb.latencies), 1)
            summary.add(
                f"  bare SQL {last} / {first} hospitals, {which} schemas",
                f"p50 {lb.p50_ms / la.p50_ms:.2f}x, p99 {lb.p99_ms / la.p99_ms:.2f}x,"
                f" PostgreSQL CPU/tx {cpu_b / max(cpu_a, 1e-9):.2f}x",
            )
    if len(table) > 1:
        p99_a, p99_b = LatencyStats.of(a.all_latencies).p99_ms, LatencyStats.of(b.all_latencies).p99_ms
        ratio = p99_b / p99_a if p99_a else float("nan")
        summary.add(
            f"p99 {last} / {first} hospitals",
            f"{ratio:.2f}x",
            f"<= {P99_RATIO_TARGET}x",
            ratio <= P99_RATIO_TARGET and not a.errors and not b.errors,
        )


if __name__ == "__main__":
    sys.exit(main())
