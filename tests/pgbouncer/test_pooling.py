"""No tenant setting outlives its transaction on a pooled server connection.

Through PgBouncer in transaction mode, the next transaction on a PostgreSQL backend may belong to
any client: another request, another hospital. Cara's tenant routing is `SET LOCAL ROLE` and
schema-qualified statements (and `SET LOCAL search_path` in the tenant migrations), all of which
end with the transaction; these tests pin that down on one shared backend, and check that the
application never sets anything for the session and prepares no statement on the server.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy import event, select, text
from sqlalchemy.engine import Engine, make_url

from cara.kit.db import VOID_SCHEMA, get_engine, make_engine, restrict_to_tenant_role
from cara.models import Tenant
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup
from tests.pgbouncer.conftest import Bouncer


def _conninfo(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _backend(conn: psycopg.Connection[Any]) -> tuple[int, str, str, str]:
    """(backend pid, current_user, session_user, search_path) as the next transaction sees them."""
    row = conn.execute(
        "SELECT pg_backend_pid(), current_user, session_user, current_setting('search_path')"
    ).fetchone()
    assert row is not None
    return int(row[0]), str(row[1]), str(row[2]), str(row[3])


@pytest.fixture
def hospital(client: Any) -> dict[str, Any]:
    h = signup(client, hospital_payload(name="Pooled Hospital"))
    doctor = add_staff(client, doctor_payload(isHospitalCreated=True), h["token"])
    from cara.kit.db import platform_session

    with platform_session() as s:
        schema = s.scalar(select(Tenant.schema_name).where(Tenant.kind == "hospital"))
    return {"hospital": h, "doctor": doctor, "schema": schema}


def test_the_application_runs_through_pgbouncer(through_pgbouncer: Bouncer) -> None:
    with get_engine().connect() as conn:
        port = conn.execute(text("SELECT inet_server_port()")).scalar_one()
        # PgBouncer's own port is not PostgreSQL's: the engine talks to the pooler.
        assert make_url(str(get_engine().url)).port == through_pgbouncer.port != port
        assert conn.execute(text("SHOW search_path")).scalar_one() == VOID_SCHEMA


def test_set_local_role_ends_with_its_transaction_on_the_shared_backend(
    through_pgbouncer: Bouncer, hospital: dict[str, Any]
) -> None:
    from cara.auth.principal import tenant_role

    role = tenant_role(hospital["schema"])
    single = _conninfo(through_pgbouncer.single_url)
    with (
        psycopg.connect(single, autocommit=True) as first,
        psycopg.connect(single, autocommit=True) as second,
    ):
        with first.transaction():
            first.execute(f'SET LOCAL ROLE "{role}"')
            first.execute(f'SET LOCAL search_path TO "{hospital["schema"]}"')
            pid, current, _, path = _backend(first)
            assert (current, path.strip('"')) == (role, hospital["schema"])
        # Another client, the one server connection of the pool: same backend, nothing left over.
        assert _backend(second) == (pid, through_pgbouncer.user, through_pgbouncer.user, VOID_SCHEMA)
        assert _backend(first) == (pid, through_pgbouncer.user, through_pgbouncer.user, VOID_SCHEMA)


def test_a_tenant_session_leaves_no_role_for_the_next_client(
    through_pgbouncer: Bouncer, hospital: dict[str, Any]
) -> None:
    from sqlalchemy.orm import Session

    from cara.auth.principal import tenant_role

    engine = make_engine(through_pgbouncer.single_url, pool_size=2, transaction_pooling=True)
    try:
        role = tenant_role(hospital["schema"])
        with Session(bind=engine) as tenant:
            restrict_to_tenant_role(tenant, role)
            pid = tenant.execute(text("SELECT pg_backend_pid()")).scalar_one()
            tenant.commit()  # the role is set again for the session's next transaction ...
            assert tenant.execute(text("SELECT current_user")).scalar_one() == role
            tenant.commit()
            # ... and on the same backend, another client sees the login role again.
            with psycopg.connect(_conninfo(through_pgbouncer.single_url), autocommit=True) as other:
                assert _backend(other) == (pid, through_pgbouncer.user, through_pgbouncer.user, VOID_SCHEMA)
    finally:
        engine.dispose()


def test_requests_of_two_hospitals_share_backends_and_stay_apart(
    client: Any, through_pgbouncer: Bouncer
) -> None:
    doctors = {}
    for name in ("A", "B"):
        h = signup(client, hospital_payload(name=f"Hospital {name}"))
        doctors[name] = add_staff(client, doctor_payload(isHospitalCreated=True), h["token"])
    for _ in range(10):  # more requests than the pool has server connections
        for name in ("A", "B"):
            me = client.get("/api/auth/user", headers=auth(doctors[name]["token"]))
            assert me.status_code == 200 and me.json()["hospitalName"] == f"Hospital {name}"
    # Whatever backend a new client lands on after them is back to the login role and void path.
    with psycopg.connect(_conninfo(through_pgbouncer.url), autocommit=True) as conn:
        for _ in range(5):
            _, current, session, path = _backend(conn)
            assert (current, session, path) == (through_pgbouncer.user, through_pgbouncer.user, VOID_SCHEMA)


@pytest.fixture
def statements() -> Iterator[list[str]]:
    seen: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    event.listen(Engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", record)


SESSION_LEVEL = re.compile(r"^\s*(SET\s+(?!LOCAL\b)|RESET\b|DISCARD\b|LISTEN\b|PREPARE\b)", re.IGNORECASE)
SESSION_FUNCTION = re.compile(r"set_config\([^)]*,\s*false\s*\)|pg_advisory_lock\(", re.IGNORECASE)


def test_the_application_sets_nothing_for_the_session(client: Any, statements: list[str]) -> None:
    h = signup(client, hospital_payload(name="Hospital S"))
    doctor = add_staff(client, doctor_payload(isHospitalCreated=True), h["token"])
    for token in (h["token"], doctor["token"]):
        assert client.get("/api/auth/user", headers=auth(token)).status_code == 200
    assert client.get("/api/doctors", headers=auth(h["token"])).status_code == 200
    assert client.post("/api/auth/logout", headers=auth(doctor["token"])).status_code in (200, 204)
    assert statements
    leaky = [s for s in statements if SESSION_LEVEL.search(s) or SESSION_FUNCTION.search(s)]
    assert leaky == []


def test_no_statement_is_prepared_on_the_server() -> None:
    # psycopg prepares a statement after 5 executions by default; through PgBouncer 1.18 the
    # next transaction could run on a backend that never saw it. With DB_TRANSACTION_POOLING
    # it prepares none, so repeating a statement in many transactions just works.
    engine = get_engine()
    for _ in range(20):
        with engine.begin() as conn:
            conn.execute(text("SELECT count(*) FROM platform.plans")).scalar_one()
            prepared = conn.execute(text("SELECT count(*) FROM pg_prepared_statements")).scalar_one()
            assert prepared == 0
