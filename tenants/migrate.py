"""Running the two Alembic trees.

* `platform`: one schema, upgraded like any Alembic project.
* `tenant`: the same revisions applied to every tenant schema. Each schema is
  upgraded in its own transaction, schemas run in parallel worker processes,
  and a failure in one schema is reported without stopping the others.

The tenant tree is driven through Alembic's MigrationContext directly rather
than re-running env.py per schema: the script directory is parsed once and a
no-op pass over a schema costs one version-table read.
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
) -> None:
    """Upgrade one tenant schema on `connection` (caller owns the transaction)."""
    naming.checked(schema)
    # create_table and friends honour schema_translate_map, but Alembic's ALTER
    # operations (add_column, alter_column, ...) render the bare table name.
    # A transaction-local search_path makes those land in this schema too; it
    # ends with the transaction, so it cannot leak through the pool.
    connection.execute(text(f'SET LOCAL search_path TO "{schema}"'))
    if citus.active(connection):
        citus.allow_tenant_triggers(connection)
    bound = connection.execution_options(schema_translate_map={None: schema})
    _run(
        bound,
        script=tenant_scripts(scripts),
        target=target,
        version_schema=schema,
        metadata=TenantBase.metadata,
    )
    roles.ensure_tenant_role(connection, schema)


def tenant_revision(connection: Connection, schema: str) -> str | None:
    ctx = MigrationContext.configure(connection=connection, opts={"version_table_schema": schema})
    return ctx.get_current_revision()


@dataclass(frozen=True)
class SchemaResult:
    schema: str
    ok: bool
    seconds: float
    error: str | None = None


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
    previous revision, since its transaction rolled back).

    Parallelism uses processes, not threads: revision scripts call Alembic's
    module-level `op` proxy, which points at one migration context per
    process, so two threads migrating at once would cross their operations.
    """
    jobs = max(1, min(jobs, len(schemas)))
    url = engine.url.render_as_string(hide_password=False)
    location = str(scripts) if scripts else None
    if jobs == 1:
        return _upgrade_chunk(url, list(schemas), target, location, engine=engine)
    chunks = [list(schemas[i::jobs]) for i in range(jobs)]
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        futures = [pool.submit(_upgrade_chunk, url, chunk, target, location) for chunk in chunks]
        by_schema = {r.schema: r for f in futures for r in f.result()}
    return [by_schema[s] for s in schemas]


def _upgrade_chunk(
    url: str, schemas: list[str], target: str, location: str | None, engine: Engine | None = None
) -> list[SchemaResult]:
    """Runs in a worker process (or inline): migrate `schemas` one by one."""
    from cara.kit.db import make_engine

    own_engine = engine is None
    engine = engine or make_engine(url, pool_size=1, max_overflow=0)
    scripts = Path(location) if location else None
    tenant_scripts(scripts)  # parse the script directory once per process
    results = []
    try:
        for schema in schemas:
            started = time.perf_counter()
            try:
                with engine.begin() as conn:
                    upgrade_tenant_schema(conn, schema, target=target, scripts=scripts)
            except Exception as exc:  # reported per schema, never raised
                detail = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
                results.append(
                    SchemaResult(
                        schema, False, time.perf_counter() - started, f"{type(exc).__name__}: {detail}"
                    )
                )
                continue
            results.append(SchemaResult(schema, True, time.perf_counter() - started))
    finally:
        if own_engine:
            engine.dispose()
    return results


def failed(results: Iterable[SchemaResult]) -> list[SchemaResult]:
    return [r for r in results if not r.ok]
