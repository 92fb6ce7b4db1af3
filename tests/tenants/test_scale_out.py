"""The scale-out rules of docs/scale-out.md, checked against a real database.

Citus schema-based sharding accepts foreign keys from a tenant schema only into the same schema
or into reference tables, and none into a tenant schema from outside. These tests read every
foreign key of a database holding two hospitals and the independent tenant, and hold the
"Reference tables" list of the document to what tenant tables actually refer to.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from cara.kit.db import get_engine
from cara.models.tenant import REFERENCES, account_columns
from tenants import citus
from tests.factories import add_staff, doctor_payload, hospital_payload, signup

DOC = Path(__file__).resolve().parents[2] / "docs" / "scale-out.md"
_ITEM = re.compile(r"^- (platform\.[a-z_]+)\b")

ForeignKey = tuple[str, str, str, str]  # (schema, table, referenced schema, referenced table)


def documented_reference_tables() -> set[str]:
    """The `- platform.<table>` items under the document's `## Reference tables` heading."""
    items: set[str] = set()
    inside = False
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            inside = line.strip() == "## Reference tables"
            continue
        match = _ITEM.match(line) if inside else None
        if match:
            items.add(match.group(1))
    return items


@pytest.fixture
def database(client: Any) -> Iterator[dict[str, Any]]:
    """Two hospitals, each with a doctor, next to the independent tenant (and one of its doctors)."""
    for name in ("North", "South"):
        h = signup(client, hospital_payload(name=f"{name} Hospital"))
        add_staff(client, doctor_payload(), h["token"])
    signup(client, doctor_payload())
    with get_engine().connect() as conn:
        tenants = set(conn.execute(text("SELECT schema_name FROM platform.tenants")).scalars())
        keys: list[ForeignKey] = [
            (src, src_table, dst, dst_table)
            for src, src_table, dst, dst_table in conn.execute(
                text(
                    """
                    SELECT src.nspname, sc.relname, dst.nspname, dc.relname
                    FROM pg_constraint c
                    JOIN pg_class sc ON sc.oid = c.conrelid
                    JOIN pg_namespace src ON src.oid = sc.relnamespace
                    JOIN pg_class dc ON dc.oid = c.confrelid
                    JOIN pg_namespace dst ON dst.oid = dc.relnamespace
                    WHERE c.contype = 'f'
                    """
                )
            ).all()
        ]
    assert len(tenants) == 3 and "independent" in tenants
    yield {"tenants": tenants, "keys": keys}


def test_no_foreign_key_between_two_tenant_schemas(database: dict[str, Any]) -> None:
    tenants = database["tenants"]
    from_tenants = [k for k in database["keys"] if k[0] in tenants]
    assert from_tenants, "tenant tables reference something; the query found none"
    crossing = [k for k in from_tenants if k[2] != k[0] and k[2] != "platform"]
    assert crossing == []


def test_no_foreign_key_from_platform_into_a_tenant_schema(database: dict[str, Any]) -> None:
    into_tenants = [k for k in database["keys"] if k[0] == "platform" and k[2] != "platform"]
    assert into_tenants == []


def test_reference_tables_are_the_documented_ones(database: dict[str, Any]) -> None:
    tenants = database["tenants"]
    platform_keys = [k for k in database["keys"] if k[0] == "platform" and k[2] == "platform"]
    # What tenant tables refer to: their keys into platform (none since tenant revision t0008) and
    # the columns that hold an account id without a key, which the tenants' queries join with.
    referenced = {k[3] for k in database["keys"] if k[0] in tenants and k[2] == "platform"}
    referenced |= {c.info[REFERENCES].split(".")[1] for c in account_columns()}
    # A reference table's own keys must point at reference tables too: follow them.
    needed, frontier = set(referenced), set(referenced)
    while frontier:
        frontier = {dst for _, src, _, dst in platform_keys if src in frontier and src != dst} - needed
        needed |= frontier
    documented = documented_reference_tables()
    assert documented, f"no '- platform.<table>' items under '## Reference tables' in {DOC}"
    assert {f"platform.{t}" for t in needed} == documented, (
        "docs/scale-out.md's reference-table list differs from what tenant tables refer to"
    )
    assert set(citus.reference_tables()) == documented
