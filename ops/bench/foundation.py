"""Foundation benchmarks: tenant provisioning, tenant migrations, multi-tenant auth throughput.

    .venv/bin/python ops/bench/foundation.py [--tenants 2000] [--migrate-schemas 1000] [--quick]

Prints figures only; targets are printed next to them, nothing is asserted.

1. Hospital provisioning: `tenants.provisioning.provision_hospital_tenant` alone (session + commit)
   and the full `POST /api/auth/signup` (role=hospital) through a real uvicorn server.
2. `tenants.migrate.upgrade_tenant_schemas` over N tenant schemas through a no-op revision added
   to a temporary copy of the tenant Alembic tree, with 4 and 8 jobs.
3. `GET /api/auth/user` throughput with tokens spread over T hospital tenants (A) versus the
   tokens of a single tenant (B), one uvicorn worker, asyncio httpx client.

Servers: BENCH_DATABASE_URL (a server URL; any database on it, e.g. .../postgres) and
BENCH_REDIS_URL (use a spare db index, e.g. redis://127.0.0.1:6379/13: it is flushed). Without
them, embedded PostgreSQL/Redis are started under .data/bench-*. A fresh database
`cara_bench_<random>` is created next to the given one and dropped at the end, even on error.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform as host
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from unittest import mock

import httpx
import psycopg
from sqlalchemy.engine import make_url

REPO = Path(__file__).resolve().parents[2]
BENCH_REDIS_DB = 13

PROVISION_TARGET_MS = 150.0
MIGRATE_TARGET_S = 60.0
RATIO_TARGET = 0.9
MIGRATE_JOBS = (4, 8)
HOSPITAL_PASSWORD = "bench-hospital-pass"  # noqa: S105 - throwaway accounts in a throwaway database


# ---------------------------------------------------------------- small helpers


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, q in [0, 1]."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@dataclass(frozen=True)
class LatencyStats:
    count: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> LatencyStats:
        ms = [s * 1000 for s in seconds]
        return cls(
            len(ms),
            percentile(ms, 0.50),
            percentile(ms, 0.95),
            percentile(ms, 0.99),
            max(ms) if ms else float("nan"),
        )

    def line(self) -> str:
        return (
            f"n={self.count}  p50={self.p50_ms:.1f} ms  p95={self.p95_ms:.1f} ms  "
            f"p99={self.p99_ms:.1f} ms  max={self.max_ms:.1f} ms"
        )


@dataclass
class Summary:
    rows: list[tuple[str, str, str, str]] = field(default_factory=list)

    def add(self, name: str, value: str, target: str = "", ok: bool | None = None) -> None:
        verdict = "" if ok is None else ("PASS" if ok else "MISS")
        self.rows.append((name, value, target, verdict))

    def print(self) -> None:
        header = ("benchmark", "result", "target", "")
        widths = [max(len(r[i]) for r in [header, *self.rows]) for i in range(4)]
        rule = "-+-".join("-" * w for w in widths)
        print()
        print("=" * len(rule))
        print("SUMMARY")
        print("=" * len(rule))
        print(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
        print(rule)
        for row in self.rows:
            print(" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
        print(flush=True)


def hospital_payload(n: int, tag: str) -> dict[str, Any]:
    return {
        "role": "hospital",
        "name": f"Bench Hospital {tag}-{n}",
        "email": f"bench-hospital-{tag}-{n}@example.com",
        "password": HOSPITAL_PASSWORD,
        "phoneNumber": "0302123456",
        "address": "Guggisberg Ave, Accra",
        "type": "public",
        "registrationNumber": f"REG-{tag}-{n}",
        "capacity": 2000,
        "country": "Ghana",
        "state": "Greater Accra",
        "website": "https://bench.example.org",
        "privacyPolicyAccepted": True,
    }


def plain_conninfo(url: str) -> str:
    """psycopg conninfo from an SQLAlchemy URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


# ---------------------------------------------------------------- servers and the throwaway database


@dataclass
class Servers:
    db_server_url: str
    redis_url: str
    db_url: str = ""
    dbname: str = ""


@contextmanager
def servers(stack: ExitStack) -> Iterator[Servers]:
    """PostgreSQL and Redis URLs, a fresh `cara_bench_*` database, dropped on the way out."""
    db_server = os.environ.get("BENCH_DATABASE_URL")
    redis_url = os.environ.get("BENCH_REDIS_URL")
    if not db_server or not redis_url:
        from cara.devstack import embedded  # does not read settings

        if not db_server:
            log("starting embedded PostgreSQL under .data/bench-postgres")
            pg = embedded.start_postgres(REPO / ".data" / "bench-postgres")
            stack.callback(pg.stop)
            db_server = pg.server_url("postgres")
        if not redis_url:
            log("starting embedded Redis under .data/bench-redis")
            rd = embedded.start_redis(REPO / ".data" / "bench-redis")
            stack.callback(rd.stop)
            redis_url = rd.url
    if "+psycopg" not in db_server:
        db_server = db_server.replace("postgresql://", "postgresql+psycopg://", 1)
    if make_url(redis_url).database in (None, ""):
        redis_url = f"{redis_url.rstrip('/')}/{BENCH_REDIS_DB}"
    elif not os.environ.get("BENCH_REDIS_URL"):
        redis_url = str(make_url(redis_url).set(database=str(BENCH_REDIS_DB)))

    found = Servers(db_server_url=db_server, redis_url=redis_url)
    found.dbname = f"cara_bench_{secrets.token_hex(4)}"
    with psycopg.connect(plain_conninfo(db_server), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{found.dbname}"')
    found.db_url = make_url(db_server).set(database=found.dbname).render_as_string(hide_password=False)
    log(f"created database {found.dbname}")
    try:
        yield found
    finally:
        try:
            from cara.kit.db import reset_engine

            reset_engine()
        except Exception as exc:  # still drop the database
            log(f"warning: could not dispose the engine: {exc}")
        with psycopg.connect(plain_conninfo(db_server), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{found.dbname}" WITH (FORCE)')
        log(f"dropped database {found.dbname}")


def configure_env(found: Servers) -> None:
    """Environment for this process and the uvicorn child; before any `cara` settings are read."""
    os.environ.update(
        CARA_ENV="production",
        DATABASE_URL=found.db_url,
        REDIS_URL=found.redis_url,
        JWT_SECRET=secrets.token_hex(32),
        OTEL_TRACES_EXPORTER="none",
    )
    for key in ("SMTP_HOST", "FIRST_ADMIN_EMAIL", "FIRST_ADMIN_PASSWORD"):
        os.environ.pop(key, None)


def import_app_modules() -> None:
    """Import every `cara`/`tenants` module the benchmark uses, at once.

    The code may be edited while a long run is going on; importing everything up front (as the
    uvicorn child does at the same moment) keeps this process on one consistent snapshot.
    """
    import importlib

    for module in (
        "cara.auth.passwords",
        "cara.auth.schemas",
        "cara.auth.service",
        "cara.auth.tokens",
        "cara.kit.db",
        "cara.kit.redis",
        "cara.models",
        "cara.plans.seed",
        "tenants.migrate",
        "tenants.naming",
        "tenants.provisioning",
    ):
        importlib.import_module(module)


def prepare_database() -> None:
    """Platform schema, the independent tenant and the plans, as a deploy would have them."""
    from cara.kit.db import get_engine, session_scope
    from cara.kit.redis import get_redis
    from cara.plans.seed import seed_plans
    from tenants import migrate
    from tenants.provisioning import ensure_independent_tenant

    migrate.upgrade_platform(get_engine())
    with session_scope() as session:
        ensure_independent_tenant(session)
        seed_plans(session)
    get_redis().flushdb()


class ApiServer:
    """`python -m uvicorn cara.main:app --workers 1` on a free port, as a child process."""

    def __init__(self, log_path: Path) -> None:
        from cara.devstack import embedded

        self._embedded = embedded
        self.port = embedded.free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self._log: IO[bytes] = log_path.open("wb")
        argv = [
            sys.executable,
            "-m",
            "uvicorn",
            "cara.main:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--workers",
            "1",
            "--log-level",
            "warning",
        ]
        self.process: subprocess.Popen[bytes] = embedded.spawn(
            argv,
            death_signal=signal.SIGTERM,
            cwd=REPO,
            env=dict(os.environ),
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"uvicorn exited with {self.process.returncode}; see {self.log_path}")
            try:
                if httpx.get(f"{self.base_url}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"uvicorn not ready after {timeout:.0f}s; see {self.log_path}")

    def stop(self) -> None:
        self._embedded.stop_process(self.process, ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)))
        self._log.close()

    def tail(self, lines: int = 20) -> str:
        """The last warnings, errors and non-JSON lines (tracebacks) of the server log."""
        text = self.log_path.read_text(errors="replace").splitlines()
        quiet = ('"level": "info"', '"level": "debug"')
        return "\n".join([line for line in text if not any(q in line for q in quiet)][-lines:])


# ---------------------------------------------------------------- 1) hospital provisioning


def bench_provisioning(n: int, api: ApiServer, summary: Summary) -> None:
    from cara.auth import passwords
    from cara.kit.db import platform_session
    from tenants.provisioning import provision_hospital_tenant

    print("\n== 1) hospital provisioning", flush=True)

    def provision_once() -> float:
        started = time.perf_counter()
        session = platform_session()
        try:
            provision_hospital_tenant(session)
            session.commit()
        finally:
            session.close()
        return time.perf_counter() - started

    warmup = 3
    for _ in range(warmup):
        provision_once()
    direct = LatencyStats.of([provision_once() for _ in range(n)])
    print(f"(a) provision_hospital_tenant + commit   {direct.line()}   (after {warmup} warm-up calls)")

    tag = secrets.token_hex(3)
    timings: list[float] = []
    failures: dict[int, int] = {}
    with httpx.Client(base_url=api.base_url, timeout=30) as client:
        for i in range(warmup + n):
            body = hospital_payload(i, tag)
            started = time.perf_counter()
            response = client.post("/api/auth/signup", json=body)
            elapsed = time.perf_counter() - started
            if response.status_code != 201:
                failures[response.status_code] = failures.get(response.status_code, 0) + 1
                if len(failures) == 1 and sum(failures.values()) == 1:
                    print(f"    first failure: {response.status_code} {response.text[:300]}")
            elif i >= warmup:
                timings.append(elapsed)
    http = LatencyStats.of(timings)
    print(f"(b) POST /api/auth/signup (hospital)     {http.line()}   failures={failures or 0}")

    hashes = []
    for _ in range(10):
        started = time.perf_counter()
        passwords.hash_password(HOSPITAL_PASSWORD)
        hashes.append(time.perf_counter() - started)
    hash_ms = percentile(hashes, 0.5) * 1000
    print(f"    context: one argon2id hash_password() in this process takes p50 {hash_ms:.1f} ms")
    print(f"    target: p50 < {PROVISION_TARGET_MS:.0f} ms")

    target = f"p50 < {PROVISION_TARGET_MS:.0f} ms"
    summary.add(
        f"provision_hospital_tenant p50/p95/max (n={n})",
        f"{direct.p50_ms:.1f} / {direct.p95_ms:.1f} / {direct.max_ms:.1f} ms",
        target,
        direct.p50_ms < PROVISION_TARGET_MS,
    )
    summary.add(
        f"POST /api/auth/signup p50/p95/max (n={n})",
        f"{http.p50_ms:.1f} / {http.p95_ms:.1f} / {http.max_ms:.1f} ms"
        + (f" ({sum(failures.values())} failed)" if failures else ""),
        target,
        http.p50_ms < PROVISION_TARGET_MS and not failures,
    )
    summary.add("  (argon2id hash inside signup, p50)", f"{hash_ms:.1f} ms")


# ---------------------------------------------------------------- 2) migrating tenant schemas


def provision_schemas_fast(count: int, *, batch: int = 25, threads: int = 4) -> list[str]:
    """`count` hospital tenant rows + schemas, `batch` per transaction, on a few threads."""
    from cara.kit.db import platform_session
    from cara.models import Tenant
    from tenants import naming
    from tenants.provisioning import create_tenant_schema

    def one_batch(size: int) -> list[str]:
        names = [naming.new_hospital_schema() for _ in range(size)]
        session = platform_session()
        try:
            session.add_all([Tenant(schema_name=s, kind="hospital", status="active") for s in names])
            session.flush()
            connection = session.connection()
            for schema in names:
                create_tenant_schema(connection, schema)
            session.commit()
        finally:
            session.close()
        return names

    sizes = [min(batch, count - start) for start in range(0, count, batch)]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return [name for names in pool.map(one_batch, sizes) for name in names]


def write_noop_tree(tmp: Path) -> tuple[Path, str, str]:
    """Copy the tenant Alembic tree into `tmp` and add a no-op revision on top of its head."""
    from alembic.script import ScriptDirectory

    from tenants import migrate

    head = ScriptDirectory(str(migrate.TENANT_SCRIPTS)).get_current_head()
    if head is None:
        raise RuntimeError("the tenant Alembic tree has no head")
    tree = tmp / "tenant"
    shutil.copytree(migrate.TENANT_SCRIPTS, tree, ignore=shutil.ignore_patterns("__pycache__"))
    revision = f"bench_noop_{secrets.token_hex(4)}"
    (tree / "versions" / f"{revision}.py").write_text(
        f'"""benchmark no-op revision\n\nRevision ID: {revision}\nRevises: {head}\n"""\n\n'
        f"revision = {revision!r}\n"
        f"down_revision = {head!r}\n"
        "branch_labels = None\n"
        "depends_on = None\n\n\n"
        "def upgrade() -> None:\n    pass\n\n\n"
        "def downgrade() -> None:\n    pass\n"
    )
    return tree, head, revision


def schema_versions(schemas: Sequence[str]) -> dict[str, str | None]:
    from sqlalchemy import text

    from cara.kit.db import get_engine

    found: dict[str, str | None] = {}
    with get_engine().connect() as conn:
        for start in range(0, len(schemas), 200):
            chunk = schemas[start : start + 200]
            query = " UNION ALL ".join(
                f"(SELECT '{s}' AS schema, (SELECT max(version_num) FROM \"{s}\".alembic_version))"
                for s in chunk
            )
            for schema, version in conn.execute(text(query)):
                found[schema] = version
    return found


def reset_versions(schemas: Sequence[str], revision: str) -> None:
    from sqlalchemy import text

    from cara.kit.db import get_engine

    with get_engine().begin() as conn:
        for schema in schemas:
            conn.execute(text(f'UPDATE "{schema}".alembic_version SET version_num = :v'), {"v": revision})


def bench_migrations(count: int, summary: Summary) -> None:
    from cara.kit.db import get_engine
    from tenants import migrate

    print(f"\n== 2) migrating {count} tenant schemas through a no-op revision", flush=True)
    started = time.perf_counter()
    schemas = provision_schemas_fast(count)
    setup = time.perf_counter() - started
    print(f"setup: provisioned {len(schemas)} tenant schemas in {setup:.1f} s ({len(schemas) / setup:.0f}/s)")

    with tempfile.TemporaryDirectory(prefix="cara-bench-alembic-") as tmp:
        tree, head, revision = write_noop_tree(Path(tmp))
        print(f"no-op revision {revision} (down_revision {head}) in a temporary copy of the tenant tree")
        for jobs in MIGRATE_JOBS:
            reset_versions(schemas, head)
            started = time.perf_counter()
            results = migrate.upgrade_tenant_schemas(get_engine(), schemas, jobs=jobs, scripts=tree)
            total = time.perf_counter() - started
            bad = migrate.failed(results)
            versions = schema_versions(schemas)
            wrong = sorted(s for s in schemas if versions.get(s) != revision)
            per_schema = LatencyStats.of([r.seconds for r in results])
            print(
                f"jobs={jobs}: {total:.2f} s total, {len(schemas) / total:.0f} schemas/s, "
                f"failures={len(bad)}, not at {revision}: {len(wrong)}  "
                f"| per schema p50={per_schema.p50_ms:.1f} ms p99={per_schema.p99_ms:.1f} ms"
            )
            for r in bad[:5]:
                print(f"    FAILED {r.schema}: {r.error}")
            for s in wrong[:5]:
                print(f"    WRONG VERSION {s}: {versions.get(s)}")
            summary.add(
                f"migrate {len(schemas)} schemas, no-op rev, jobs={jobs}",
                f"{total:.2f} s ({len(schemas) / total:.0f}/s), {len(bad)} failed, {len(wrong)} unverified",
                f"< {MIGRATE_TARGET_S:.0f} s, 0 failed",
                total < MIGRATE_TARGET_S and not bad and not wrong,
            )
    print(f"    target: < {MIGRATE_TARGET_S:.0f} s, 0 failures")


# ---------------------------------------------------------------- 3) GET /api/auth/user across tenants


@dataclass(frozen=True)
class HospitalLogin:
    account_id: uuid.UUID
    schema: str
    token: str


def create_hospitals(count: int, *, threads: int = 4) -> list[HospitalLogin]:
    """`count` hospital tenants, one hospital account each, through cara.auth.service.signup.

    The argon2id hash (about 0.1 s of CPU) is computed once and reused for every account: the
    accounts are only ever used with tokens issued here, and the hash is still a valid one.
    """
    from cara.auth import passwords, service
    from cara.auth.schemas import SignupRequest
    from cara.kit.db import platform_session, tenant_session

    tag = secrets.token_hex(3)
    cached = passwords.hash_password(HOSPITAL_PASSWORD)
    lock = threading.Lock()
    done = [0]

    def one(i: int) -> HospitalLogin:
        req = SignupRequest.model_validate(hospital_payload(i, tag))
        planning = platform_session()
        try:
            plan = service.plan_signup(planning, req, None)
        finally:
            planning.close()
        assert plan.tenant_schema is not None
        session = tenant_session(plan.tenant_schema)
        try:
            token, user = service.signup(session, req, plan, None)
            session.commit()
        finally:
            session.close()
        with lock:
            done[0] += 1
            if done[0] % 500 == 0:
                log(f"  {done[0]}/{count} hospitals created")
        return HospitalLogin(uuid.UUID(user.id), plan.tenant_schema, token)

    with (
        mock.patch.object(passwords, "hash_password", return_value=cached),
        ThreadPoolExecutor(max_workers=threads) as pool,
    ):
        return list(pool.map(one, range(count)))


@dataclass
class LoadResult:
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: dict[int, int] = field(default_factory=dict)
    issued: int = 0  # every request sent, warm-up included
    server_cpu: float = 0.0  # uvicorn CPU seconds over the whole run, warm-up included
    client_cpu: float = 0.0

    @property
    def requests(self) -> int:
        return len(self.latencies)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else float("nan")

    @property
    def latency(self) -> LatencyStats:
        return LatencyStats.of(self.latencies)

    def merge(self, other: LoadResult) -> None:
        self.seconds += other.seconds
        self.latencies += other.latencies
        for status, n in other.errors.items():
            self.errors[status] = self.errors.get(status, 0) + n
        self.issued += other.issued
        self.server_cpu += other.server_cpu
        self.client_cpu += other.client_cpu

    def line(self) -> str:
        lat = self.latency
        cpu = ""
        if self.issued:
            cpu = (
                f"  cpu/request: server {self.server_cpu / self.issued * 1000:.2f} ms, "
                f"client {self.client_cpu / self.issued * 1000:.2f} ms"
            )
        return (
            f"{self.rps:.0f} req/s  p50={lat.p50_ms:.1f} ms  p99={lat.p99_ms:.1f} ms  "
            f"requests={self.requests}  errors={self.errors or 0}{cpu}"
        )


def process_cpu_seconds(pid: int) -> float:
    """utime + stime of `pid` from /proc (Linux); 0.0 where unavailable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


async def _hammer(
    base_url: str, tokens: Sequence[str], *, duration: float, warmup: float, concurrency: int, seed: int
) -> LoadResult:
    rng = random.Random(seed)
    headers = [{"Authorization": f"Bearer {t}"} for t in tokens]
    result = LoadResult(seconds=duration)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=30) as client:
        begin = time.perf_counter()
        measure_from = begin + warmup
        end = measure_from + duration

        async def worker() -> None:
            while True:
                started = time.perf_counter()
                if started >= end:
                    return
                result.issued += 1
                try:
                    response = await client.get("/api/auth/user", headers=rng.choice(headers))
                    status = response.status_code
                except httpx.HTTPError:
                    status = -1
                if started < measure_from:
                    continue
                result.latencies.append(time.perf_counter() - started)
                if status != 200:
                    result.errors[status] = result.errors.get(status, 0) + 1

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return result


def hammer(
    api: ApiServer, tokens: Sequence[str], *, duration: float, warmup: float, concurrency: int, seed: int
) -> LoadResult:
    server_before, client_before = process_cpu_seconds(api.process.pid), time.process_time()
    result = asyncio.run(
        _hammer(api.base_url, tokens, duration=duration, warmup=warmup, concurrency=concurrency, seed=seed)
    )
    result.server_cpu = process_cpu_seconds(api.process.pid) - server_before
    result.client_cpu = time.process_time() - client_before
    return result


def bench_throughput(
    tenants: int,
    api: ApiServer,
    summary: Summary,
    *,
    duration: float,
    warmup: float,
    concurrency: int,
    rounds: int,
) -> None:
    from cara.auth import tokens as jwt_tokens

    print(f"\n== 3) GET /api/auth/user: {tenants} tenants vs 1 tenant", flush=True)
    started = time.perf_counter()
    hospitals = create_hospitals(tenants)
    setup = time.perf_counter() - started
    print(
        f"setup: {len(hospitals)} hospital tenants + accounts in {setup:.1f} s "
        f"({len(hospitals) / setup:.0f}/s)"
    )

    pools = {
        "A": [h.token for h in hospitals],
        "B": [
            jwt_tokens.issue(
                account_id=hospitals[0].account_id, role="hospital", tenant_schema=hospitals[0].schema
            )
            for _ in range(min(len(hospitals), 256))
        ],
    }
    names = {"A": f"{tenants} tenants, random token", "B": "1 tenant"}
    with httpx.Client(base_url=api.base_url, timeout=10) as client:  # sanity check
        check = client.get("/api/auth/user", headers={"Authorization": f"Bearer {pools['A'][-1]}"})
        if check.status_code != 200:
            print(f"    sanity check failed: {check.status_code} {check.text[:300]}")

    print(
        f"uvicorn --workers 1, asyncio httpx concurrency {concurrency}, "
        f"{warmup:.0f} s warm-up + {duration:.0f} s per scenario"
        + (f" and round, {rounds} rounds (order alternates AB, BA, ...)" if rounds > 1 else "")
    )
    results = {"A": LoadResult(), "B": LoadResult()}
    for r in range(rounds):
        for label in ("A", "B") if r % 2 == 0 else ("B", "A"):
            result = hammer(
                api, pools[label], duration=duration, warmup=warmup, concurrency=concurrency, seed=r
            )
            results[label].merge(result)
            prefix = f"round {r + 1} " if rounds > 1 else ""
            print(f"{prefix}{label} ({names[label]}): {result.line()}", flush=True)
    if rounds > 1:
        for label, result in results.items():
            print(f"all rounds {label} ({names[label]}): {result.line()}")
    a, b = results["A"], results["B"]
    ratio = a.rps / b.rps if b.rps else float("nan")
    print(f"ratio A/B = {ratio:.3f}   (target >= {RATIO_TARGET})")

    for label, result in results.items():
        lat = result.latency
        summary.add(
            f"GET /api/auth/user {label}: {names[label].split(',')[0]}",
            f"{result.rps:.0f} req/s, p50 {lat.p50_ms:.1f} ms, p99 {lat.p99_ms:.1f} ms"
            + (f", errors {result.errors}" if result.errors else ""),
        )
    summary.add("GET /api/auth/user ratio A/B", f"{ratio:.3f}", f">= {RATIO_TARGET}", ratio >= RATIO_TARGET)


# ---------------------------------------------------------------- main


@dataclass(frozen=True)
class Plan:
    provision: int
    migrate_schemas: int
    tenants: int
    duration: float
    warmup: float
    concurrency: int
    rounds: int
    sections: frozenset[int]


def parse_args(argv: Sequence[str] | None) -> Plan:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small smoke run (20 / 100 / 100, 5 s)")
    parser.add_argument("--provision", type=int, help="hospital signups per method (default 200)")
    parser.add_argument("--migrate-schemas", type=int, help="tenant schemas to migrate (default 1000)")
    parser.add_argument("--tenants", type=int, help="tenants for the throughput test (default 2000)")
    parser.add_argument("--duration", type=float, help="seconds per throughput scenario (default 15)")
    parser.add_argument("--warmup", type=float, help="warm-up seconds per scenario (default 3)")
    parser.add_argument("--concurrency", type=int, default=32, help="client concurrency (default 32)")
    parser.add_argument(
        "--rounds", type=int, default=1, help="throughput rounds, order alternating AB/BA (default 1)"
    )
    parser.add_argument(
        "--only", default="1,2,3", help="comma-separated sections to run, e.g. --only 3 (default 1,2,3)"
    )
    args = parser.parse_args(argv)
    sections = frozenset(int(x) for x in args.only.split(",") if x.strip())
    if not sections <= {1, 2, 3}:
        parser.error("--only takes section numbers 1, 2 and 3")
    quick, full = (
        Plan(20, 100, 100, 5.0, 2.0, 32, 1, sections),
        Plan(200, 1000, 2000, 15.0, 3.0, 32, 1, sections),
    )
    base = quick if args.quick else full
    return Plan(
        provision=args.provision or base.provision,
        migrate_schemas=args.migrate_schemas or base.migrate_schemas,
        tenants=args.tenants or base.tenants,
        duration=args.duration or base.duration,
        warmup=args.warmup if args.warmup is not None else base.warmup,
        concurrency=args.concurrency,
        rounds=max(1, args.rounds),
        sections=sections,
    )


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    plan = parse_args(argv)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    summary = Summary()
    with ExitStack() as stack, servers(stack) as found:
        configure_env(found)
        import_app_modules()
        prepare_database()
        from sqlalchemy import text

        from cara.kit.db import get_engine

        with get_engine().connect() as conn:
            pg_version = conn.execute(text("SHOW server_version")).scalar()
        print(
            f"host: {os.cpu_count()} CPUs, Python {host.python_version()}, PostgreSQL {pg_version}\n"
            f"database: {make_url(found.db_url).render_as_string(hide_password=True)}\n"
            f"redis: {found.redis_url} (flushed)\n"
            f"plan: {plan}",
            flush=True,
        )
        try:
            with ExitStack() as inner:  # uvicorn stops before the database is dropped
                log_dir = Path(inner.enter_context(tempfile.TemporaryDirectory(prefix="cara-bench-")))
                api = ApiServer(log_dir / "uvicorn.log")
                inner.callback(api.stop)
                api.wait_ready()
                log(f"uvicorn ready on {api.base_url}")
                try:
                    if 1 in plan.sections:
                        bench_provisioning(plan.provision, api, summary)
                    if 2 in plan.sections:
                        bench_migrations(plan.migrate_schemas, summary)
                    if 3 in plan.sections:
                        bench_throughput(
                            plan.tenants,
                            api,
                            summary,
                            duration=plan.duration,
                            warmup=plan.warmup,
                            concurrency=plan.concurrency,
                            rounds=plan.rounds,
                        )
                except BaseException:
                    tail = api.tail()
                    if tail:
                        print(f"--- uvicorn log (warnings/errors, last 20) ---\n{tail}", file=sys.stderr)
                    raise
        finally:
            summary.print()
            from cara.kit.redis import get_redis

            get_redis().flushdb()
    return 0


if __name__ == "__main__":
    sys.exit(main())
