"""Running the two Alembic trees.

* `platform`: one schema, upgraded like any Alembic project.
* `tenant`: the same revisions applied to every tenant schema. Each schema is
  upgraded in its own transaction, schemas run in parallel worker processes,
  and a failure in one schema is reported without stopping the others.

The tenant tree is driven through Alembic's MigrationContext directly rather
than re-running env.py per schema: the script directory is parsed once.

With thousands of schemas the per-schema round trips are the cost, so
`upgrade_tenant_schemas` first reads every schema's version and the state of
every tenant role with a few catalog queries (batches of `VERSION_BATCH`
schemas): schemas already at the target with a complete role are skipped
without opening a transaction; Alembic runs only on the schemas behind, and
the role's grants are (re)issued only where the catalog shows something
missing (a new role, a table without its grant).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.operations import Operations
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text

from cara.models import PlatformBase, TenantBase
from cara.models.base import PLATFORM_SCHEMA
from tenants import citus, naming, roles

HERE = Path(__file__).resolve().parent
PLATFORM_SCRIPTS = HERE / "alembic" / "platform"
TENANT_SCRIPTS = HERE / "alembic" / "tenant"


def alembic_config(tree: str) -> Config:
    """An Alembic Config for `tree` ("platform" or "tenant"), for the alembic CLI too."""
    cfg = Config()
    cfg.set_main_option("script_location", str(HERE / "alembic" / tree))
    return cfg


@lru_cache(maxsize=4)
def script_directory(location: str) -> ScriptDirectory:
    return ScriptDirectory(location)


def tenant_scripts(location: Path | None = None) -> ScriptDirectory:
    return script_directory(str(location or TENANT_SCRIPTS))


def _run(
    connection: Connection,
    *,
    script: ScriptDirectory,
    target: str,
    version_schema: str,
    metadata: Any,
    known: frozenset[str] | None = None,
) -> None:
    def upgrade(rev: Any, context: Any) -> Any:
        return script._upgrade_revs(target, rev)

    ctx = MigrationContext.configure(
        connection=connection,
        opts={
            "script": script,
            "fn": upgrade,
            "version_table_schema": version_schema,
            "target_metadata": metadata,
            "transactional_ddl": True,
        },
    )
    if known:
        # The schema's version(s), read beforehand for many schemas at once (`tenant_versions`),
        # instead of the version table's lookups. Alembic's update of the version row still
        # matches on the old version, so a stale value fails the schema instead of skipping it.
        heads = tuple(sorted(known))
        ctx.get_current_heads = lambda: heads  # type: ignore[method-assign]
    with Operations.context(ctx):
        ctx.run_migrations()


def upgrade_platform(engine: Engine, target: str = "head") -> None:
    """Bring the `platform` schema to `target` in one transaction."""
    with engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{PLATFORM_SCHEMA}"'))
        _run(
            conn,
            script=script_directory(str(PLATFORM_SCRIPTS)),
            target=target,
            version_schema=PLATFORM_SCHEMA,
            metadata=PlatformBase.metadata,
        )
        roles.ensure_base_role(conn)
    with engine.begin() as conn:
        if citus.active(conn):  # a Citus coordinator: platform tables that tenants refer to
            citus.distribute_platform(conn)


def upgrade_tenant_schema(
    connection: Connection,
    schema: str,
    *,
    target: str = "head",
    scripts: Path | None = None,
    grants: bool = True,
    on_citus: bool | None = None,
    known: frozenset[str] | None = None,
) -> None:
    """Upgrade one tenant schema on `connection` (caller owns the transaction).

    `grants=False` leaves the tenant role alone (the caller checks the roles of many schemas
    at once afterwards, `roles.incomplete_roles`); `on_citus` spares the lookup of the citus
    extension and `known` (the schema's current versions) that of the version table, when the
    caller knows them.
    """
    naming.checked(schema)
    # create_table and friends honour schema_translate_map, but Alembic's ALTER
    # operations (add_column, alter_column, ...) render the bare table name.
    # A transaction-local search_path makes those land in this schema too; it
    # ends with the transaction, so it cannot leak through the pool.
    connection.execute(text(f'SET LOCAL search_path TO "{schema}"'))
    if citus.active(connection) if on_citus is None else on_citus:
        citus.allow_tenant_triggers(connection)
    bound = connection.execution_options(schema_translate_map={None: schema})
    _run(
        bound,
        script=tenant_scripts(scripts),
        target=target,
        version_schema=schema,
        metadata=TenantBase.metadata,
        known=known,
    )
    if grants:
        roles.ensure_tenant_role(connection, schema)


def tenant_revision(connection: Connection, schema: str) -> str | None:
    ctx = MigrationContext.configure(connection=connection, opts={"version_table_schema": schema})
    return ctx.get_current_revision()


# One statement reads the Alembic versions of this many schemas.
VERSION_BATCH = 500


def tenant_versions(connection: Connection, schemas: Sequence[str]) -> dict[str, frozenset[str]]:
    """Every schema's Alembic version(s), in a few statements whatever the number of schemas.

    A catalog query finds the schemas that have a version table, then one `UNION ALL` per
    `VERSION_BATCH` of them reads the rows. A schema without a version table (or without the
    schema itself) maps to an empty set.

    Reading a table locks it until the transaction ends, and the caller's transaction may be
    long: 10,000 schemas would hold 10,000 locks, more than the server's shared lock table
    (max_locks_per_transaction x max_connections: 6,400 by default) holds, and the read failed
    with "out of shared memory" for every session of the server. Each batch is read inside a
    savepoint that is then rolled back, which releases its locks (the rows are already read).
    """
    names = [naming.checked(s) for s in schemas]
    present = set(
        connection.execute(
            text(
                "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE c.relname = 'alembic_version' AND c.relkind IN ('r', 'p')"
                " AND n.nspname = ANY(CAST(:schemas AS text[]))"
            ),
            {"schemas": names},
        ).scalars()
    )
    found: dict[str, set[str]] = {s: set() for s in names}
    with_table = [s for s in names if s in present]
    for start in range(0, len(with_table), VERSION_BATCH):
        chunk = with_table[start : start + VERSION_BATCH]
        # The names are checked tenant schema names: safe to inline, as in every DDL here.
        query = " UNION ALL ".join(
            f"SELECT '{s}' AS schema, version_num FROM \"{s}\".alembic_version" for s in chunk
        )
        savepoint = connection.begin_nested()
        try:
            rows = connection.execute(text(query)).all()
        finally:
            savepoint.rollback()
        for schema, version in rows:
            found[schema].add(version)
    return {s: frozenset(v) for s, v in found.items()}


def target_revisions(target: str, scripts: Path | None = None) -> frozenset[str]:
    """The revision ids a schema holds once upgraded to `target` ("head", a revision id, ...)."""
    script = tenant_scripts(scripts)
    return frozenset(r.revision for r in script.get_revisions(target) if r is not None)


@dataclass(frozen=True)
class MigrationPlan:
    """What each schema needs: Alembic (`behind`), only its role's grants (`grants`), or nothing."""

    behind: list[str]
    grants: list[str]
    current: list[str]
    incomplete_roles: frozenset[str]
    versions: dict[str, frozenset[str]]


def plan_tenant_upgrade(
    connection: Connection, schemas: Sequence[str], *, target: str = "head", scripts: Path | None = None
) -> MigrationPlan:
    """Which of `schemas` need work to reach `target`, from a few catalog queries for all of them."""
    wanted = target_revisions(target, scripts)
    valid = [s for s in schemas if naming.is_valid_schema(s)]  # the others fail on their own, later
    versions = tenant_versions(connection, valid)
    incomplete = frozenset(roles.incomplete_roles(connection, valid))
    behind, grants, current = [], [], []
    for schema in schemas:
        if versions.get(schema, frozenset()) != wanted or not wanted:
            behind.append(schema)
        elif schema in incomplete:
            grants.append(schema)
        else:
            current.append(schema)
    return MigrationPlan(behind, grants, current, incomplete, versions)


@dataclass(frozen=True)
class SchemaResult:
    schema: str
    ok: bool
    seconds: float
    error: str | None = None
    skipped: bool = False  # already at the target with a complete role: nothing was run


def upgrade_tenant_schemas(
    engine: Engine,
    schemas: Sequence[str],
    *,
    target: str = "head",
    jobs: int = 8,
    scripts: Path | None = None,
) -> list[SchemaResult]:
    """Upgrade every schema in `schemas`, `jobs` at a time, one transaction each.

    Returns one result per schema, in the order given; failures carry the
    error text and do not stop the others (a failed schema stays at its
    previous revision, since its transaction rolled back). Schemas already at
    `target` whose role is complete are read in bulk first and skipped
    (`skipped=True`); the others get Alembic, and their role's grants where the
    catalog shows any missing (`plan_tenant_upgrade`).

    Parallelism uses processes, not threads: revision scripts call Alembic's
    module-level `op` proxy, which points at one migration context per
    process, so two threads migrating at once would cross their operations.
    """
    with engine.connect() as conn:
        plan = plan_tenant_upgrade(conn, schemas, target=target, scripts=scripts)
        on_citus = citus.active(conn)
    todo = [*plan.behind, *plan.grants]
    skipped = {s: SchemaResult(s, True, 0.0, skipped=True) for s in plan.current}
    if not todo:
        return [skipped[s] for s in schemas]
    work = [
        _Work(s, grants=s in plan.incomplete_roles, behind=s in plan.behind, known=plan.versions.get(s))
        for s in todo
    ]
    done = {r.schema: r for r in _in_jobs(engine, work, jobs, target, scripts, on_citus)}
    # A revision may add tables: the default privileges grant them, and one catalog query for
    # every migrated schema finds any role that still lacks something; those get their grants.
    migrated = [w.schema for w in work if w.behind and not w.grants and done[w.schema].ok]
    with engine.connect() as conn:
        regrant = roles.incomplete_roles(conn, migrated) if migrated else set()
    if regrant:
        again = [_Work(s, grants=True, behind=False, known=None) for s in migrated if s in regrant]
        for r in _in_jobs(engine, again, jobs, target, scripts, on_citus):
            done[r.schema] = r if not r.ok else done[r.schema]
    by_schema = {**skipped, **done}
    return [by_schema[s] for s in schemas]


@dataclass(frozen=True)
class _Work:
    schema: str
    grants: bool  # (re)issue the tenant role's grants
    behind: bool  # run Alembic
    known: frozenset[str] | None  # the schema's versions, as read by the plan


# A worker process is started only for at least this many schemas (a few round trips each):
# fewer run in this process, where starting processes would cost more than it saves.
SCHEMAS_PER_JOB = 50


def _in_jobs(
    engine: Engine,
    work: list[_Work],
    jobs: int,
    target: str,
    scripts: Path | None,
    on_citus: bool,
) -> list[SchemaResult]:
    jobs = max(1, min(jobs, len(work) // SCHEMAS_PER_JOB))
    url = engine.url.render_as_string(hide_password=False)
    location = str(scripts) if scripts else None
    if jobs == 1:
        return _upgrade_chunk(url, work, target, location, on_citus, engine=engine)
    chunks = [work[i::jobs] for i in range(jobs)]
    # Workers are forked from one server process that has imported this module once (not
    # from this process, whose threads and pooled connections a fork would copy).
    context = get_context("forkserver")
    context.set_forkserver_preload(["tenants.migrate", "cara.kit.db"])
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = [pool.submit(_upgrade_chunk, url, chunk, target, location, on_citus) for chunk in chunks]
        return [r for f in futures for r in f.result()]


def _upgrade_chunk(
    url: str,
    work: list[_Work],
    target: str,
    location: str | None,
    on_citus: bool,
    engine: Engine | None = None,
) -> list[SchemaResult]:
    """Runs in a worker process (or inline): one transaction per schema, with Alembic when it
    is behind and the role's grants when they are incomplete."""
    from cara.kit.db import make_engine

    own_engine = engine is None
    engine = engine or make_engine(url, pool_size=1, max_overflow=0)
    scripts = Path(location) if location else None
    tenant_scripts(scripts)  # parse the script directory once per process
    results = []
    try:
        for item in work:
            started = time.perf_counter()
            try:
                with engine.begin() as conn:
                    if item.behind:
                        upgrade_tenant_schema(
                            conn,
                            item.schema,
                            target=target,
                            scripts=scripts,
                            grants=item.grants,
                            on_citus=on_citus,
                            known=item.known,
                        )
                    else:
                        roles.ensure_tenant_role(conn, item.schema)
            except Exception as exc:  # reported per schema, never raised
                detail = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
                results.append(
                    SchemaResult(
                        item.schema, False, time.perf_counter() - started, f"{type(exc).__name__}: {detail}"
                    )
                )
                continue
            results.append(SchemaResult(item.schema, True, time.perf_counter() - started))
    finally:
        if own_engine:
            engine.dispose()
    return results


def failed(results: Iterable[SchemaResult]) -> list[SchemaResult]:
    return [r for r in results if not r.ok]
