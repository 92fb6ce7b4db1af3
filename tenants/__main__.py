"""`python -m tenants`: list tenants and migrate every schema.

    python -m tenants list              tenants with kind, status and revision
    python -m tenants upgrade           platform schema, independent tenant, then every tenant
    python -m tenants migrate [--jobs N] [--revision REV]
                                        every tenant schema, in parallel, one transaction each

Exit status is 1 when any schema failed; each failure is printed with its schema.
"""

from __future__ import annotations

import argparse
import sys
import time

from cara.kit.db import get_engine, session_scope
from tenants import migrate, registry
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
    args = parser.parse_args(argv)

    if args.command == "list":
        with session_scope() as session:
            tenants = registry.all_tenants(session)
            conn = session.connection()
            for t in tenants:
                rev = migrate.tenant_revision(conn, t.schema_name)
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


if __name__ == "__main__":
    sys.exit(main())
