"""`python -m tenants`: list tenants, migrate every schema, export, restore and erase one tenant.

    python -m tenants list              tenants with kind, status and revision
    python -m tenants upgrade           platform schema, independent tenant, then every tenant
    python -m tenants migrate [--jobs N] [--revision REV]
                                        every tenant schema, in parallel, one transaction each
    python -m tenants export SCHEMA --out FILE
                                        the schema (pg_dump archive FILE) and its platform rows
                                        (FILE.platform.json); see docs/backups.md
    python -m tenants restore FILE [--as SCHEMA]
                                        an export back under its own name, or a copy to inspect
    python -m tenants delete SCHEMA --confirm SCHEMA
                                        erase a hospital tenant: schema, platform rows, role
    python -m tenants wait-db [--timeout SECONDS]
                                        until DATABASE_URL answers a query (the chart's
                                        migration Job waits so for the release's PgBouncer)

Exit status is 1 when any schema failed (each failure is printed with its schema) or when an
export, restore or deletion was refused or failed, 2 for a request that cannot succeed as written.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from cara.kit.db import get_engine, session_scope
from tenants import backup, erasure, migrate, pgtools, registry
from tenants.ownership import Refused
from tenants.provisioning import ensure_independent_tenant


def _migrate_all(jobs: int, revision: str) -> int:
    with session_scope() as session:
        schemas = registry.all_schema_names(session)
    started = time.perf_counter()
    results = migrate.upgrade_tenant_schemas(get_engine(), schemas, target=revision, jobs=jobs)
    bad = migrate.failed(results)
    for r in bad:
        print(f"FAILED {r.schema}: {r.error}", file=sys.stderr)
    print(
        f"migrated {len(results) - len(bad)}/{len(results)} tenant schemas "
        f"in {time.perf_counter() - started:.2f}s ({len(bad)} failed)"
    )
    return 1 if bad else 0


def wait_for_database(timeout: float, interval: float = 2.0) -> int:
    """0 once the database answers `SELECT 1`, 1 after `timeout` seconds of refusals.

    Each failed attempt prints the error's type only: its message may name the host and user.
    """
    started = time.monotonic()
    attempt = 0
    while True:
        attempt += 1
        try:
            with get_engine().connect() as connection:
                connection.execute(text("SELECT 1"))
        except (SQLAlchemyError, OSError) as exc:
            waited = time.monotonic() - started
            if waited + interval > timeout:
                print(f"database not reachable after {waited:.0f}s ({type(exc).__name__})", file=sys.stderr)
                return 1
            print(f"database not reachable yet (attempt {attempt}, {type(exc).__name__}); retrying")
            time.sleep(interval)
            continue
        print(f"database reachable after {time.monotonic() - started:.1f}s")
        return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tenants", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list tenants")
    up = sub.add_parser("upgrade", help="migrate platform and all tenant schemas")
    up.add_argument("--jobs", type=int, default=8)
    mig = sub.add_parser("migrate", help="migrate all tenant schemas")
    mig.add_argument("--jobs", type=int, default=8)
    mig.add_argument("--revision", default="head")
    exp = sub.add_parser("export", help="export one tenant schema and its platform rows")
    exp.add_argument("schema")
    exp.add_argument("--out", required=True, type=Path, help="archive; sidecar is FILE.platform.json")
    res = sub.add_parser("restore", help="restore an export (refuses an existing schema)")
    res.add_argument("file", type=Path)
    res.add_argument("--as", dest="as_schema", metavar="SCHEMA", help="a copy under this name, to inspect")
    dele = sub.add_parser("delete", help="erase a hospital tenant (data-protection deletion)")
    dele.add_argument("schema")
    dele.add_argument("--confirm", required=True, metavar="SCHEMA", help="the schema name again")
    wait = sub.add_parser("wait-db", help="wait until the database answers")
    wait.add_argument("--timeout", type=float, default=300.0, help="seconds (default 300)")
    args = parser.parse_args(argv)

    if args.command == "wait-db":
        return wait_for_database(args.timeout)
    if args.command in ("export", "restore", "delete"):
        return _tenant_data_command(args)

    if args.command == "list":
        with session_scope() as session:
            tenants = registry.all_tenants(session)
            # Every schema's version in a few statements, not a lookup per schema.
            versions = migrate.tenant_versions(session.connection(), [t.schema_name for t in tenants])
            for t in tenants:
                rev = ",".join(sorted(versions.get(t.schema_name, ())))
                print(f"{t.schema_name}\t{t.kind}\t{t.status}\t{rev or '-'}")
            print(f"{len(tenants)} tenants")
        return 0
    if args.command == "upgrade":
        migrate.upgrade_platform(get_engine())
        with session_scope() as session:
            ensure_independent_tenant(session)
        print("platform schema at head")
        return _migrate_all(args.jobs, "head")
    if args.command == "migrate":
        return _migrate_all(args.jobs, args.revision)
    return 2


def _tenant_data_command(args: argparse.Namespace) -> int:
    try:
        if args.command == "export":
            lines = backup.export_tenant(args.schema, args.out).lines()
        elif args.command == "restore":
            lines = backup.restore_tenant(args.file, args.as_schema).lines()
        else:
            if args.confirm != args.schema:
                raise Refused(f"--confirm must repeat the schema name exactly ({args.schema})", 2)
            lines = erasure.erase_tenant(args.schema).lines()
    except Refused as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return exc.exit_status
    except (pgtools.ToolsNotFound, pgtools.ProgramFailed) as exc:
        print(f"failed: {exc}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
