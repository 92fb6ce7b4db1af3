"""Turning every failure into the one error shape {"message", "fields"}.

A database or Redis that cannot be reached (an outage, a failover in
progress) is a 503 with Retry-After, so clients and load balancers see a
temporary condition, not a bug. Other unexpected exceptions become a 500 with
a generic text; their details go to the log (with the request id), never to
the client.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import psycopg
import redis
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException as StarletteHTTPException

from cara.kit.errors import CaraError, TooManyRequests
from cara.kit.headers import security_headers

log = logging.getLogger("cara.errors")

_TYPE_MESSAGES = {
    "int_parsing": "Must be a whole number",
    "int_type": "Must be a whole number",
    "int_from_float": "Must be a whole number",
    "bool_parsing": "Must be true or false",
    "bool_type": "Must be true or false",
    "string_type": "Must be text",
    "string_too_long": "Is too long",
    "list_type": "Must be a list",
    "dict_type": "Must be an object",
    "model_attributes_type": "Must be an object",
    "missing": "Is required",
    "uuid_parsing": "Must be a valid id",
    "literal_error": "Is not an accepted value",
    "value_error": "Contains characters that are not allowed",
}


def error_body(message: str, fields: dict[str, str] | None = None) -> dict[str, Any]:
    return {"message": message, "fields": fields or {}}


def _field_name(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


async def _cara_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, CaraError)
    headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, TooManyRequests) else None
    return JSONResponse(error_body(exc.message, exc.fields), status_code=exc.status_code, headers=headers)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        return JSONResponse(error_body("Malformed JSON in request body."), status_code=400)
    if any(tuple(e.get("loc", ())) == ("body",) for e in errors):
        return JSONResponse(error_body("Request body must be a JSON object."), status_code=400)
    fields: dict[str, str] = {}
    for e in errors:
        name = _field_name(tuple(e.get("loc", ())))
        fields.setdefault(name, _TYPE_MESSAGES.get(str(e.get("type")), "Invalid value"))
    return JSONResponse(error_body("Please fix the errors in the form", fields), status_code=422)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    texts = {404: "Not found.", 405: "Method not allowed."}
    message = texts.get(exc.status_code) or (exc.detail if isinstance(exc.detail, str) else "Request failed.")
    headers = exc.headers
    if exc.status_code == 405:
        allowed = documented_methods(request)
        if allowed:
            headers = {**(headers or {}), "Allow": ", ".join(allowed)}
    return JSONResponse(error_body(message), status_code=exc.status_code, headers=headers)


def documented_methods(request: Request) -> list[str]:
    """The methods the OpenAPI document lists for this request's path, for the Allow header of
    a 405. Starlette names only the first route that matched the path, though several routes
    (one per method) share it. Where templates overlap (`/x/settings`, `/x/{id}`), the one
    with the fewest parameters is the path's."""
    app = request.app
    patterns: list[tuple[int, re.Pattern[str], list[str]]] | None = getattr(app.state, "allow_patterns", None)
    if patterns is None:
        patterns = []
        for template, item in app.openapi().get("paths", {}).items():
            regex = re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(template))
            methods = sorted(m.upper() for m in item if m in _HTTP_METHODS)
            patterns.append((template.count("{"), re.compile(regex + "/?"), methods))
        patterns.sort(key=lambda row: row[0])
        app.state.allow_patterns = patterns
    path = request.url.path
    for _, pattern, methods in patterns:
        if pattern.fullmatch(path):
            return methods
    return []


_HTTP_METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}


UNAVAILABLE = "Service temporarily unavailable. Please try again shortly."


async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
    log.warning(
        "dependency unavailable", extra={"error": type(exc).__name__, "path_template": _route(request)}
    )
    return JSONResponse(error_body(UNAVAILABLE), status_code=503, headers={"Retry-After": "5"})


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.error("unhandled error", exc_info=exc, extra={"path_template": _route(request)})
    # Starlette answers this one from its outermost middleware, outside SecurityHeaders.
    headers = {k.decode(): v.decode() for k, v in security_headers(request.scope)}
    return JSONResponse(
        error_body("Something went wrong on our side. Please try again."), status_code=500, headers=headers
    )


def _route(request: Request) -> str:
    from cara.kit.middleware import route_template

    return route_template(request.scope)


def install(app: FastAPI) -> None:
    app.add_exception_handler(CaraError, _cara_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    # psycopg's own: the async reads on the event loop (cara.kit.db.async_connection).
    outages = (psycopg.OperationalError, sa_exc.OperationalError, sa_exc.TimeoutError)
    for outage in (*outages, redis.ConnectionError, redis.TimeoutError):
        app.add_exception_handler(outage, _unavailable)
    app.add_exception_handler(Exception, _unexpected)
