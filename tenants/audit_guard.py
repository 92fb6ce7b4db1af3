"""The tenant audit log is append-only: a trigger refuses UPDATE and DELETE.

Installed by tenant revision t0003 on existing schemas and by
`provisioning.create_tenant_schema` on new ones (which skips the revisions).
TRUNCATE, an owner-level operation, stays possible for operators.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

from tenants import naming


def install(connection: Connection, schema: str) -> None:
    naming.checked(schema)
    connection.execute(
        text(
            f"""
            CREATE FUNCTION "{schema}".refuse_audit_change() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
            END;
            $$
            """
        )
    )
    connection.execute(
        text(
            f"""
            CREATE TRIGGER audit_events_append_only
            BEFORE UPDATE OR DELETE ON "{schema}".audit_events
            FOR EACH ROW EXECUTE FUNCTION "{schema}".refuse_audit_change()
            """
        )
    )


def remove(connection: Connection, schema: str) -> None:
    naming.checked(schema)
    connection.execute(text(f'DROP TRIGGER IF EXISTS audit_events_append_only ON "{schema}".audit_events'))
    connection.execute(text(f'DROP FUNCTION IF EXISTS "{schema}".refuse_audit_change()'))
