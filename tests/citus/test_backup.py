"""Per-tenant export, erasure and restore (tests/tenants/test_backup.py), run again on the Citus
cluster: pg_dump reads a distributed schema's rows from its worker through the coordinator, a
restored schema becomes a distributed schema again, and erasure removes it from its worker."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

from cara.kit.db import get_engine

# The round trip and the clean-up after failures, collected again here (the refusals and the
# file-level pieces do not depend on where the schema lives).
from tests.tenants.test_backup import TestNothingLeftBehind, TestRoundTrip, exported, run

__all__ = ["TestNothingLeftBehind", "TestRoundTrip", "exported"]


def test_a_restored_hospital_is_a_distributed_schema_again(capsys: Any, exported: dict[str, Any]) -> None:
    schema, archive = exported["a"]["schema"], exported["a"]["archive"]
    assert run(capsys, "delete", schema, "--confirm", schema)[0] == 0
    with get_engine().connect() as conn:
        assert (
            conn.execute(
                text("SELECT count(*) FROM public.citus_schemas WHERE schema_name::text = :s"), {"s": schema}
            ).scalar_one()
            == 0
        )
    assert run(capsys, "restore", str(archive))[0] == 0
    with get_engine().connect() as conn:
        placed = (
            conn.execute(
                text(
                    "SELECT DISTINCT nodeport FROM pg_catalog.citus_shards"
                    " WHERE citus_table_type = 'schema' AND table_name::text LIKE :p"
                ),
                {"p": f"{schema}.%"},
            )
            .scalars()
            .all()
        )
    assert len(placed) == 1 and placed[0] != get_engine().url.port
