"""Shared infrastructure of the benchmark scripts in ops/bench (not a benchmark itself).

Servers and the throwaway database, the uvicorn child, fast creation of hospitals and doctors,
the asyncio load generator with CPU accounting, latency statistics and the summary table.

Everything that touches `cara`/`tenants` imports it inside the function: the settings must not be
read before `configure_env` has pointed them at the throwaway database.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import platform as host
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
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
HOSPITAL_PASSWORD = "bench-hospital-pass"  # noqa: S105 - throwaway accounts in a throwaway database
DOCTOR_PASSWORD = "bench-doctor-pass"  # noqa: S105 - idem

# Imported up front by `run_bench`; scripts add their own.
BASE_MODULES = (
    "cara.auth.passwords",
    "cara.auth.principal",
    "cara.auth.schemas",
    "cara.auth.service",
    "cara.auth.tokens",
    "cara.registration.schemas",
    "cara.registration.service",
    "cara.kit.db",
    "cara.kit.redis",
    "cara.models",
    "cara.plans.seed",
    "tenants.migrate",
    "tenants.naming",
    "tenants.provisioning",
)


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


def doctor_payload(n: int, tag: str, *, hospital_id: uuid.UUID | None) -> dict[str, Any]:
    """A doctor registration; hospital-created when `hospital_id` is given."""
    from cara.doctors.specialties import SPECIALTIES

    body: dict[str, Any] = {
        "role": "doctor",
        "name": f"Dr Bench {tag}-{n}",
        "email": f"bench-doctor-{tag}-{n}@example.com",
        "password": DOCTOR_PASSWORD,
        "phoneNumber": "0241234567",
        "specialty": SPECIALTIES[n % len(SPECIALTIES)],
        "licenseNumber": f"GMC-{tag}-{n}",
        "experience": n % 30,
        "country": "Ghana",
        "state": "Greater Accra",
        "privacyPolicyAccepted": True,
    }
    if hospital_id is not None:
        body.update(isHospitalCreated=True, hospitalId=str(hospital_id))
    return body


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
    reused: bool = False  # `keep_db` named a database that already existed


def _drop_tenant_roles(db_server_url: str, dbname: str) -> None:
    """Drop the cluster-wide per-tenant roles of `dbname`, where the code base creates them."""
    try:
        roles = importlib.import_module("tenants.roles")
    except ImportError:
        return
    drop_roles: Callable[..., int] | None = getattr(roles, "drop_roles", None)
    if drop_roles is None:
        return
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    engine = create_engine(make_url(db_server_url), poolclass=NullPool)
    try:
        with engine.begin() as conn:
            dropped = drop_roles(conn, dbname)
        if dropped:
            log(f"dropped {dropped} tenant roles of {dbname}")
    finally:
        engine.dispose()


@contextmanager
def servers(stack: ExitStack, keep_db: str | None = None) -> Iterator[Servers]:
    """PostgreSQL and Redis URLs, a fresh `cara_bench_*` database, dropped on the way out.

    `keep_db`: that database instead, created when missing and kept afterwards (with its tenant
    roles), so a benchmark with a long setup can reuse what an earlier run seeded (`reused`)."""
    db_server = os.environ.get("BENCH_DATABASE_URL")
    redis_url = os.environ.get("BENCH_REDIS_URL")
    if not db_server or not redis_url:
        from cara_devstack import embedded  # does not read settings

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
    found.dbname = keep_db or f"cara_bench_{secrets.token_hex(4)}"
    with psycopg.connect(plain_conninfo(db_server), autocommit=True) as conn:
        exists = (
            keep_db is not None
            and conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (keep_db,)).fetchone()
        )
        if not exists:
            conn.execute(f'CREATE DATABASE "{found.dbname}"')
    found.reused = bool(exists)
    found.db_url = make_url(db_server).set(database=found.dbname).render_as_string(hide_password=False)
    log(f"{'reusing' if exists else 'created'} database {found.dbname}")
    try:
        yield found
    finally:
        try:
            from cara.kit.db import reset_engine

            reset_engine()
        except Exception as exc:  # still drop the database
            log(f"warning: could not dispose the engine: {exc}")
        if keep_db is not None:
            log(f"kept database {found.dbname} (drop it when done)")
        else:
            with psycopg.connect(plain_conninfo(db_server), autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{found.dbname}" WITH (FORCE)')
            log(f"dropped database {found.dbname}")
            try:
                _drop_tenant_roles(db_server, found.dbname)
            except Exception as exc:
                log(f"warning: could not drop the tenant roles of {found.dbname}: {exc}")


def configure_env(found: Servers, extra: Mapping[str, str] | None = None) -> None:
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
    os.environ.update(extra or {})


def import_app_modules(extra: Sequence[str] = ()) -> None:
    """Import every `cara`/`tenants` module the benchmark uses, at once.

    The code may be edited while a long run is going on; importing everything up front (as the
    uvicorn child does at the same moment) keeps this process on one consistent snapshot.
    """
    for module in (*BASE_MODULES, *extra):
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


# Never handed to the API child: it does not need them.
_CHILD_ENV_DROP = ("FIRST_ADMIN_EMAIL", "FIRST_ADMIN_PASSWORD")


class ApiServer:
    """`python -m uvicorn cara.main:app --workers 1` on a free port, as a child process."""

    def __init__(self, log_path: Path) -> None:
        from cara_devstack import embedded

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
        env = {k: v for k, v in os.environ.items() if k not in _CHILD_ENV_DROP}
        self.process: subprocess.Popen[bytes] = embedded.spawn(
            argv,
            death_signal=signal.SIGTERM,
            cwd=REPO,
            env=env,
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


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def run_bench(
    plan: object,
    summary: Summary,
    body: Callable[[ApiServer], None],
    *,
    env: Mapping[str, str] | None = None,
    modules: Sequence[str] = (),
    keep_db: str | None = None,
    server: Callable[[Path], ApiServer] | None = None,
) -> int:
    """Servers, throwaway database, environment, one uvicorn worker; then `body(api)`.

    The summary is printed at the end even when `body` fails; uvicorn stops before the database
    is dropped, and the Redis db is flushed.
    """
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    with ExitStack() as stack, servers(stack, keep_db) as found:
        configure_env(found, env)
        import_app_modules(modules)
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
                api = (server or ApiServer)(log_dir / "uvicorn.log")
                inner.callback(api.stop)
                api.wait_ready()
                log(f"uvicorn ready on {api.base_url}")
                try:
                    body(api)
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


# ---------------------------------------------------------------- hospitals and doctors, fast


@dataclass(frozen=True)
class Login:
    """An account created by the benchmark, with a token issued for it."""

    account_id: uuid.UUID
    schema: str
    token: str


def _progress(total: int, what: str, every: int = 500) -> Callable[[], None]:
    lock = threading.Lock()
    done = [0]

    def step() -> None:
        with lock:
            done[0] += 1
            if done[0] % every == 0:
                log(f"  {done[0]}/{total} {what} created")

    return step


def create_hospitals(count: int, *, threads: int = 4) -> list[Login]:
    """`count` hospital tenants, one hospital account each, through cara.registration.service.signup.

    The argon2id hash (about 0.1 s of CPU) is computed once and reused for every account: the
    accounts are only ever used with tokens issued here, and the hash is still a valid one.
    """
    from cara.auth import passwords
    from cara.kit.db import platform_session, tenant_session
    from cara.registration import service
    from cara.registration.schemas import SignupRequest

    tag = secrets.token_hex(3)
    cached = passwords.hash_password(HOSPITAL_PASSWORD)
    step = _progress(count, "hospitals")

    def one(i: int) -> Login:
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
        step()
        return Login(uuid.UUID(user.id), plan.tenant_schema, token)

    with (
        mock.patch.object(passwords, "hash_password", return_value=cached),
        ThreadPoolExecutor(max_workers=threads) as pool,
    ):
        return list(pool.map(one, range(count)))


def create_doctors(owners: Sequence[Login | None], *, threads: int = 4) -> list[Login]:
    """One doctor per entry of `owners`, through cara.registration.service.plan_signup/signup.

    A hospital `Login` owner registers the doctor itself (`isHospitalCreated`, acting as that
    signed-in hospital): the account lands in the hospital's tenant and its profile row in
    `<schema>.doctors`. `None` registers an independent doctor (tenant `independent`). The
    password hash is precomputed once, as in `create_hospitals`. Seeding ignores the plans'
    doctor limits (the benchmarks measure reads; the hospitals have no subscription yet).
    """
    from sqlalchemy import select

    from cara.auth import account_state, passwords, tokens
    from cara.auth.principal import Principal
    from cara.doctors import service as doctors
    from cara.kit.db import platform_session, tenant_session
    from cara.models import Account
    from cara.registration import service
    from cara.registration.schemas import SignupRequest

    hospital_ids = sorted({o.account_id for o in owners if o is not None})
    accounts: dict[uuid.UUID, Account] = {}
    session = platform_session()
    try:
        for start in range(0, len(hospital_ids), 1000):
            chunk = hospital_ids[start : start + 1000]
            accounts.update({a.id: a for a in session.scalars(select(Account).where(Account.id.in_(chunk)))})
    finally:
        session.close()
    acting: dict[uuid.UUID, Principal] = {}
    for owner in owners:
        if owner is None or owner.account_id in acting:
            continue
        claims = tokens.decode(owner.token)
        assert claims is not None, "a token issued by create_hospitals did not decode"
        account = accounts[owner.account_id]
        acting[owner.account_id] = Principal(
            account=account,
            claims=claims,
            state=account_state.state_of(account, owner.schema, "hospital", "active"),
        )

    tag = secrets.token_hex(3)
    cached = passwords.hash_password(DOCTOR_PASSWORD)
    step = _progress(len(owners), "doctors")

    def one(i: int) -> Login:
        owner = owners[i]
        principal = acting[owner.account_id] if owner is not None else None
        req = SignupRequest.model_validate(
            doctor_payload(i, tag, hospital_id=principal.hospital_id if principal else None)
        )
        planning = platform_session()
        try:
            plan = service.plan_signup(planning, req, principal)
        finally:
            planning.close()
        assert plan.tenant_schema is not None
        target = tenant_session(plan.tenant_schema)
        try:
            token, user = service.signup(target, req, plan, principal)
            target.commit()
        finally:
            target.close()
        step()
        return Login(uuid.UUID(user.id), plan.tenant_schema, token)

    with (
        mock.patch.object(passwords, "hash_password", return_value=cached),
        mock.patch.object(doctors, "require_doctor_seat", return_value=None),
        ThreadPoolExecutor(max_workers=threads) as pool,
    ):
        return list(pool.map(one, range(len(owners))))


def ready_to_register_doctors(account: Login) -> None:
    """What a hospital needs before it registers doctors through the API: its email proven (as
    following the emailed link does) and a live subscription with seats (the Gold plan, 50
    doctors, paid this month)."""
    from sqlalchemy import text

    from cara.kit.db import get_engine

    with get_engine().begin() as conn:
        conn.execute(
            text("UPDATE platform.accounts SET email_verified_at = now() WHERE id = :i"),
            {"i": account.account_id},
        )
        conn.execute(
            text(
                "INSERT INTO platform.subscriptions (id, account_id, plan_id, status, billing_cycle,"
                " current_period_start, current_period_end, cancel_at_period_end, last_payment_at,"
                " created_at, updated_at)"
                " SELECT gen_random_uuid(), :i, p.id, 'active', 'monthly', now(), now() + interval '30 days',"
                " false, now(), now(), now() FROM platform.plans p"
                " WHERE p.audience = 'hospital' AND p.max_doctors IS NOT NULL"
                " ORDER BY p.max_doctors DESC LIMIT 1"
            ),
            {"i": account.account_id},
        )


def fill_bare_hospitals(
    schemas: Sequence[str], base_url: str, *, batch: int = 250
) -> tuple[list[Login], list[Login]]:
    """A hospital account and one hospital-created doctor in each of `schemas` (existing hospital
    tenants without accounts, e.g. made by `foundation.provision_schemas_fast`), fast.

    One hospital is signed up for real (`create_hospitals`) and registers one doctor through
    `POST /api/auth/signup` on the running server at `base_url`; their rows that reading them
    needs (`platform.hospitals`, both `platform.accounts` rows, `<schema>.doctors`) are then cloned
    into every schema with `INSERT ... SELECT` from the originals: own tenant id, fresh ids, and
    distinct emails, names, registration and licence numbers; every other column as signup wrote
    it. `batch` hospitals per transaction: thousands a second, where signups (which create the
    schema too) manage a few. Audit rows and outbox jobs of the signups are not cloned. Returns
    (hospitals, doctors) in the order of `schemas`, tokens issued as signup issues them; the
    caller checks a sample through the API (`foundation.check_doctor_tokens`).
    """
    from sqlalchemy import text

    from cara.auth import tokens
    from cara.kit.db import get_engine

    (hospital,) = create_hospitals(1, threads=1)
    ready_to_register_doctors(hospital)
    tag = secrets.token_hex(3)
    response = httpx.post(
        f"{base_url}/api/auth/signup",
        json=doctor_payload(0, tag, hospital_id=None) | {"isHospitalCreated": True},
        headers={"Authorization": f"Bearer {hospital.token}"},
        timeout=30,
    )
    if response.status_code != 201:
        raise RuntimeError(f"registering the template doctor: {response.status_code} {response.text[:300]}")
    engine = get_engine()
    with engine.connect() as conn:
        doctor_id = conn.execute(
            text("SELECT id FROM platform.accounts WHERE email = :e"),
            {"e": f"bench-doctor-{tag}-0@example.com"},
        ).scalar_one()
        hospital_row = conn.execute(
            text("SELECT id, tenant_id FROM platform.accounts WHERE id = :i"), {"i": hospital.account_id}
        ).one()

        def columns(schema: str, table: str) -> list[str]:
            return list(
                conn.execute(
                    text(
                        "SELECT column_name FROM information_schema.columns"
                        " WHERE table_schema = :s AND table_name = :t ORDER BY ordinal_position"
                    ),
                    {"s": schema, "t": table},
                ).scalars()
            )

        hospital_columns = columns("platform", "hospitals")
        account_columns = columns("platform", "accounts")
        doctor_columns = columns(hospital.schema, "doctors")
        tenant_of = dict(
            conn.execute(
                text("SELECT schema_name, id FROM platform.tenants WHERE schema_name = ANY(:s)"),
                {"s": list(schemas)},
            ).all()
        )
    missing = [s for s in schemas if s not in tenant_of]
    if missing:
        raise RuntimeError(f"no tenant row for {missing[:3]}")

    def select_list(cols: list[str], overrides: dict[str, str]) -> str:
        return ", ".join(overrides.get(c, f"o.{c}") for c in cols)

    def clone(table: str, cols: list[str], overrides: dict[str, str], where: str) -> str:
        return (
            f"INSERT INTO {table} ({', '.join(cols)}) SELECT {select_list(cols, overrides)}"
            f" FROM {table} o, v WHERE {where}"
        )

    suffix = "'-f' || v.n"
    email = "replace(o.email, '@', " + suffix + " || '@')"
    values_cte = "WITH v(n, tid, hid, haid, daid) AS (VALUES {rows})"
    platform_rows = (
        values_cte
        + ", h AS ("
        + clone(
            "platform.hospitals",
            hospital_columns,
            {
                "id": "v.hid",
                "tenant_id": "v.tid",
                "email": email,
                "name": "o.name || " + suffix,
                "registration_number": "o.registration_number || " + suffix,
            },
            f"o.tenant_id = '{hospital_row.tenant_id}'",
        )
        + ") "
        + clone(
            "platform.accounts",
            account_columns,
            {
                "id": "CASE WHEN o.role = 'hospital' THEN v.haid ELSE v.daid END",
                "tenant_id": "v.tid",
                "hospital_id": "CASE WHEN o.hospital_id IS NULL THEN NULL ELSE v.hid END",
                "email": email,
                "name": "o.name || " + suffix,
            },
            f"o.id IN ('{hospital_row.id}', '{doctor_id}')",
        )
    )

    hospitals: list[Login] = []
    doctors: list[Login] = []
    step = _progress(len(schemas), "hospitals (cloned)", every=2000)
    for first in range(0, len(schemas), batch):
        chunk = list(schemas[first : first + batch])
        ids = [(first + i, uuid.uuid4(), uuid.uuid4(), uuid.uuid4()) for i in range(len(chunk))]
        rows = ", ".join(
            f"({n}, '{tenant_of[s]}'::uuid, '{hid}'::uuid, '{haid}'::uuid, '{daid}'::uuid)"
            for s, (n, hid, haid, daid) in zip(chunk, ids, strict=True)
        )
        script = [platform_rows.format(rows=rows)]
        for s, (n, _hid, _haid, daid) in zip(chunk, ids, strict=True):
            naming_ok = s.startswith("hospital_") and s.replace("_", "").isalnum()
            if not naming_ok:
                raise ValueError(f"not a hospital schema: {s}")
            script.append(
                f"WITH v(n, daid) AS (VALUES ({n}, '{daid}'::uuid)) "
                + clone(
                    f'"{s}".doctors',
                    doctor_columns,
                    {
                        "id": "gen_random_uuid()",
                        "account_id": "v.daid",
                        "license_number": "o.license_number || " + suffix,
                    },
                    "true",
                ).replace(f'"{s}".doctors o', f'"{hospital.schema}".doctors o')
            )
        with engine.begin() as conn:
            conn.exec_driver_sql(";\n".join(script))
        for s, (_n, _hid, haid, daid) in zip(chunk, ids, strict=True):
            hospitals.append(Login(haid, s, tokens.issue(account_id=haid, role="hospital", tenant_schema=s)))
            doctors.append(Login(daid, s, tokens.issue(account_id=daid, role="doctor", tenant_schema=s)))
            step()
    return hospitals, doctors


def clone_doctors(doctor: Login, count: int, *, batch: int = 1000) -> list[Login]:
    """`count` more doctors in `doctor`'s hospital, cloned from its rows (`platform.accounts`,
    `<schema>.doctors`) with fresh ids, emails and licence numbers, as `fill_bare_hospitals`
    clones a whole hospital: a single tenant with as many doctors as a benchmark has tenants."""
    from sqlalchemy import text

    from cara.auth import tokens
    from cara.kit.db import get_engine

    schema = doctor.schema
    if not (schema.startswith("hospital_") and schema.replace("_", "").isalnum()):
        raise ValueError(f"not a hospital schema: {schema}")
    engine = get_engine()
    with engine.connect() as conn:

        def columns(table_schema: str, table: str) -> list[str]:
            return list(
                conn.execute(
                    text(
                        "SELECT column_name FROM information_schema.columns"
                        " WHERE table_schema = :s AND table_name = :t ORDER BY ordinal_position"
                    ),
                    {"s": table_schema, "t": table},
                ).scalars()
            )

        account_columns = columns("platform", "accounts")
        doctor_columns = columns(schema, "doctors")
    tag = secrets.token_hex(3)
    suffix = f"'-c{tag}-' || v.n"
    account_select = ", ".join(
        {"id": "v.id", "email": f"replace(o.email, '@', {suffix} || '@')", "name": f"o.name || {suffix}"}.get(
            c, f"o.{c}"
        )
        for c in account_columns
    )
    doctor_select = ", ".join(
        {
            "id": "gen_random_uuid()",
            "account_id": "v.id",
            "license_number": f"o.license_number || {suffix}",
        }.get(c, f"o.{c}")
        for c in doctor_columns
    )
    made: list[uuid.UUID] = []
    for first in range(0, count, batch):
        ids = [uuid.uuid4() for _ in range(min(batch, count - first))]
        values = ", ".join(f"({first + i}, '{new}'::uuid)" for i, new in enumerate(ids))
        with engine.begin() as conn:
            conn.exec_driver_sql(
                f"INSERT INTO platform.accounts ({', '.join(account_columns)})"
                f" SELECT {account_select} FROM platform.accounts o, (VALUES {values}) v(n, id)"
                f" WHERE o.id = '{doctor.account_id}'"
            )
            conn.exec_driver_sql(
                f'INSERT INTO "{schema}".doctors ({", ".join(doctor_columns)})'
                f' SELECT {doctor_select} FROM "{schema}".doctors o, (VALUES {values}) v(n, id)'
                f" WHERE o.account_id = '{doctor.account_id}'"
            )
        made += ids
    return [Login(i, schema, tokens.issue(account_id=i, role="doctor", tenant_schema=schema)) for i in made]


# ---------------------------------------------------------------- load generation


def process_cpu_seconds(pid: int) -> float:
    """utime + stime of `pid` from /proc (Linux); 0.0 where unavailable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def tree_cpu_seconds(pid: int) -> float:
    """utime + stime of `pid` and of every live process under it (a uvicorn supervisor and its
    worker processes): the CPU of a server however many processes it runs."""
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        total += process_cpu_seconds(current)
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            pass
    return total


def machine_busy_seconds() -> float:
    """CPU seconds spent non-idle by the whole machine, all cores (Linux /proc/stat); 0.0 elsewhere."""
    try:
        first = Path("/proc/stat").read_text().splitlines()[0].split()
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in first[1:9])
        return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def database_backend_cpu() -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend connected to the bench database (Linux /proc,
    server on this machine); empty where that cannot be read.

    The backend answering this query is included: it is one of this process's pooled connections,
    and leaving it out would make a later call count its whole lifetime as new.
    """
    from sqlalchemy import text

    from cara.kit.db import get_engine

    try:
        with get_engine().connect() as conn:
            pids = conn.execute(
                text("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
            ).scalars()
            return {int(pid): process_cpu_seconds(int(pid)) for pid in pids}
    except Exception:
        return {}


@dataclass
class LoadResult:
    seconds: float = 0.0  # measured window
    latencies: list[float] = field(default_factory=list)
    errors: dict[int, int] = field(default_factory=dict)
    issued: int = 0  # every request sent, warm-up included
    wall: float = 0.0  # whole run, warm-up included
    server_cpu: float = 0.0  # uvicorn CPU seconds over the whole run, warm-up included
    client_cpu: float = 0.0  # this process (the load generator), same span
    database_cpu: float = 0.0  # PostgreSQL backends of the bench database, same span
    machine_cpu: float = 0.0  # every process on the machine, same span
    touched: set[str] = field(default_factory=set)  # labels of the tokens used in the measured window

    @property
    def requests(self) -> int:
        return len(self.latencies)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else float("nan")

    @property
    def latency(self) -> LatencyStats:
        return LatencyStats.of(self.latencies)

    def cores(self, cpu_seconds: float) -> float:
        """Average number of cores busy over the run."""
        return cpu_seconds / self.wall if self.wall else float("nan")

    @property
    def other_cpu(self) -> float:
        """Redis, and everything else on the machine (other users' work included)."""
        return max(0.0, self.machine_cpu - self.server_cpu - self.client_cpu - self.database_cpu)

    def merge(self, other: LoadResult) -> None:
        self.seconds += other.seconds
        self.latencies += other.latencies
        for status, n in other.errors.items():
            self.errors[status] = self.errors.get(status, 0) + n
        self.issued += other.issued
        self.wall += other.wall
        self.server_cpu += other.server_cpu
        self.client_cpu += other.client_cpu
        self.database_cpu += other.database_cpu
        self.machine_cpu += other.machine_cpu
        self.touched |= other.touched

    def line(self) -> str:
        lat = self.latency
        return (
            f"{self.rps:.0f} req/s  p50={lat.p50_ms:.1f} ms  p95={lat.p95_ms:.1f} ms  "
            f"p99={lat.p99_ms:.1f} ms  requests={self.requests}  errors={self.errors or 0}"
        )

    def cpu_line(self) -> str:
        if not self.issued:
            return "cpu: no requests"
        per = (
            f"server {self.server_cpu / self.issued * 1000:.2f} ms, "
            f"PostgreSQL {self.database_cpu / self.issued * 1000:.2f} ms, "
            f"client {self.client_cpu / self.issued * 1000:.2f} ms"
        )
        busy = (
            f"server {self.cores(self.server_cpu):.2f}, PostgreSQL {self.cores(self.database_cpu):.2f}, "
            f"client {self.cores(self.client_cpu):.2f}, rest of machine {self.cores(self.other_cpu):.2f} "
            f"(of {os.cpu_count()})"
        )
        return f"cpu/request: {per} | cores busy: {busy}"


async def _hammer(
    base_url: str,
    path: str,
    tokens: Sequence[str],
    *,
    params: Mapping[str, str] | None,
    labels: Sequence[str] | None,
    duration: float,
    warmup: float,
    concurrency: int,
    rate: float | None,
    seed: int,
) -> LoadResult:
    # Tokens in a random order, cycled: every token is used once before any is used again, so a
    # run touches as many distinct accounts (and tenants) as it has requests, up to all of them.
    order = list(range(len(tokens)))
    random.Random(seed).shuffle(order)
    headers = [{"Authorization": f"Bearer {t}"} for t in tokens]
    result = LoadResult(seconds=duration)
    used: set[int] = set()
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=30) as client:
        begin = time.perf_counter()
        measure_from = begin + warmup
        end = measure_from + duration

        async def fire(started: float) -> None:
            """One request; its latency counts from `started` (for open loop: when it was due)."""
            pick = order[result.issued % len(order)]
            result.issued += 1
            try:
                response = await client.get(path, params=params, headers=headers[pick])
                status = response.status_code
            except httpx.HTTPError:
                status = -1
            if started < measure_from:
                return
            result.latencies.append(time.perf_counter() - started)
            used.add(pick)
            if status != 200:
                result.errors[status] = result.errors.get(status, 0) + 1

        async def worker() -> None:
            while (started := time.perf_counter()) < end:
                await fire(started)

        if rate is None:
            await asyncio.gather(*(worker() for _ in range(concurrency)))
        else:
            # Open loop: one request every 1/rate s whatever the answers do, at most `concurrency`
            # connections (requests beyond wait for one, and that wait counts in their latency).
            tasks: list[asyncio.Task[None]] = []
            n = 0
            while (due := begin + n / rate) < end:
                delay = due - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                tasks.append(asyncio.create_task(fire(due)))
                n += 1
            await asyncio.gather(*tasks)
    if labels is not None:
        result.touched = {labels[i] for i in used}
    return result


def hammer(
    api: ApiServer,
    path: str,
    tokens: Sequence[str],
    *,
    params: Mapping[str, str] | None = None,
    labels: Sequence[str] | None = None,
    duration: float,
    warmup: float,
    concurrency: int,
    rate: float | None = None,
    seed: int = 0,
) -> LoadResult:
    """GET `path` from `concurrency` asyncio workers for `warmup` + `duration` seconds (closed loop),
    the tokens taken in a shuffled order (by `seed`) and cycled; latencies of the last `duration`
    seconds only. `labels[i]` (e.g. the tenant schema of `tokens[i]`) are collected in `touched`.

    With `rate`, open loop instead: a request every 1/rate s on at most `concurrency`
    connections, latency counted from when each request was due (no coordinated omission)."""
    started = time.perf_counter()
    server_before, client_before = process_cpu_seconds(api.process.pid), time.process_time()
    machine_before = machine_busy_seconds()
    database_before = database_backend_cpu()
    result = asyncio.run(
        _hammer(
            api.base_url,
            path,
            tokens,
            params=params,
            labels=labels,
            duration=duration,
            warmup=warmup,
            concurrency=concurrency,
            rate=rate,
            seed=seed,
        )
    )
    result.server_cpu = process_cpu_seconds(api.process.pid) - server_before
    result.client_cpu = time.process_time() - client_before
    result.machine_cpu = machine_busy_seconds() - machine_before
    result.database_cpu = sum(
        cpu - database_before.get(pid, 0.0) for pid, cpu in database_backend_cpu().items()
    )
    result.wall = time.perf_counter() - started
    return result
