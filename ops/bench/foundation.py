"""Foundation benchmarks: tenant provisioning, tenant migrations, multi-tenant auth throughput.

    .venv/bin/python ops/bench/foundation.py [--tenants 2000] [--migrate-schemas 1000] [--quick]
    .venv/bin/python ops/bench/foundation.py --database cara_mixed_10000   (section 2 on a kept database)

Prints figures only; targets are printed next to them, nothing is asserted.

1. Hospital provisioning: `tenants.provisioning.provision_hospital_tenant` alone (session + commit)
   and the full `POST /api/auth/signup` (role=hospital) through a real uvicorn server.
2. `tenants.migrate.upgrade_tenant_schemas` over N tenant schemas through a no-op revision added
   to a temporary copy of the tenant Alembic tree, with 4 and 8 jobs.
3. `GET /api/auth/user` as hospital-created doctors, whose answer needs their profile row from
   their own tenant schema (`<schema>.doctors`): tokens of one doctor in each of T hospital
   tenants (A) versus tokens of 50 doctors of one single tenant (B); one uvicorn worker, asyncio
   httpx client, rounds alternating AB, BA.

Servers: BENCH_DATABASE_URL (a server URL; any database on it, e.g. .../postgres) and
BENCH_REDIS_URL (use a spare db index, e.g. redis://127.0.0.1:6379/13: it is flushed). Without
them, embedded PostgreSQL/Redis are started under .data/bench-*. A fresh database
`cara_bench_<random>` is created next to the given one and dropped at the end, even on error.
Shared infrastructure (servers, uvicorn, account creation, load generator): `_common.py`.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psycopg
from _common import (
    HOSPITAL_PASSWORD,
    ApiServer,
    LatencyStats,
    LoadResult,
    Login,
    Servers,
    Summary,
    clone_doctors,
    configure_env,
    create_doctors,
    create_hospitals,
    doctor_payload,
    fill_bare_hospitals,
    hammer,
    hospital_payload,
    import_app_modules,
    machine_busy_seconds,
    percentile,
    prepare_database,
    process_cpu_seconds,
    ready_to_register_doctors,
    run_bench,
)

from cara_devstack.signup_link import sign_up

PROVISION_TARGET_MS = 150.0
MIGRATE_TARGET_S = 60.0
RATIO_TARGET = 0.9
MIGRATE_JOBS = (4, 8)


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
            # The form (202), then its mailed link, where the schema is made (201).
            response = sign_up(client, body)
            elapsed = time.perf_counter() - started
            if response.status_code != 201:
                failures[response.status_code] = failures.get(response.status_code, 0) + 1
                if len(failures) == 1 and sum(failures.values()) == 1:
                    print(f"    first failure: {response.status_code} {response.text[:300]}")
            elif i >= warmup:
                timings.append(elapsed)
    http = LatencyStats.of(timings)
    print(f"(b) hospital sign-up (form + link)      {http.line()}   failures={failures or 0}")

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


def provision_schemas_fast(
    count: int,
    *,
    batch: int = 5,
    threads: int = 6,
    fk_batch: int = 25,
    log_every: float = 30.0,
    platform_keys: bool = True,
) -> list[str]:
    """`count` hospital tenant rows + schemas, as `tenants.provisioning.create_tenant_schema` makes
    them, many per transaction and on several connections.

    The first schema is created by `create_tenant_schema` itself while its statements are recorded
    (tables, indexes, audit guard, Alembic stamp, tenant role and grants); every other one replays
    that script with its own schema and role names, `batch` schemas per round trip and
    transaction, on `threads` connections at once: the DDL mostly waits on the disk (PostgreSQL
    15 syncs every new btree and GIN index file to disk as its build ends, ~25 a schema), so
    several connections overlap those waits; 5 schemas a transaction keep each one's locks
    (~60 a schema) well inside the server's shared lock table. A batch whose connection fails
    (e.g. the shared server's `max_connections` reached by other work) is retried, with new
    names, after a pause. Two of the recorded statements grow with the
    number of hospitals and are replayed in a form with the same outcome:

    - `GRANT ... ON ALL TABLES / SEQUENCES IN SCHEMA s` reads the whole of `pg_class` (there is no
      index on a relation's schema alone): 570,000 rows at 10,000 hospitals, twice per schema.
      The copies grant on the original's tables and sequences by name instead.
    - A foreign key into `platform` (a tenant table's `account_id` -> `platform.accounts`) adds two
      triggers to the referenced table; creating one rebuilds that table's relation-cache entry,
      which reads every trigger it has (8 more per hospital: 80,000 at 10,000), and its lock
      (SHARE ROW EXCLUSIVE on `platform.accounts`) lets one such transaction run at a time. The
      copies are created without those constraints and one more connection adds them
      (`ALTER TABLE ... ADD CONSTRAINT`, the original's definition), `fk_batch` schemas per
      transaction, while the other connections go on. That connection is the floor of the whole
      seeding: its cost per hospital grows with the number of hospitals (printed as it goes):
      ~4 ms a schema at 300, ~250 ms at 2,000 on this machine, so ~100 minutes for 10,000.
      `platform_keys=False` leaves them out of the copies (the first schema keeps its own): a
      catalog without 8 triggers per hospital on `platform.accounts` (printed; the check then
      ignores exactly those constraints and their triggers).

    A sample of the copies is compared with the original, catalog entry by catalog entry
    (`check_copies`).
    """
    import queue
    import re
    import threading

    from sqlalchemy import event, text
    from sqlalchemy.exc import OperationalError

    from cara.kit.db import get_engine, platform_session
    from cara.models import Tenant
    from tenants import naming
    from tenants.provisioning import create_tenant_schema
    from tenants.roles import role_for

    if count <= 0:
        return []
    first = naming.new_hospital_schema()
    recorded: list[str] = []
    session = platform_session()
    try:
        session.add(Tenant(schema_name=first, kind="hospital", status="active"))
        session.flush()
        connection = session.connection()
        database = str(connection.execute(text("SELECT current_database()")).scalar_one())
        raw = connection.connection.dbapi_connection
        assert raw is not None
        import psycopg

        literal = psycopg.ClientCursor(raw)  # type: ignore[arg-type,call-overload]

        def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
            if statement.lstrip().upper().startswith("SELECT"):
                return  # lookups (current database, Citus, existing version rows) change nothing
            rendered = literal.mogrify(statement, parameters or None)
            recorded.append(rendered.decode() if isinstance(rendered, bytes) else rendered)

        event.listen(connection, "before_cursor_execute", record)
        try:
            create_tenant_schema(connection, first)
        finally:
            event.remove(connection, "before_cursor_execute", record)
        session.commit()
    finally:
        session.close()
    role = role_for(database, first)
    with get_engine().connect() as conn:
        relations = conn.execute(
            text(
                "SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = :s ORDER BY c.relname"
            ),
            {"s": first},
        ).all()
        outside = conn.execute(
            text(
                "SELECT c.relname, k.conname, pg_get_constraintdef(k.oid) FROM pg_constraint k"
                " JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class f ON f.oid = k.confrelid"
                " WHERE k.contype = 'f' AND k.connamespace = :s ::regnamespace"
                " AND f.relnamespace <> k.connamespace ORDER BY k.conname"
            ),
            {"s": first},
        ).all()
    template = ";\n".join(recorded) + ";\n"

    def once(pattern: str, replacement: str, script: str, *, optional: bool = False) -> str:
        changed, n = re.subn(pattern, lambda _m: replacement, script)
        if n != 1 and not (optional and n == 0):
            raise RuntimeError(f"the recorded schema script has {n} matches of {pattern!r}, expected 1")
        return changed

    quoted = re.escape(f'"{first}"')
    tables = [f'"{first}"."{name}"' for name, kind in relations if kind in ("r", "p", "v", "m", "f")]
    sequences = [f'"{first}"."{name}"' for name, kind in relations if kind == "S"]
    # Only where the recording has the schema-wide form (tenants.roles grants by name, except on Citus).
    template = once(
        f"ON ALL TABLES IN SCHEMA {quoted}", "ON TABLE " + ", ".join(tables), template, optional=True
    )
    if sequences:
        granted = "ON SEQUENCE " + ", ".join(sequences)
        template = once(f"ON ALL SEQUENCES IN SCHEMA {quoted}", granted, template, optional=True)
    for _table, name, _definition in outside:
        clause = (
            rf",\s*CONSTRAINT {re.escape(name)} FOREIGN KEY\s*\([^)]*\)"
            r"\s*REFERENCES\s+[^\s(]+\s*\([^)]*\)[^,\n]*"
        )
        template = once(clause, "", template)
    foreign = "".join(
        f'ALTER TABLE "{first}"."{table}" ADD CONSTRAINT "{name}" {definition};\n'
        for table, name, definition in outside
    )

    def named(script: str, name: str) -> str:
        return script.replace(role, role_for(database, name)).replace(first, name)

    made: queue.Queue[list[str] | None] = queue.Queue()
    failures: list[BaseException] = []
    started = time.perf_counter()
    progress = {"schemas": 1, "keys": 1, "key_seconds": 0.0, "at": started}

    def report(force: bool = False) -> None:
        now = time.perf_counter()
        if force or now - progress["at"] >= log_every:
            progress["at"] = now
            print(
                f"    seeding: {progress['schemas']:.0f} of {count} schemas made,"
                f" {progress['keys']:.0f} with their keys into platform"
                f" ({now - started:.0f} s)",
                flush=True,
            )

    def one_batch(size: int) -> list[str]:
        for attempt in range(1, 6):
            names = [naming.new_hospital_schema() for _ in range(size)]
            script = "".join(named(template, name) for name in names)
            session = platform_session()
            try:
                session.add_all([Tenant(schema_name=n, kind="hospital", status="active") for n in names])
                session.flush()
                session.connection().exec_driver_sql(script)
                session.commit()
                break
            except OperationalError as exc:
                if attempt == 5:
                    raise
                print(
                    f"    a batch failed ({str(exc.orig).strip()[:80]}), again in {2 * attempt} s", flush=True
                )
                time.sleep(2 * attempt)
            finally:
                session.close()
        made.put(names)
        progress["schemas"] += size
        report()
        return names

    def add_keys() -> None:
        """The foreign keys into `platform`, one transaction at a time (their lock allows no more)."""
        pending: list[str] = []
        done = False
        while not done or pending:
            if not done:
                names = made.get()
                if names is None:
                    done = True
                else:
                    pending += names
            if pending and (done or len(pending) >= fk_batch):
                chunk, pending[:] = pending[:fk_batch], pending[fk_batch:]
                took = time.perf_counter()
                for attempt in range(1, 6):
                    try:
                        with get_engine().begin() as conn:
                            conn.exec_driver_sql("".join(named(foreign, name) for name in chunk))
                        break
                    except OperationalError:
                        if attempt < 5:
                            time.sleep(2 * attempt)
                            continue
                        failures.append(sys.exc_info()[1] or RuntimeError("adding keys failed"))
                        return
                    except BaseException as exc:
                        failures.append(exc)
                        return
                progress["keys"] += len(chunk)
                progress["key_seconds"] += time.perf_counter() - took

    sizes = [min(batch, count - 1 - start) for start in range(0, count - 1, batch)]
    if not platform_keys:
        print(
            f"    the copies are made WITHOUT their {len(outside)} foreign keys into platform"
            f" ({', '.join(name for _t, name, _d in outside)})",
            flush=True,
        )
        foreign = ""
    keys = threading.Thread(target=add_keys, name="seed-foreign-keys") if foreign else None
    if keys:
        keys.start()
    try:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            copies = [name for names in pool.map(one_batch, sizes) for name in names]
    finally:
        made.put(None)
        if keys:
            keys.join()
    if failures:
        raise RuntimeError(f"adding the foreign keys into platform failed: {failures[0]}") from failures[0]
    report(force=True)
    if foreign:
        print(
            f"    of which adding the {len(outside)} foreign keys into platform per schema:"
            f" {progress['key_seconds']:.0f} s on one connection",
            flush=True,
        )
    sample = [*random.Random(0).sample(copies, min(5, len(copies))), *copies[-1:]]
    check_copies(first, sample, database, ignore=() if platform_keys else [name for _t, name, _d in outside])
    return [first, *copies]


def schema_fingerprint(conn: Any, schema: str, role: str) -> list[str]:
    """What `create_tenant_schema` and `tenants.roles` leave in the catalog for `schema`, with the
    schema's and role's names replaced by placeholders: columns (type, nullability, default),
    constraints (definitions, foreign keys included), indexes, triggers (the audit guard and the
    foreign keys' own, here and on the referenced platform tables), functions, every grant on the
    schema and its relations, default privileges, the role's attributes and memberships, toast
    tables, the Alembic version."""
    from sqlalchemy import text

    rows = conn.execute(
        text(
            """
            WITH n AS (SELECT oid FROM pg_namespace WHERE nspname = :s),
                 rel AS (SELECT c.* FROM pg_class c, n WHERE c.relnamespace = n.oid)
            SELECT 'schema acl ' || coalesce((SELECT nspacl::text FROM pg_namespace WHERE nspname = :s), '')
            UNION ALL SELECT format('relation %s kind %s toast %s acl %s', relname, relkind,
                              reltoastrelid <> 0, relacl) FROM rel
            UNION ALL SELECT format('column %s.%s %s notnull %s default %s', c.relname, a.attname,
                              format_type(a.atttypid, a.atttypmod), a.attnotnull,
                              pg_get_expr(d.adbin, d.adrelid))
                FROM rel c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
            UNION ALL SELECT format('constraint %s %s %s', c.relname, k.conname, pg_get_constraintdef(k.oid))
                FROM pg_constraint k JOIN rel c ON c.oid = k.conrelid
            UNION ALL SELECT 'index ' || pg_get_indexdef(i.indexrelid)
                FROM pg_index i JOIN rel c ON c.oid = i.indrelid
            UNION ALL SELECT format('trigger on %s: %s', t.tgrelid::regclass,
                              CASE WHEN t.tgisinternal
                                   THEN format('%s %s %s', k.conname, t.tgfoid::regproc, t.tgtype)
                                   ELSE pg_get_triggerdef(t.oid) END)
                FROM pg_trigger t LEFT JOIN pg_constraint k ON k.oid = t.tgconstraint
                WHERE t.tgrelid IN (SELECT oid FROM rel) OR t.tgconstrrelid IN (SELECT oid FROM rel)
            UNION ALL SELECT 'function ' || pg_get_functiondef(p.oid)
                FROM pg_proc p, n WHERE p.pronamespace = n.oid
            UNION ALL SELECT format('default acl %s %s', d.defaclobjtype, d.defaclacl)
                FROM pg_default_acl d, n WHERE d.defaclnamespace = n.oid
            UNION ALL SELECT format('role login %s inherit %s member of current user %s', r.rolcanlogin,
                              r.rolinherit, pg_has_role(current_user, r.oid, 'MEMBER'))
                FROM pg_roles r WHERE r.rolname = :r
            UNION ALL SELECT 'role member of ' || b.rolname FROM pg_auth_members m
                JOIN pg_roles r ON r.oid = m.member JOIN pg_roles b ON b.oid = m.roleid WHERE r.rolname = :r
            """
        ),
        {"s": schema, "r": role},
    ).scalars()
    version = conn.execute(text(f'SELECT array_agg(version_num) FROM "{schema}".alembic_version')).scalar()
    found = [*rows, f"alembic version {version}"]
    return sorted(line.replace(role, "<role>").replace(schema, "<schema>") for line in found)


def check_copies(original: str, copies: Sequence[str], database: str, ignore: Sequence[str] = ()) -> None:
    """The replayed schemas have what the original has (`schema_fingerprint`: every table, column,
    constraint, index, trigger, function, grant, default privilege, role membership, version),
    but for the entries naming a constraint of `ignore` (left out on purpose)."""
    from cara.kit.db import get_engine
    from tenants.roles import role_for

    def kept(lines: list[str]) -> list[str]:
        return [line for line in lines if not any(f" {name} " in f" {line} " for name in ignore)]

    with get_engine().connect() as conn:
        expected = kept(schema_fingerprint(conn, original, role_for(database, original)))
        for schema in copies:
            got = kept(schema_fingerprint(conn, schema, role_for(database, schema)))
            if got != expected:
                missing = sorted(set(expected) - set(got))[:5]
                extra = sorted(set(got) - set(expected))[:5]
                raise RuntimeError(
                    f"replayed schema {schema} differs from {original}: missing {missing}, unexpected {extra}"
                )
    print(
        f"    checked {len(copies)} copies against the original:"
        f" {len(expected)} catalog entries each, all equal",
        flush=True,
    )


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
            conn.commit()  # a lock per table read: 10,000 in one transaction exhaust the lock table
    return found


def reset_versions(schemas: Sequence[str], revision: str) -> None:
    from cara.kit.db import get_engine

    # 500 schemas a transaction: one transaction over 10,000 took two locks per schema and ran
    # the server out of shared lock table ("out of shared memory").
    if not revision.replace("_", "").isalnum():
        raise ValueError(f"unexpected revision id {revision!r}")
    for start in range(0, len(schemas), 500):
        with get_engine().begin() as conn:
            conn.exec_driver_sql(
                "".join(
                    f"UPDATE \"{schema}\".alembic_version SET version_num = '{revision}';"
                    for schema in schemas[start : start + 500]
                )
            )


def bench_migrations(count: int, summary: Summary, existing: Sequence[str] | None = None) -> None:
    from cara.kit.db import get_engine
    from tenants import migrate

    if existing is not None:
        schemas = list(existing)
        print(
            f"\n== 2) migrating the {len(schemas)} hospital schemas of the database through a no-op revision"
        )
    else:
        print(f"\n== 2) migrating {count} tenant schemas through a no-op revision", flush=True)
        started = time.perf_counter()
        schemas = provision_schemas_fast(count)
        setup = time.perf_counter() - started
        print(
            f"setup: provisioned {len(schemas)} tenant schemas in {setup:.1f} s"
            f" ({len(schemas) / setup:.0f}/s)"
        )

    with tempfile.TemporaryDirectory(prefix="cara-bench-alembic-") as tmp:
        tree, head, revision = write_noop_tree(Path(tmp))
        print(f"no-op revision {revision} (down_revision {head}) in a temporary copy of the tenant tree")
        for jobs in MIGRATE_JOBS:
            reset_versions(schemas, head)
            started = time.perf_counter()
            machine_before = machine_busy_seconds()
            results = migrate.upgrade_tenant_schemas(get_engine(), schemas, jobs=jobs, scripts=tree)
            total = time.perf_counter() - started
            machine_cpu = machine_busy_seconds() - machine_before
            bad = migrate.failed(results)
            versions = schema_versions(schemas)
            wrong = sorted(s for s in schemas if versions.get(s) != revision)
            per_schema = LatencyStats.of([r.seconds for r in results])
            print(
                f"jobs={jobs}: {total:.2f} s total, {len(schemas) / total:.0f} schemas/s, "
                f"failures={len(bad)}, not at {revision}: {len(wrong)}  "
                f"| per schema p50={per_schema.p50_ms:.1f} ms p99={per_schema.p99_ms:.1f} ms"
            )
            print(
                f"    the whole machine was {machine_cpu / total:.2f} of {os.cpu_count()} cores busy"
                " meanwhile (this run, PostgreSQL and other users)"
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
        reset_versions(schemas, head)  # a kept database stays at the real tree's head
    print(f"    target: < {MIGRATE_TARGET_S:.0f} s, 0 failures")


# ---------------------------------------------------------------- 3) GET /api/auth/user across tenants


def check_doctor_tokens(api: ApiServer, pools: dict[str, list[Login]], per_pool: int = 10) -> int:
    """A few tokens of each pool: 200, a hospital-created doctor, the profile read from its tenant.

    `licenseNumber` exists only in `<schema>.doctors`, so a correct answer proves the request
    read the doctor's own tenant schema. Returns the number of bad answers (printed).
    """
    bad = 0
    rng = random.Random(1)
    with httpx.Client(base_url=api.base_url, timeout=10) as client:
        for label, pool in pools.items():
            for login in rng.sample(pool, min(per_pool, len(pool))):
                response = client.get("/api/auth/user", headers={"Authorization": f"Bearer {login.token}"})
                body = response.json() if response.status_code == 200 else {}
                if (
                    response.status_code != 200
                    or body.get("_id") != str(login.account_id)
                    or body.get("role") != "doctor"
                    or body.get("isHospitalCreated") is not True
                    or not body.get("licenseNumber")
                    or not body.get("hospitalId")
                ):
                    bad += 1
                    print(f"    sanity check failed ({label}): {response.status_code} {response.text[:300]}")
    return bad


def profiles_in(schema: str) -> int:
    from sqlalchemy import text

    from cara.kit.db import get_engine

    with get_engine().connect() as conn:
        return int(conn.execute(text(f'SELECT count(*) FROM "{schema}".doctors')).scalar_one())


def bench_throughput(
    tenants: int,
    api: ApiServer,
    summary: Summary,
    *,
    single_tenant_doctors: int,
    duration: float,
    warmup: float,
    concurrency: int,
    rounds: int,
    existing: bool = False,
) -> None:
    print(
        f"\n== 3) GET /api/auth/user as hospital-created doctors: {tenants} tenants vs 1 tenant", flush=True
    )
    if existing:
        doctors, single = doctors_of_existing_tenants(api, tenants, single_tenant_doctors)
        tenants = len(doctors)
        pools = {"A": doctors, "B": single}
    else:
        started = time.perf_counter()
        hospitals = create_hospitals(tenants)
        setup = time.perf_counter() - started
        print(
            f"setup: {len(hospitals)} hospital tenants + accounts in {setup:.1f} s "
            f"({len(hospitals) / setup:.0f}/s)"
        )
        # One doctor in every hospital, then more in the first one until it has `single_tenant_doctors`.
        owners = [*hospitals, *[hospitals[0]] * max(0, single_tenant_doctors - 1)]
        started = time.perf_counter()
        doctors = create_doctors(owners)
        setup = time.perf_counter() - started
        print(
            f"setup: {len(doctors)} hospital-created doctors (one per tenant, {single_tenant_doctors} in "
            f"{hospitals[0].schema}) in {setup:.1f} s ({len(doctors) / setup:.0f}/s)"
        )
        pools = {"A": doctors[:tenants], "B": [doctors[0], *doctors[tenants:]]}
        if len(pools["B"]) < tenants:  # as many doctors as A: A and B differ in tenants only
            pools["B"] += clone_doctors(pools["B"][-1], tenants - len(pools["B"]))
    one = pools["B"][0].schema
    names = {
        "A": f"{tenants} tenants, {len(pools['A'])} doctors",
        "B": f"1 tenant, {len(pools['B'])} doctors",
    }
    distinct = {label: len({d.schema for d in pool}) for label, pool in pools.items()}
    print(
        f"token pools: A = {len(pools['A'])} doctors in {distinct['A']} schemas, "
        f"B = {len(pools['B'])} doctors in {distinct['B']} schema "
        f"({profiles_in(one)} profile rows in {one}.doctors)"
    )
    bad = check_doctor_tokens(api, pools)
    print(
        f"sanity: {'all' if not bad else f'{bad} NOT'} sampled doctor tokens answered with "
        "their own tenant profile"
    )

    print(
        f"uvicorn --workers 1, asyncio httpx concurrency {concurrency}, "
        f"{warmup:.0f} s warm-up + {duration:.0f} s per scenario"
        + (f" and round, {rounds} rounds (order alternates AB, BA, ...)" if rounds > 1 else "")
    )
    results = {"A": LoadResult(), "B": LoadResult()}
    for r in range(rounds):
        for label in ("A", "B") if r % 2 == 0 else ("B", "A"):
            pool = pools[label]
            result = hammer(
                api,
                "/api/auth/user",
                [d.token for d in pool],
                labels=[d.schema for d in pool],
                duration=duration,
                warmup=warmup,
                concurrency=concurrency,
                seed=r,
            )
            results[label].merge(result)
            prefix = f"round {r + 1} " if rounds > 1 else ""
            print(f"{prefix}{label} ({names[label]}): {result.line()}", flush=True)
            print(f"    {result.cpu_line()}  schemas touched: {len(result.touched)}", flush=True)
    if rounds > 1:
        for label, result in results.items():
            print(f"all rounds {label} ({names[label]}): {result.line()}")
            print(f"    {result.cpu_line()}  schemas touched: {len(result.touched)}")
    a, b = results["A"], results["B"]
    ratio = a.rps / b.rps if b.rps else float("nan")
    print(
        f"scenario A touched {len(a.touched)} distinct tenant schemas (of {tenants}) in its measured requests"
    )
    print(f"ratio A/B = {ratio:.3f}   (target >= {RATIO_TARGET})")
    # The server is one GIL-bound process, so its throughput is (cores it got) / (CPU per request).
    # The cores it gets swing with whatever else runs on the machine; its CPU per request much less
    # (it still drifts with the host's speed: compare the rounds).
    cpu_ratio = (
        (b.server_cpu / b.issued) / (a.server_cpu / a.issued) if a.issued and b.issued else float("nan")
    )
    print(
        f"server CPU per request B/A = {cpu_ratio:.3f}   (throughput ratio per server core-second; "
        "less sensitive to background load than the ratio above)"
    )

    for label, result in results.items():
        lat = result.latency
        issued = max(result.issued, 1)
        summary.add(
            f"GET /api/auth/user {label}: {names[label]}",
            f"{result.rps:.0f} req/s, p50 {lat.p50_ms:.1f} ms, p99 {lat.p99_ms:.1f} ms"
            + (f", errors {result.errors}" if result.errors else ""),
        )
        summary.add(
            "  cpu per request | cores busy",
            f"server {result.server_cpu / issued * 1000:.2f} ms, "
            f"PostgreSQL {result.database_cpu / issued * 1000:.2f} ms | "
            f"client {result.cores(result.client_cpu):.2f}, rest {result.cores(result.other_cpu):.2f}",
        )
    summary.add("  (distinct schemas touched by A)", f"{len(a.touched)} of {tenants}")
    summary.add(
        "GET /api/auth/user ratio A/B",
        f"{ratio:.3f}" + (f" ({bad} sanity failures)" if bad else ""),
        f">= {RATIO_TARGET}",
        ratio >= RATIO_TARGET and not bad and not a.errors and not b.errors,
    )
    summary.add("  (server CPU per request B/A)", f"{cpu_ratio:.3f}")


def doctors_of_existing_tenants(
    api: ApiServer, tenants: int, single_tenant_doctors: int
) -> tuple[list[Login], list[Login]]:
    """Scenario A and B doctors in a kept database (`--database`): a hospital-created doctor in
    each of `tenants` hospital schemas (the accounts there, else cloned into schemas that have
    none: `_common.fill_bare_hospitals`) and one new hospital with `single_tenant_doctors`
    doctors registered for real, and as many more cloned from them as A has doctors, so that A
    and B differ in the number of tenants only (caches of accounts are as warm in both). Tokens
    are issued here (this run's JWT key)."""
    from sqlalchemy import text

    from cara.auth import tokens
    from cara.kit.db import get_engine

    started = time.perf_counter()
    with get_engine().connect() as conn:
        have = conn.execute(
            text(
                "SELECT DISTINCT ON (t.id) t.schema_name, a.id FROM platform.tenants t"
                " JOIN platform.accounts a ON a.tenant_id = t.id AND a.role = 'doctor'"
                " WHERE t.kind = 'hospital' ORDER BY t.id, a.created_at"
            )
        ).all()
        bare = list(
            conn.execute(
                text(
                    "SELECT t.schema_name FROM platform.tenants t WHERE t.kind = 'hospital' AND NOT EXISTS"
                    " (SELECT 1 FROM platform.accounts a WHERE a.tenant_id = t.id) ORDER BY t.schema_name"
                )
            ).scalars()
        )
    doctors = [
        Login(account, schema, tokens.issue(account_id=account, role="doctor", tenant_schema=schema))
        for schema, account in have[:tenants]
    ]
    filled = bare[: max(0, tenants - len(doctors))]
    if filled:
        doctors += fill_bare_hospitals(filled, api.base_url)[1]
    print(
        f"setup: {len(doctors)} hospital tenants with a doctor ({len(doctors) - len(filled)} found, "
        f"{len(filled)} filled by replaying a real signup's rows) in {time.perf_counter() - started:.1f} s"
    )
    started = time.perf_counter()
    (hospital,) = create_hospitals(1)
    ready_to_register_doctors(hospital)
    single = []
    tag = secrets.token_hex(3)
    with httpx.Client(base_url=api.base_url, timeout=30) as client:
        for n in range(single_tenant_doctors):  # registered by the hospital through the API
            response = client.post(
                "/api/auth/signup",
                json=doctor_payload(n, tag, hospital_id=None) | {"isHospitalCreated": True},
                headers={"Authorization": f"Bearer {hospital.token}"},
            )
            if response.status_code != 201:
                raise RuntimeError(f"registering a doctor: {response.status_code} {response.text[:300]}")
            data = response.json()["data"]
            single.append(Login(uuid.UUID(data["user"]["_id"]), hospital.schema, data["token"]))
    if len(single) < len(doctors):  # as many doctors as A has tenants: A and B differ in tenants only
        single += clone_doctors(single[-1], len(doctors) - len(single))
    print(
        f"setup: a new hospital {hospital.schema} with {single_tenant_doctors} doctors registered"
        f" and {len(single) - single_tenant_doctors} cloned from them"
        f" in {time.perf_counter() - started:.1f} s"
    )
    random.Random(2).shuffle(doctors)
    return doctors, single


# ---------------------------------------------------------------- 4) catalog caches: cold and warm backends


@dataclass
class CachePass:
    label: str
    latencies: list[float]
    cpu: float  # PostgreSQL backend CPU seconds over the pass

    def line(self) -> str:
        lat = LatencyStats.of(self.latencies)
        n = max(len(self.latencies), 1)
        return (
            f"{self.label:<44} {len(self.latencies):>6} tx"
            f"  p50 {lat.p50_ms:6.2f} ms  p99 {lat.p99_ms:7.2f} ms"
            f"  PostgreSQL CPU {self.cpu / n * 1000:.3f} ms/tx"
        )


def bench_catalog_caches(summary: Summary, *, connections: int = 4, transactions: int = 4000) -> None:
    """What a pooled backend pays for a tenant it has not met, and what it costs once warm.

    The transaction is the product's own `GET /api/auth/user` read (`cara.auth.repository`'s
    one simple-query round trip: BEGIN READ ONLY; SET LOCAL ROLE <tenant role>; account ⨝
    hospital ⨝ <schema>.doctors by account id; COMMIT), sent with plain psycopg on
    `connections` fresh connections, for an account id that does not exist (an index probe: the
    planner and executor open the same relations). Passes, each timed per transaction with the
    backends' CPU (/proc):

    (a) cold: every transaction in a schema its backend has never opened (each connection takes
        its own slice of all hospital schemas);
    (b) warm: after each backend has opened every hospital schema once (the warm-up is timed),
        random schemas; the backends' memory is read then;
    (c) one tenant: every transaction in the same schema (the floor: nothing to open).

    Also the first statement of a fresh backend that touches `platform.accounts` (its relation
    cache entry carries the triggers of every foreign key into it, 8 per hospital schema).
    """
    from sqlalchemy import text

    from cara.auth.repository import _user_query
    from cara.kit.db import get_engine
    from tenants.roles import role_for

    with get_engine().connect() as conn:
        database = str(conn.execute(text("SELECT current_database()")).scalar_one())
        schemas = list(
            conn.execute(
                text("SELECT schema_name FROM platform.tenants WHERE kind = 'hospital' ORDER BY schema_name")
            ).scalars()
        )
        triggers = conn.execute(
            text("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'platform.accounts'::regclass")
        ).scalar_one()
    print(
        f"\n== 4) catalog caches: {len(schemas)} hospital schemas, {connections} fresh backends"
        f" ({triggers:,} triggers on platform.accounts)",
        flush=True,
    )
    if not schemas:
        print("    no hospital schema in the database: skipped")
        return
    conninfo = get_engine().url.set(drivername="postgresql").render_as_string(hide_password=False)
    account = uuid.uuid4()
    queries = {s: _user_query(account, s, role_for(database, s)) for s in schemas}
    conns = [psycopg.connect(conninfo, autocommit=True) for _ in range(connections)]
    pids = [c.info.backend_pid for c in conns]

    def cpu() -> float:
        return sum(process_cpu_seconds(pid) for pid in pids)

    def run(i: int, chosen: Sequence[str]) -> list[float]:
        conn, times = conns[i], []
        for schema in chosen:
            started = time.perf_counter()
            cursor = conn.execute(queries[schema])
            while cursor.nextset():
                pass
            times.append(time.perf_counter() - started)
        return times

    def measured(label: str, work: Sequence[Sequence[str]]) -> CachePass:
        before = cpu()
        with ThreadPoolExecutor(max_workers=connections) as pool:
            times = [t for part in pool.map(run, range(connections), work) for t in part]
        return CachePass(label, times, cpu() - before)

    def memory(conn: psycopg.Connection[Any]) -> tuple[int, int]:
        row = conn.execute(
            "SELECT sum(total_bytes), sum(total_bytes) FILTER (WHERE name = 'CacheMemoryContext')"
            " FROM pg_backend_memory_contexts"
        ).fetchone()
        return (int(row[0]), int(row[1] or 0)) if row else (0, 0)

    try:
        first_touch = []
        for conn in conns:
            started = time.perf_counter()
            conn.execute("SELECT 1 FROM platform.accounts LIMIT 1").fetchall()
            first_touch.append(time.perf_counter() - started)
        fresh = memory(conns[0])
        rng = random.Random(4)
        order = schemas[:]
        rng.shuffle(order)
        per_conn = transactions // connections
        fresh_per_conn = min(per_conn, len(order) // connections)  # each schema once at most
        cold = measured(
            "(a) cold: schemas the backend never opened",
            [order[i * fresh_per_conn : (i + 1) * fresh_per_conn] for i in range(connections)],
        )
        rest = [order[: i * fresh_per_conn] + order[(i + 1) * fresh_per_conn :] for i in range(connections)]
        started = time.perf_counter()
        before = cpu()
        with ThreadPoolExecutor(max_workers=connections) as pool:
            list(pool.map(run, range(connections), rest))
        warm_up, warm_up_cpu = time.perf_counter() - started, cpu() - before
        warm = measured(
            "(b) warm: every schema opened before",
            [[rng.choice(schemas) for _ in range(per_conn)] for _ in range(connections)],
        )
        warm_memory = [memory(c) for c in conns]
        one = measured("(c) one tenant", [[order[0]] * per_conn for _ in range(connections)])
    finally:
        for conn in conns:
            conn.close()
    touch_ms = sorted(t * 1000 for t in first_touch)
    print(
        f"fresh backend, first statement on platform.accounts: {touch_ms[len(touch_ms) // 2]:.1f} ms"
        f" (max {touch_ms[-1]:.1f}); backend memory then {fresh[0] / 2**20:.1f} MB"
        f" (catalog caches {fresh[1] / 2**20:.1f} MB)"
    )
    for result in (cold, warm, one):
        print(result.line(), flush=True)
    mb = [m[0] / 2**20 for m in warm_memory]
    cache_mb = [m[1] / 2**20 for m in warm_memory]
    print(
        f"warming a backend over all {len(schemas)} schemas: {warm_up:.1f} s for {connections} backends"
        f" ({warm_up_cpu / connections:.1f} s PostgreSQL CPU each); a warm backend holds"
        f" {sum(mb) / len(mb):.0f} MB ({sum(cache_mb) / len(cache_mb):.0f} MB of catalog caches)"
    )

    def per_tx(p: CachePass) -> float:
        return p.cpu / max(len(p.latencies), 1) * 1000

    floor = max(per_tx(one), 1e-9)
    summary.add(
        f"PostgreSQL CPU per tenant read, cold / warm / one tenant ({len(schemas)} schemas)",
        f"{per_tx(cold):.3f} / {per_tx(warm):.3f} / {per_tx(one):.3f} ms"
        f" (cold {per_tx(cold) / floor:.1f}x, warm {per_tx(warm) / floor:.2f}x)",
    )
    summary.add(
        "  a warm backend's memory, first platform.accounts read of a fresh one",
        f"{sum(mb) / len(mb):.0f} MB, {touch_ms[len(touch_ms) // 2]:.1f} ms",
    )


# ---------------------------------------------------------------- main


@dataclass(frozen=True)
class Plan:
    provision: int
    migrate_schemas: int
    tenants: int
    single_tenant_doctors: int
    duration: float
    warmup: float
    concurrency: int
    rounds: int
    sections: frozenset[int]
    database: str | None = None


def parse_args(argv: Sequence[str] | None) -> Plan:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small smoke run (20 / 100 / 100, 5 s)")
    parser.add_argument("--provision", type=int, help="hospital signups per method (default 200)")
    parser.add_argument("--migrate-schemas", type=int, help="tenant schemas to migrate (default 1000)")
    parser.add_argument("--tenants", type=int, help="tenants for the throughput test (default 2000)")
    parser.add_argument(
        "--single-tenant-doctors",
        type=int,
        default=50,
        help="doctors of the one tenant of scenario B (default 50)",
    )
    parser.add_argument("--duration", type=float, help="seconds per throughput scenario (default 15)")
    parser.add_argument("--warmup", type=float, help="warm-up seconds per scenario (default 3)")
    parser.add_argument("--concurrency", type=int, default=32, help="client concurrency (default 32)")
    parser.add_argument(
        "--rounds",
        type=int,
        help="throughput rounds of A and B, order alternating AB, BA, ... to cancel drift in background "
        "load (default 2; 1 with --quick)",
    )
    parser.add_argument(
        "--database",
        help="sections 2 and 3 (--only) on this existing database's hospitals instead of a new one: "
        "section 2 leaves it at the tree's head, section 3 adds accounts to it",
    )
    parser.add_argument(
        "--only", default="1,2,3", help="comma-separated sections to run, e.g. --only 3 (default 1,2,3)"
    )
    args = parser.parse_args(argv)
    sections = frozenset(int(x) for x in args.only.split(",") if x.strip())
    if not sections <= {1, 2, 3, 4}:
        parser.error("--only takes section numbers 1, 2, 3 and 4")
    if args.single_tenant_doctors < 1:
        parser.error("--single-tenant-doctors must be at least 1")
    quick, full = (
        Plan(20, 100, 100, 50, 5.0, 2.0, 32, 1, sections),
        Plan(200, 1000, 2000, 50, 15.0, 3.0, 32, 2, sections),
    )
    base = quick if args.quick else full
    return Plan(
        provision=args.provision or base.provision,
        migrate_schemas=args.migrate_schemas or base.migrate_schemas,
        tenants=args.tenants or base.tenants,
        single_tenant_doctors=args.single_tenant_doctors,
        duration=args.duration or base.duration,
        warmup=args.warmup if args.warmup is not None else base.warmup,
        concurrency=args.concurrency,
        rounds=max(1, args.rounds or base.rounds),
        sections=sections if not args.database else sections - {1} or frozenset({2}),
        database=args.database,
    )


def on_existing(database: str, plan: Plan) -> int:
    """Sections 2 and 3 on an existing database (e.g. mixed_load.py --keep's cara_mixed_10000):
    2 over every hospital schema, left at the tenant tree's head afterwards; 3 over `--tenants`
    of its hospitals (accounts added where a schema has none, and one new hospital for B: the
    database keeps them)."""
    from sqlalchemy.engine import make_url

    server = os.environ.get("BENCH_DATABASE_URL")
    if not server:
        raise SystemExit("--database needs BENCH_DATABASE_URL (the server holding it)")
    if "+psycopg" not in server:
        server = server.replace("postgresql://", "postgresql+psycopg://", 1)
    found = Servers(
        db_server_url=server,
        redis_url=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13"),
        db_url=make_url(server).set(database=database).render_as_string(hide_password=False),
        dbname=database,
    )
    configure_env(found)
    import_app_modules(("tenants.migrate", "tenants.roles"))
    prepare_database()
    from sqlalchemy import select

    from cara.kit.db import platform_session
    from cara.models import Tenant

    summary = Summary()
    try:
        if 2 in plan.sections:
            with platform_session() as session:
                schemas = list(session.scalars(select(Tenant.schema_name).where(Tenant.kind == "hospital")))
            bench_migrations(len(schemas), summary, existing=schemas)
        if 4 in plan.sections:  # before section 3's requests warm the server's backends
            bench_catalog_caches(summary)
        if 3 in plan.sections:
            with tempfile.TemporaryDirectory(prefix="cara-bench-") as tmp:
                api = ApiServer(Path(tmp) / "uvicorn.log")
                try:
                    api.wait_ready()
                    bench_throughput(
                        plan.tenants,
                        api,
                        summary,
                        single_tenant_doctors=plan.single_tenant_doctors,
                        duration=plan.duration,
                        warmup=plan.warmup,
                        concurrency=plan.concurrency,
                        rounds=plan.rounds,
                        existing=True,
                    )
                finally:
                    api.stop()
    finally:
        summary.print()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    plan = parse_args(argv)
    if plan.database:
        return on_existing(plan.database, plan)
    summary = Summary()

    def body(api: ApiServer) -> None:
        if 1 in plan.sections:
            bench_provisioning(plan.provision, api, summary)
        if 2 in plan.sections:
            bench_migrations(plan.migrate_schemas, summary)
        elif 4 in plan.sections:
            provision_schemas_fast(plan.migrate_schemas)
        if 4 in plan.sections:
            bench_catalog_caches(summary)
        if 3 in plan.sections:
            bench_throughput(
                plan.tenants,
                api,
                summary,
                single_tenant_doctors=plan.single_tenant_doctors,
                duration=plan.duration,
                warmup=plan.warmup,
                concurrency=plan.concurrency,
                rounds=plan.rounds,
            )

    return run_bench(plan, summary, body, modules=("tenants.migrate",))


if __name__ == "__main__":
    sys.exit(main())
