"""OpenAPI helpers: the error shape declared on every route that can fail."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, Field

_DESCRIPTIONS = {
    400: "Malformed request",
    401: "Not signed in, or the token is no longer valid",
    403: "Signed in but not allowed",
    404: "Not found (or not yours)",
    409: "Conflicts with existing data",
    413: "Request body too large",
    415: "The content is not of a type this route accepts",
    422: "Validation failed; `fields` maps each field to its message",
    424: "A service the tenant configured (its PACS) refused or did not answer; the message names it",
    429: "Too many attempts",
    503: "A dependency is unavailable",
    507: "A storage quota is reached (nothing stored is lost)",
}


class ErrorOut(BaseModel):
    message: str
    fields: dict[str, str] = Field(default_factory=dict)


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorOut, "description": _DESCRIPTIONS.get(code, "Error")} for code in codes}


def _error_response(code: int) -> dict[str, Any]:
    return {
        "description": _DESCRIPTIONS[code],
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}},
    }


def document_body_errors(document: dict[str, Any]) -> dict[str, Any]:
    """Every operation that takes a body can be refused before its handler runs: 400 for
    a body that is not JSON (or not an object), 413 over the size cap (cara.kit.middleware).
    Declared once here rather than on each route; `document` is changed in place."""
    for item in document.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict) or "requestBody" not in operation:
                continue
            responses = operation.setdefault("responses", {})
            for code in (400, 413):
                responses.setdefault(str(code), _error_response(code))
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault("ErrorOut", ErrorOut.model_json_schema())
    return document


def install(app: FastAPI, *more: Callable[[FastAPI, dict[str, Any]], dict[str, Any]]) -> None:
    """The app's OpenAPI document with the statuses every body-taking route shares, then each of
    `more` in turn (the security each operation is signed in to: cara.auth.openapi_security)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = document_body_errors(build())
            for step in more:
                document = step(app, document)
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
