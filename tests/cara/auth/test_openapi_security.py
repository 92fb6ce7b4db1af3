"""The OpenAPI document says how each operation is signed in to, and says it truly: every
operation declared to need the bearer token answers 401 without one, and every one declared
public does not ask for one."""

from __future__ import annotations

import re
import uuid
from typing import Any

from cara.auth.principal import NO_TOKEN

BEARER = [{"bearerAuth": []}]


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "responses" in operation
    ]


def _call(client: Any, method: str, path: str) -> Any:
    # Any path parameter: an id nobody has. The principal check runs before parameters and
    # bodies are validated, so the answer is about the token, not the input.
    url = re.sub(r"\{[^}]+\}", str(uuid.uuid4()), path)
    body = {"json": {}} if method in ("post", "put", "patch") else {}
    return client.request(method.upper(), url, headers={"X-Requested-With": "fetch"}, **body)


def test_the_document_declares_its_schemes(client: Any) -> None:
    document = client.get("/api/openapi.json").json()
    schemes = document["components"]["securitySchemes"]
    assert schemes["bearerAuth"] == {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": schemes["bearerAuth"]["description"],
    }
    assert {schemes[s]["name"] for s in ("webSession", "adminSession")} == {
        "cara_session",
        "cara_admin_session",
    }
    assert all(schemes[s]["in"] == "cookie" for s in ("webSession", "adminSession"))
    operations = _operations(document)
    # Every operation says something, even "public".
    assert [f"{m} {p}" for m, p, op in operations if "security" not in op] == []
    assert document["paths"]["/api/auth/refresh"]["post"]["security"] == [
        {"webSession": []},
        {"adminSession": []},
    ]
    assert document["paths"]["/api/auth/login"]["post"]["security"] == []
    assert document["paths"]["/api/auth/user"]["get"]["security"] == BEARER
    assert document["paths"]["/api/auth/signup"]["post"]["security"] == [{"bearerAuth": []}, {}]


def test_what_needs_the_token_refuses_without_it_and_what_is_public_does_not(client: Any) -> None:
    operations = _operations(client.get("/api/openapi.json").json())
    needs = [(m, p) for m, p, op in operations if op["security"] == BEARER]
    public = [(m, p) for m, p, op in operations if op["security"] != BEARER]
    assert len(needs) > 50 and public
    wrong = [f"{m} {p}: {r.status_code}" for m, p in needs if not _asks_for_token(r := _call(client, m, p))]
    assert wrong == []
    # A public operation may refuse bad credentials of its own (a sign-in challenge), never for
    # want of a bearer token.
    asked = [f"{m} {p}" for m, p in public if _asks_for_token(_call(client, m, p))]
    assert asked == []


def _asks_for_token(response: Any) -> bool:
    return response.status_code == 401 and response.json().get("message") == NO_TOKEN
