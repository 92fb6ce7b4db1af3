"""How each operation of the OpenAPI document is signed in to (its `security`), and the schemes.

The principal dependencies (cara.auth.principal) read the bearer header themselves rather than
through FastAPI's security classes, so FastAPI cannot see them: this walks each route's
dependencies and declares what it finds. Without it the document says every operation is
public, Swagger UI offers no Authorize button and generated clients cannot model the token.

- `bearerAuth`: the access token (`Authorization: Bearer <JWT>`), on every operation whose
  dependencies include the principal check; optional where a token is only read if sent.
- `webSession` / `adminSession`: the browser apps' refresh cookies, on the one operation that
  reads them (`/api/auth/refresh`, with the `X-Requested-With` header).
- Everything else is declared public (`security: []`), so that a reader can tell "public" from
  "not declared" (the Stripe webhook is signed by its own header, checked in its handler).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, iter_route_contexts

from cara.auth.principal import Authenticator, authenticate, authenticate_async, optional_principal
from cara.auth.sessions import COOKIE_NAMES, COOKIE_PATH

BEARER = "bearerAuth"
COOKIE_SCHEMES = {"web": "webSession", "admin": "adminSession"}
# Operations signed in to by a refresh cookie rather than a bearer token.
COOKIE_OPERATIONS = frozenset({"auth_refresh"})

SCHEMES: dict[str, dict[str, Any]] = {
    BEARER: {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": "The access token from sign-in or `/api/auth/refresh`.",
    },
    **{
        scheme: {
            "type": "apiKey",
            "in": "cookie",
            "name": COOKIE_NAMES[app],
            "description": f"The {app} app's refresh cookie (HttpOnly, path {COOKIE_PATH}).",
        }
        for app, scheme in COOKIE_SCHEMES.items()
    },
}


def _calls(dependant: Dependant) -> Iterator[Callable[..., Any] | None]:
    for child in dependant.dependencies:
        yield child.call
        yield from _calls(child)


def route_security(operation_id: str | None, dependant: Dependant | None) -> list[dict[str, list[str]]]:
    """The operation's `security`: bearer where the principal is required, bearer-or-nothing
    where it is optional, the refresh cookies for the refresh route, else public."""
    if operation_id in COOKIE_OPERATIONS:
        return [{scheme: []} for scheme in COOKIE_SCHEMES.values()]
    calls = list(_calls(dependant)) if dependant is not None else []
    required = any(
        isinstance(call, Authenticator) or call in (authenticate, authenticate_async) for call in calls
    )
    if required:
        return [{BEARER: []}]
    if optional_principal in calls:
        return [{BEARER: []}, {}]
    return []


def declare(app: FastAPI, document: dict[str, Any]) -> dict[str, Any]:
    """`document` with the schemes and each operation's security; changed in place."""
    document.setdefault("components", {})["securitySchemes"] = SCHEMES
    paths = document.get("paths", {})
    # The routes as the document was built from them: an included router's routes come with
    # its prefix and its own dependencies (the admin console's two-factor check).
    for route in iter_route_contexts(app.routes):
        if not isinstance(route.original_route, APIRoute) or not route.include_in_schema:
            continue
        item = paths.get(route.path_format)
        if item is None:
            continue
        for method in route.methods or ():
            operation = item.get(method.lower())
            if isinstance(operation, dict):
                operation["security"] = route_security(route.operation_id, route.dependant)
    return document
