"""Tenant schema names.

Each hospital gets `hospital_<12 hex>`; every independent doctor shares
`independent`. Names are validated before they reach any DDL, because schema
names cannot be bound as query parameters.
"""

from __future__ import annotations

import re
import uuid

INDEPENDENT_SCHEMA = "independent"
_VALID = re.compile(r"^(hospital_[0-9a-f]{12}|independent)$")


def new_hospital_schema() -> str:
    return f"hospital_{uuid.uuid4().hex[:12]}"


def is_valid_schema(name: str) -> bool:
    return bool(_VALID.match(name))


def checked(name: str) -> str:
    """Return `name` if it is a tenant schema name, else raise ValueError."""
    if not is_valid_schema(name):
        raise ValueError(f"not a tenant schema name: {name!r}")
    return name
