"""The base of every JSON request body: unknown keys ignored, no silent coercion,
no NUL characters (PostgreSQL text and jsonb cannot hold them)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    return False


class RequestBody(BaseModel):
    # Unknown keys are ignored (the web app sends a few extra form fields),
    # but strings are not coerced into numbers or booleans silently.
    model_config = ConfigDict(extra="ignore", str_max_length=2000)

    @field_validator("*", mode="before")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        # PostgreSQL text and jsonb cannot hold NUL: refuse it as bad input.
        if _has_nul(value):
            raise ValueError("Must not contain NUL characters")
        return value
