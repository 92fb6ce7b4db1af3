"""admin list pages: the console's lists indexed by the orders and filters it pages them in

Revision ID: p0009
Revises: p0008
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "p0009"
down_revision: str | None = "p0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_DOCTORS = sa.text("role = 'doctor'")
_PAID = sa.text("coalesce(paid_at, created_at)")


def upgrade() -> None:
    for name, columns in (
        ("ix_hospitals_name", ["name", "id"]),
        ("ix_hospitals_email", ["email", "id"]),
        ("ix_hospitals_state", ["state", "id"]),
        ("ix_hospitals_created", ["created_at", "id"]),
        ("ix_hospitals_verified_created", ["is_verified", "created_at", "id"]),
    ):
        op.create_index(name, "hospitals", columns, schema="platform")
    op.create_index(
        "ix_accounts_doctors_created",
        "accounts",
        ["created_at", "id"],
        schema="platform",
        postgresql_where=_DOCTORS,
    )
    op.create_index(
        "ix_accounts_doctors_name", "accounts", ["name", "id"], schema="platform", postgresql_where=_DOCTORS
    )
    # The date's columns included: an expression index is read alone only when they are in it.
    for name, columns in (
        ("ix_payments_date", [_PAID, "id"]),
        ("ix_payments_status_date", ["status", _PAID, "id"]),
    ):
        op.create_index(
            name, "payments", columns, schema="platform", postgresql_include=["paid_at", "created_at"]
        )
    op.create_index("ix_audit_events_created", "audit_events", ["created_at", "id"], schema="platform")


def downgrade() -> None:
    op.drop_index("ix_audit_events_created", table_name="audit_events", schema="platform")
    op.drop_index("ix_payments_status_date", table_name="payments", schema="platform")
    op.drop_index("ix_payments_date", table_name="payments", schema="platform")
    op.drop_index("ix_accounts_doctors_name", table_name="accounts", schema="platform")
    op.drop_index("ix_accounts_doctors_created", table_name="accounts", schema="platform")
    for name in (
        "ix_hospitals_verified_created",
        "ix_hospitals_created",
        "ix_hospitals_state",
        "ix_hospitals_email",
        "ix_hospitals_name",
    ):
        op.drop_index(name, table_name="hospitals", schema="platform")
