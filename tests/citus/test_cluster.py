"""Provisioning on the cluster: distributed schemas spread over the workers, reference tables,
tenant roles that reach the workers."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select, text

from cara.kit.db import get_engine, restrict_to_tenant_role, tenant_session
from cara.models import DoctorProfile
from tenants import citus
from tenants.roles import role_for
from tests.factories import add_staff, doctor_payload, hospital_payload, signup


def _placements() -> dict[str, set[int]]:
    with get_engine().connect() as conn:
        rows = conn.execute(
            text(
                "SELECT split_part(table_name::text, '.', 1), nodeport FROM pg_catalog.citus_shards"
                " WHERE citus_table_type = 'schema'"
            )
        ).all()
    out: dict[str, set[int]] = {}
    for schema, port in rows:
        out.setdefault(schema, set()).add(int(port))
    return out


def test_each_hospital_is_a_distributed_schema_placed_whole_on_one_worker(client: Any, on_citus: Any) -> None:
    schemas = []
    for i in range(4):
        h = signup(client, hospital_payload(name=f"Ward {i} Hospital"))
        add_staff(client, doctor_payload(), h["token"])
    with get_engine().connect() as conn:
        schemas = list(
            conn.execute(text("SELECT schema_name FROM platform.tenants ORDER BY schema_name")).scalars()
        )
        distributed = set(conn.execute(text("SELECT schema_name::text FROM public.citus_schemas")).scalars())
    assert len(schemas) == 5 and "independent" in schemas
    assert set(schemas) <= distributed
    placements = _placements()
    workers = {on_citus.port + 1, on_citus.port + 2}
    for schema in schemas:
        assert len(placements[schema]) == 1, f"{schema} is split over {placements[schema]}"
        assert placements[schema] <= workers
    # Five schemas, two workers: the cluster uses both.
    assert {p for s in schemas for p in placements[s]} == workers


def test_platform_tables_that_tenants_refer_to_are_reference_tables() -> None:
    with get_engine().connect() as conn:
        kinds = dict(
            conn.execute(
                text(
                    "SELECT table_name::text, citus_table_type FROM public.citus_tables"
                    " WHERE table_name::text LIKE 'platform.%'"
                )
            ).all()
        )
    assert citus.reference_tables() == ["platform.tenants", "platform.hospitals", "platform.accounts"]
    for table in citus.reference_tables():
        assert kinds[table] == "reference"
    # Platform tables with keys into the reference tables stay on the coordinator.
    assert kinds["platform.subscriptions"] == "local"


def test_a_tenant_role_reads_its_schema_on_its_worker(client: Any) -> None:
    h = signup(client, hospital_payload())
    add_staff(client, doctor_payload(), h["token"])
    with get_engine().connect() as conn:
        schema = conn.execute(
            text("SELECT schema_name FROM platform.tenants WHERE kind = 'hospital'")
        ).scalar_one()
        assert citus.schema_node(conn, schema)[1] != get_engine().url.port
    with tenant_session(schema) as s:
        restrict_to_tenant_role(s, role_for(str(get_engine().url.database), schema))
        assert s.scalar(select(func.count()).select_from(DoctorProfile)) == 1


def test_coordinator_sessions_keep_no_idle_connections_per_tenant_role() -> None:
    """Citus caches worker connections per user: with one role per hospital that would be one
    idle connection per pooled backend and hospital on each worker."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    fresh = create_engine(get_engine().url, poolclass=NullPool)
    try:
        with fresh.connect() as conn:
            assert conn.execute(text("SHOW citus.max_cached_conns_per_worker")).scalar_one() == "0"
    finally:
        fresh.dispose()
