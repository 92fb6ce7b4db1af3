"""From a token to the request's session and principal: one function from the claims to the
session (tenant or platform), the bearer header read once a request, and the auth modules
free of import cycles."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import grimp
import pytest
from sqlalchemy.orm import Session

from cara.auth import dependencies, principal, tokens
from cara.auth.dependencies import session_for_claims
from cara.auth.principal import session_for_token, tenant_role
from cara.kit.db import get_engine
from tenants.roles import role_for
from tests.factories import auth, doctor_payload, hospital_payload, signup

HOSPITAL = "hospital_0123456789ab"
NO_TOKEN = "No authentication token found"
AUTH_FAILED = "Authentication failed. Please log in again."


def _claims(tenant_schema: str | None, role: str = "hospital") -> tokens.TokenClaims:
    return tokens.TokenClaims(
        account_id=uuid.uuid4(),
        role=role,
        tenant_schema=tenant_schema,
        token_id=uuid.uuid4().hex,
        issued_at_ms=int(time.time() * 1000),
        expires_at=int(time.time()) + 3600,
    )


def _schema_of(session: Session) -> str | None:
    """The tenant schema the session's unqualified tables resolve to (None: a platform session)."""
    try:
        translate = session.get_bind().get_execution_options().get("schema_translate_map")
        return None if translate is None else translate[None]
    finally:
        session.close()


# ---------------------------------------------------------------- claims to session


@pytest.mark.parametrize("schema", [HOSPITAL, "independent"])
def test_claims_naming_a_tenant_schema_give_a_session_bound_to_it(schema: str) -> None:
    assert _schema_of(session_for_claims(_claims(schema))) == schema


def test_no_claims_give_a_platform_session() -> None:
    assert _schema_of(session_for_claims(None)) is None


def test_claims_without_a_tenant_give_a_platform_session() -> None:
    assert _schema_of(session_for_claims(_claims(None, role="admin"))) is None


@pytest.mark.parametrize(
    "schema", ["", "platform", "public", "hospital_0123456789AB", "hospital_0123456789ab; DROP", "cara_void"]
)
def test_claims_naming_no_tenant_schema_give_a_platform_session(schema: str) -> None:
    assert _schema_of(session_for_claims(_claims(schema))) is None


def test_a_platform_session_reaches_the_engine_of_every_request() -> None:
    session = session_for_claims(None)
    try:
        assert session.get_bind() is get_engine()
    finally:
        session.close()


def test_the_live_socket_session_follows_the_token_as_the_request_session_does() -> None:
    token = tokens.issue(account_id=uuid.uuid4(), role="hospital", tenant_schema=HOSPITAL)
    assert _schema_of(session_for_token(token)) == HOSPITAL
    admin = tokens.issue(account_id=uuid.uuid4(), role="admin", tenant_schema=None)
    assert _schema_of(session_for_token(admin)) is None
    assert _schema_of(session_for_token("not.a.jwt")) is None


def test_the_tenant_role_is_the_role_of_the_database_and_schema() -> None:
    assert tenant_role(HOSPITAL) == role_for(str(get_engine().url.database), HOSPITAL)
    with pytest.raises(ValueError):
        tenant_role("platform")


# ---------------------------------------------------------------- the header, once a request


@pytest.fixture
def header_reads(monkeypatch: Any) -> list[str | None]:
    """Each reading of the bearer header, wherever it happens."""
    seen: list[str | None] = []
    read: Callable[[Any], str | None] = dependencies.bearer_token

    def counting(request: Any) -> str | None:
        token = read(request)
        seen.append(token)
        return token

    monkeypatch.setattr(dependencies, "bearer_token", counting)
    monkeypatch.setattr(principal, "bearer_token", counting)
    return seen


def test_a_checked_request_reads_the_header_once(client: Any, header_reads: list[str | None]) -> None:
    token = signup(client, doctor_payload())["token"]
    header_reads.clear()
    assert client.get("/api/auth/mfa", headers=auth(token)).status_code == 200  # the request session
    assert header_reads == [token]
    header_reads.clear()
    assert client.get("/api/auth/user", headers=auth(token)).status_code == 200  # no request session
    assert header_reads == [token]


def test_a_public_request_with_an_optional_principal_reads_the_header_once(
    client: Any, header_reads: list[str | None]
) -> None:
    hospital = signup(client, hospital_payload())
    header_reads.clear()
    # no token: public (202, the account comes from the mailed link)
    assert client.post("/api/auth/signup", json=doctor_payload()).status_code == 202
    assert header_reads == [None]
    header_reads.clear()
    r = client.post("/api/auth/signup", json=doctor_payload(), headers=auth(hospital["token"]))
    assert r.status_code in (201, 403), r.text  # a hospital registering a doctor (verified email or not)
    assert header_reads == [hospital["token"]]


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (None, NO_TOKEN),
        ("Bearer ", NO_TOKEN),
        ("Basic dXNlcjpwYXNz", NO_TOKEN),
        ("Bearer not.a.jwt", AUTH_FAILED),
    ],
)
def test_the_request_session_path_tells_a_missing_token_from_a_bad_one(
    client: Any, header: str | None, message: str
) -> None:
    headers = {} if header is None else {"Authorization": header}
    r = client.get("/api/auth/mfa", headers=headers)
    assert r.status_code == 401
    assert r.json()["message"] == message


def test_an_optional_principal_refuses_a_bad_token_and_admits_none(client: Any) -> None:
    r = client.post("/api/auth/signup", json=doctor_payload(), headers=auth("not.a.jwt"))
    assert r.status_code == 401
    assert r.json()["message"] == AUTH_FAILED
    r = client.post("/api/auth/signup", json=doctor_payload(), headers={"Authorization": "Basic x"})
    assert r.status_code == 202, r.text  # anonymous: the account waits for its mailed link


# ---------------------------------------------------------------- import cycles


def test_no_auth_module_is_on_an_import_cycle() -> None:
    """Counting imports inside functions too: none may hide a cycle."""
    graph = grimp.build_graph("cara", cache_dir=None)
    cycles = []
    for module in sorted(m for m in graph.modules if m == "cara.auth" or m.startswith("cara.auth.")):
        for imported in graph.find_modules_directly_imported_by(module):
            chain = graph.find_shortest_chain(importer=imported, imported=module)
            if chain is not None:
                cycles.append(" -> ".join((module, *chain)))
    assert cycles == []
