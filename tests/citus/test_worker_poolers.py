"""A PgBouncer beside each worker (ops/citus/cluster poolers, `pg_dist_poolinfo`): the coordinator's
worker connections go through it, tenant roles still log in to the worker as themselves (so the
worker refuses another hospital's schema), and Cara's database caches one worker connection per
worker and role then (the coordinator's count of worker connections being off), none without."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import ProgrammingError
from sqlalchemy.pool import NullPool

from cara.kit.db import get_engine, restrict_to_tenant_role, tenant_session
from tenants import citus
from tenants.roles import role_for
from tests.citus.conftest import CitusDatabase, cluster
from tests.factories import add_staff, doctor_payload, hospital_payload, signup


@pytest.fixture(scope="module")
def poolers(on_citus: CitusDatabase) -> Iterator[CitusDatabase]:
    cluster("poolers", on_citus.name)
    try:
        yield on_citus
    finally:
        cluster("no-poolers", on_citus.name)
        with get_engine().begin() as conn:
            assert not citus.limit_worker_connections(conn)  # direct again: nothing cached
        assert _cached(get_engine().url) == "0"


def _cached(url: Any) -> str:
    fresh = create_engine(url, poolclass=NullPool)
    try:
        with fresh.connect() as conn:
            return str(conn.execute(text("SHOW citus.max_cached_conns_per_worker")).scalar_one())
    finally:
        fresh.dispose()


def test_every_worker_is_named_in_poolinfo_and_one_connection_per_role_is_cached(
    poolers: CitusDatabase,
) -> None:
    with get_engine().begin() as conn:
        ports = set(conn.execute(text("SELECT poolinfo FROM pg_dist_poolinfo")).scalars())
        assert len(ports) == 2 and all("port=55" in p for p in ports)
        assert conn.execute(text("SHOW citus.max_shared_pool_size")).scalar_one() == "-1"
        assert citus.limit_worker_connections(conn)  # what the platform migration runs
    assert _cached(get_engine().url) == "1"


def test_tenant_roles_reach_their_worker_through_pgbouncer_and_only_their_schema(
    client: Any, poolers: CitusDatabase
) -> None:
    for name in ("North", "South"):
        h = signup(client, hospital_payload(name=f"{name} Pooled Hospital"))
        add_staff(client, doctor_payload(isHospitalCreated=True), h["token"])
    with get_engine().connect() as conn:
        schemas = list(
            conn.execute(
                text("SELECT schema_name FROM platform.tenants WHERE kind = 'hospital' ORDER BY created_at")
            ).scalars()
        )
    own, other = schemas
    for _ in range(3):  # several transactions: cached connections and PgBouncer's pool both used
        with tenant_session(own) as s:
            restrict_to_tenant_role(s, role_for(poolers.name, own))
            assert s.execute(text(f'SELECT count(*) FROM "{own}".doctors')).scalar_one() == 1
            with pytest.raises(ProgrammingError, match="permission denied"):
                s.execute(text(f'SELECT count(*) FROM "{other}".doctors'))
