"""Scaling on the cluster: the tenant Alembic tree over many distributed schemas, moving one
hospital to the other worker while it is used, and rebalancing onto a third worker."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select, text

from cara.kit.db import get_engine, session_scope
from cara.models import Plan, Subscription, TenantBase
from tenants import citus, migrate, naming
from tenants.provisioning import provision_hospital_tenant
from tests.citus.conftest import cluster
from tests.factories import auth, doctor_payload, hospital_payload, signup


def _autocommit() -> Any:
    return get_engine().connect().execution_options(isolation_level="AUTOCOMMIT")


def test_the_tenant_tree_migrates_many_distributed_schemas() -> None:
    engine = get_engine()
    schemas = [naming.new_hospital_schema() for _ in range(8)]
    with engine.begin() as conn:
        for schema in schemas:
            citus.create_schema(conn, schema)
    started = time.perf_counter()
    results = migrate.upgrade_tenant_schemas(engine, schemas, jobs=2)
    seconds = time.perf_counter() - started
    assert migrate.failed(results) == [], migrate.failed(results)
    head = migrate.tenant_scripts().get_current_head()
    with engine.connect() as conn:
        assert {migrate.tenant_revision(conn, s) for s in schemas} == {head}
        placements = citus.schema_placements(conn)
        kinds = Counter(
            conn.execute(
                text(
                    "SELECT citus_table_type FROM public.citus_tables"
                    " WHERE split_part(table_name::text, '.', 1) = ANY(:s)"
                ),
                {"s": schemas},
            ).scalars()
        )
    # Every table the revisions made (the models' and alembic_version) is a tenant table of its
    # schema, on a worker.
    tables = len(TenantBase.metadata.tables) + 1
    assert set(kinds) == {"schema"} and kinds["schema"] == tables * len(schemas)
    assert {placements[s] for s in schemas} == {engine.url.port + 1, engine.url.port + 2}  # type: ignore[operator]
    print(f"migrated {len(schemas)} distributed schemas to {head} in {seconds:.2f}s")


@pytest.fixture
def unlimited_gold() -> Iterator[None]:
    """Hospital Gold without its doctor cap, so a load can add doctors for as long as it runs."""
    with session_scope() as s:
        plan = s.scalar(select(Plan).where(Plan.code == "hospital-gold"))
        assert plan is not None
        cap, plan.max_doctors = plan.max_doctors, None
    yield
    with session_scope() as s:
        plan = s.scalar(select(Plan).where(Plan.code == "hospital-gold"))
        assert plan is not None
        plan.max_doctors = cap


def test_a_hospital_moves_to_the_other_worker_while_it_works(
    app: Any, client: Any, unlimited_gold: None
) -> None:
    h = signup(client, hospital_payload())
    account_id = uuid.UUID(h["user"]["_id"])
    with session_scope() as s:
        gold = s.scalar(select(Plan.id).where(Plan.code == "hospital-gold"))
        s.add(Subscription(account_id=account_id, plan_id=gold, status="active", billing_cycle="monthly"))
        schema = s.execute(
            text("SELECT schema_name FROM platform.tenants WHERE kind = 'hospital'")
        ).scalar_one()
    engine: Engine = get_engine()
    with engine.connect() as conn:
        before = citus.schema_placements(conn)[schema]
    target = engine.url.port + 1 if before == engine.url.port + 2 else engine.url.port + 2  # type: ignore[operator]

    statuses: Counter[int] = Counter()
    written: list[str] = []
    stop = threading.Event()

    def load() -> None:
        with TestClient(app) as c:
            while not stop.is_set():
                body = doctor_payload(isHospitalCreated=True)
                r = c.post("/api/auth/signup", json=body, headers=auth(h["token"]))
                statuses[r.status_code] += 1
                if r.status_code == 201:
                    written.append(body["email"])
                r = c.get("/api/doctors", headers=auth(h["token"]))
                statuses[r.status_code] += 1

    worker = threading.Thread(target=load)
    worker.start()
    try:
        time.sleep(1.0)
        with _autocommit() as conn:
            started = time.perf_counter()
            citus.move_schema(conn, schema, "127.0.0.1", target)
            moved_in = time.perf_counter() - started
        time.sleep(1.0)
    finally:
        stop.set()
        worker.join(timeout=60)
    with engine.connect() as conn:
        after = citus.schema_placements(conn)[schema]
        rows = conn.execute(text(f'SELECT count(*) FROM "{schema}".doctors')).scalar_one()
        accounts = conn.execute(
            text("SELECT count(*) FROM platform.accounts WHERE email = ANY(:e)"), {"e": written}
        ).scalar_one()
    failed = sum(n for code, n in statuses.items() if code >= 400)
    print(
        f"moved {schema} {before} -> {after} in {moved_in:.2f}s under load: "
        f"{sum(statuses.values())} requests, {failed} failed, {len(written)} writes, {rows} rows"
    )
    assert after == target != before
    assert failed == 0, statuses
    assert len(written) > 5, "the load did not run during the move"
    assert rows == len(written) and accounts == len(written), "writes were lost"


def test_a_third_worker_takes_its_share_after_a_rebalance(on_citus: Any) -> None:
    engine = get_engine()
    with session_scope() as s:
        for _ in range(12):
            provision_hospital_tenant(s)
    # Registered in this database only: other runs' databases on the cluster are left alone.
    cluster("add-worker", on_citus.name)
    third = engine.url.port + 3  # type: ignore[operator]
    try:
        with _autocommit() as conn:
            conn.execute(text("SELECT citus_rebalance_start(shard_transfer_mode => 'block_writes')"))
            conn.execute(text("SELECT citus_rebalance_wait()"))
            spread = Counter(citus.schema_placements(conn).values())
        print(f"after rebalancing onto a third worker: {dict(sorted(spread.items()))}")
        assert set(spread) == {third - 2, third - 1, third}
        assert min(spread.values()) >= 3
    finally:
        cluster("remove-worker")
