"""Platform revision p0009: the admin console's list indexes, added and taken away again."""

from __future__ import annotations

from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy import Connection, text

from cara.kit.db import get_engine
from tenants import migrate

PREVIOUS = "p0008"
INDEXES = {
    ("hospitals", "ix_hospitals_name"),
    ("hospitals", "ix_hospitals_email"),
    ("hospitals", "ix_hospitals_state"),
    ("hospitals", "ix_hospitals_created"),
    ("hospitals", "ix_hospitals_verified_created"),
    ("accounts", "ix_accounts_doctors_created"),
    ("accounts", "ix_accounts_doctors_name"),
    ("payments", "ix_payments_date"),
    ("payments", "ix_payments_status_date"),
    ("audit_events", "ix_audit_events_created"),
}


def _indexes(conn: Connection) -> set[tuple[str, str]]:
    names = [n for _, n in INDEXES]
    rows = conn.execute(
        text(
            "SELECT tablename, indexname FROM pg_indexes"
            " WHERE schemaname = 'platform' AND indexname = ANY(:n)"
        ),
        {"n": names},
    ).all()
    return {(t, n) for t, n in rows}


def _migrate(conn: Connection, target: str, *, down: bool) -> None:
    """`alembic upgrade` / `downgrade` of the platform schema on `conn` (tenants.migrate only upgrades)."""
    script = migrate.script_directory(str(migrate.PLATFORM_SCRIPTS))
    ctx = MigrationContext.configure(
        connection=conn,
        opts={
            "script": script,
            "fn": lambda rev, context: (script._downgrade_revs if down else script._upgrade_revs)(
                target, rev
            ),
            "version_table_schema": "platform",
            "transactional_ddl": True,
        },
    )
    with Operations.context(ctx):
        ctx.run_migrations()


def test_the_revision_adds_the_indexes_and_its_downgrade_removes_them() -> None:
    with get_engine().connect() as conn, conn.begin() as outer:
        assert _indexes(conn) == INDEXES
        _migrate(conn, PREVIOUS, down=True)
        assert _indexes(conn) == set()
        _migrate(conn, "head", down=False)
        assert _indexes(conn) == INDEXES
        outer.rollback()  # DDL is transactional: the test database is left as it was
