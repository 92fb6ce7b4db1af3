"""Scale figures on the local Citus cluster (ops/citus/cluster): migrating many distributed
schemas, and spreading hospitals over a third worker.

    .venv/bin/python ops/bench/citus_scale.py migrate [--schemas 1000] [--jobs 4]
    .venv/bin/python ops/bench/citus_scale.py rebalance [--hospitals 200]

Starts the cluster when it is not running (and stops it again at the end), works in a throwaway
`cara_bench_<random>` database on it, and drops that database and its tenant roles afterwards.
`migrate` creates the schemas empty (distributed) and times the whole tenant Alembic tree replayed
over all of them, then a second, no-op pass. `rebalance` provisions the hospitals, prints how they
sit on the two workers, adds a third, runs the rebalancer and prints the spread again.
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psycopg

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "ops" / "citus" / "cluster"
PORT = int(os.environ.get("CITUS_PORT", "5440"))


def cluster(*args: str) -> None:
    subprocess.run([str(CLUSTER), *args], check=True, stdout=subprocess.DEVNULL)


def coordinator_up() -> bool:
    try:
        psycopg.connect(
            f"host=127.0.0.1 port={PORT} user=postgres dbname=postgres", connect_timeout=2
        ).close()
    except psycopg.OperationalError:
        return False
    return True


def migrate_bench(count: int, jobs: int) -> None:
    from cara.kit.db import get_engine
    from tenants import citus, migrate, naming

    engine = get_engine()
    schemas = [naming.new_hospital_schema() for _ in range(count)]
    started = time.perf_counter()
    for i in range(0, count, 50):
        with engine.begin() as conn:
            for schema in schemas[i : i + 50]:
                citus.create_schema(conn, schema)
    print(f"created {count} empty distributed schemas in {time.perf_counter() - started:.1f}s")
    for label in ("whole tenant tree", "no-op pass"):
        started = time.perf_counter()
        results = migrate.upgrade_tenant_schemas(engine, schemas, jobs=jobs)
        seconds = time.perf_counter() - started
        failed = migrate.failed(results)
        print(
            f"migrate ({label}), {count} distributed schemas, jobs {jobs}: {seconds:.1f}s "
            f"({count / seconds:.1f} schemas/s), {len(failed)} failed"
        )
        for r in failed[:5]:
            print(f"  {r.schema}: {r.error}")
    with engine.connect() as conn:
        spread = Counter(citus.schema_placements(conn).values())
    print(f"schemas per worker: {dict(sorted(spread.items()))}")


def rebalance_bench(count: int, database: str) -> None:
    from sqlalchemy import text

    from cara.kit.db import get_engine, session_scope
    from tenants import citus
    from tenants.provisioning import provision_hospital_tenant

    engine = get_engine()
    started = time.perf_counter()
    for i in range(0, count, 20):
        with session_scope() as s:
            for _ in range(min(20, count - i)):
                provision_hospital_tenant(s)
    print(f"provisioned {count} hospitals in {time.perf_counter() - started:.1f}s")
    with engine.connect() as conn:
        print(
            f"hospitals per worker: {dict(sorted(Counter(citus.schema_placements(conn).values()).items()))}"
        )
    cluster("add-worker", database)
    try:
        started = time.perf_counter()
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("SELECT citus_rebalance_start(shard_transfer_mode => 'block_writes')"))
            conn.execute(text("SELECT citus_rebalance_wait()"))
            spread = Counter(citus.schema_placements(conn).values())
        print(
            f"after adding a third worker and rebalancing ({time.perf_counter() - started:.1f}s): "
            f"{dict(sorted(spread.items()))}"
        )
    finally:
        engine.dispose()
        cluster("remove-worker")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    mig = sub.add_parser("migrate")
    mig.add_argument("--schemas", type=int, default=1000)
    mig.add_argument("--jobs", type=int, default=4)
    reb = sub.add_parser("rebalance")
    reb.add_argument("--hospitals", type=int, default=200)
    args = parser.parse_args()

    started_here = not coordinator_up()
    if started_here:
        cluster("start")
    name = f"cara_bench_{secrets.token_hex(4)}"
    cluster("createdb", name)
    os.environ.update(
        DATABASE_URL=f"postgresql+psycopg://postgres@127.0.0.1:{PORT}/{name}",
        JWT_SECRET=os.environ.get("JWT_SECRET", "bench-" + secrets.token_hex(24)),
        OTEL_TRACES_EXPORTER="none",
    )
    sys.path[:0] = [str(REPO / "platform"), str(REPO)]
    try:
        from cara.kit.db import get_engine, reset_engine
        from tenants import migrate

        migrate.upgrade_platform(get_engine())
        if args.command == "migrate":
            migrate_bench(args.schemas, args.jobs)
        else:
            rebalance_bench(args.hospitals, name)
        reset_engine()
    finally:
        cluster("dropdb", name)
        from sqlalchemy import create_engine

        from tenants.roles import drop_roles

        for port in (PORT, PORT + 1, PORT + 2):
            engine = create_engine(f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres")
            with engine.begin() as conn:
                drop_roles(conn, name)
            engine.dispose()
        if started_here:
            cluster("stop")
    return 0


if __name__ == "__main__":
    sys.exit(main())
