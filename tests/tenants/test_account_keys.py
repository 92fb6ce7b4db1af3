"""No foreign key from a tenant schema into platform.accounts (tenant revision t0008).

Each such key put two triggers per hospital on platform.accounts: a new hospital rebuilt that
table's trigger list under a lock holding up account writes, and deleting one account cascaded
into (and locked) every hospital's tables. A hospital's schema refers to accounts by id only.
"""

from __future__ import annotations

from typing import Any

from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy import Connection, text

from cara.kit.db import get_engine
from tenants import migrate
from tenants.provisioning import create_tenant_schema
from tests.factories import hospital_payload, signup

PREVIOUS = "t0007"  # the last revision with the keys
KEYS = {
    ("certificate_files", "fk_certificate_files_account_id_accounts"),
    ("consultations", "fk_consultations_doctor_account_id_accounts"),
    ("doctors", "fk_doctors_account_id_accounts"),
    ("recording_uploads", "fk_recording_uploads_doctor_account_id_accounts"),
}


def _keys_into_platform(conn: Connection, schema: str) -> set[tuple[str, str]]:
    rows = conn.execute(
        text(
            "SELECT cl.relname, c.conname FROM pg_constraint c"
            " JOIN pg_class cl ON cl.oid = c.conrelid"
            " WHERE c.contype = 'f' AND cl.relnamespace = CAST(:s AS regnamespace)"
            " AND c.confrelid IN (SELECT oid FROM pg_class"
            "  WHERE relnamespace = CAST('platform' AS regnamespace))"
        ),
        {"s": schema},
    ).all()
    return {(t, n) for t, n in rows}


def _account_triggers(conn: Connection) -> int:
    return int(
        conn.execute(
            text("SELECT count(*) FROM pg_trigger WHERE tgrelid = CAST('platform.accounts' AS regclass)")
        ).scalar_one()
    )


def _downgrade(conn: Connection, schema: str, target: str) -> None:
    """What `alembic downgrade` does for one tenant schema (tenants.migrate only upgrades)."""
    conn.execute(text(f'SET LOCAL search_path TO "{schema}"'))
    script = migrate.tenant_scripts()
    ctx = MigrationContext.configure(
        connection=conn.execution_options(schema_translate_map={None: schema}),
        opts={
            "script": script,
            "fn": lambda rev, context: script._downgrade_revs(target, rev),
            "version_table_schema": schema,
            "transactional_ddl": True,
        },
    )
    with Operations.context(ctx):
        ctx.run_migrations()


def test_a_new_hospital_adds_no_trigger_to_accounts(client: Any) -> None:
    with get_engine().connect() as conn:
        before = _account_triggers(conn)
    for _ in range(2):
        signup(client, hospital_payload())
    with get_engine().connect() as conn:
        assert _account_triggers(conn) == before
        schemas = conn.execute(
            text("SELECT schema_name FROM platform.tenants WHERE kind = 'hospital'")
        ).scalars()
        for schema in schemas:
            assert _keys_into_platform(conn, schema) == set()


def test_the_migration_drops_the_keys_and_its_downgrade_restores_them() -> None:
    schema = "hospital_00000000f00c"
    with get_engine().begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        migrate.upgrade_tenant_schema(conn, schema, target=PREVIOUS)
        assert _keys_into_platform(conn, schema) == KEYS
        triggers_with_keys = _account_triggers(conn)

    with get_engine().begin() as conn:
        migrate.upgrade_tenant_schema(conn, schema)
        assert _keys_into_platform(conn, schema) == set()
        assert migrate.tenant_revision(conn, schema) == migrate.tenant_scripts().get_current_head()
        assert _account_triggers(conn) == triggers_with_keys - 2 * len(KEYS)

    with get_engine().begin() as conn:
        _downgrade(conn, schema, PREVIOUS)
        assert _keys_into_platform(conn, schema) == KEYS
        assert migrate.tenant_revision(conn, schema) == PREVIOUS
        assert _account_triggers(conn) == triggers_with_keys
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


def test_a_schema_seeded_without_the_keys_migrates_too() -> None:
    # The benchmarks' bare copies of a hospital schema never had them (ops/bench/foundation.py).
    schema = "hospital_00000000f00d"
    with get_engine().begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        migrate.upgrade_tenant_schema(conn, schema, target=PREVIOUS)
        for table, name in KEYS:
            conn.execute(text(f'ALTER TABLE "{schema}".{table} DROP CONSTRAINT {name}'))
    with get_engine().begin() as conn:
        migrate.upgrade_tenant_schema(conn, schema)
        assert migrate.tenant_revision(conn, schema) == migrate.tenant_scripts().get_current_head()
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


def test_provisioned_and_migrated_schemas_have_the_same_keys() -> None:
    with get_engine().begin() as conn:
        create_tenant_schema(conn, "hospital_00000000f00e")
        conn.execute(text('CREATE SCHEMA "hospital_00000000f00f"'))
        migrate.upgrade_tenant_schema(conn, "hospital_00000000f00f")
        keys = [
            [
                (table, name, definition.replace(f"{schema}.", ""))  # the other schema's name
                for table, name, definition in conn.execute(
                    text(
                        "SELECT cl.relname, c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c"
                        " JOIN pg_class cl ON cl.oid = c.conrelid"
                        " WHERE c.contype = 'f' AND cl.relnamespace = CAST(:s AS regnamespace)"
                        " ORDER BY 1, 2"
                    ),
                    {"s": schema},
                ).all()
            ]
            for schema in ("hospital_00000000f00e", "hospital_00000000f00f")
        ]
        assert keys[0] == keys[1]
        assert keys[0], "the in-schema keys (transcript lines -> consultations, ...) are there"
        conn.execute(text('DROP SCHEMA "hospital_00000000f00e" CASCADE'))
        conn.execute(text('DROP SCHEMA "hospital_00000000f00f" CASCADE'))
