"""OpenAPI helpers: the error shape declared on every route that can fail."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

_DESCRIPTIONS = {
    400: "Malformed request",
    401: "Not signed in, or the token is no longer valid",
    403: "Signed in but not allowed",
    404: "Not found (or not yours)",
    409: "Conflicts with existing data",
    413: "Request body too large",
    422: "Validation failed; `fields` maps each field to its message",
    429: "Too many attempts",
    503: "A dependency is unavailable",
}


class ErrorOut(BaseModel):
    message: str
    fields: dict[str, str] = Field(default_factory=dict)


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorOut, "description": _DESCRIPTIONS.get(code, "Error")} for code in codes}
