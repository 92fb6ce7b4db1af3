"""session families: the browser apps' rotating refresh tokens (HttpOnly cookie)

Revision ID: p0007
Revises: p0006
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "p0007"
down_revision: str | None = "p0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "session_families",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("account_id", sa.UUID(), nullable=False),
        sa.Column("app", sa.String(length=8), nullable=False),
        sa.Column("current_hash", sa.String(length=64), nullable=False),
        sa.Column("previous_hash", sa.String(length=64), nullable=True),
        sa.Column("rotated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["platform.accounts.id"],
            name=op.f("fk_session_families_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_session_families")),
        schema="platform",
    )
    op.create_index(
        op.f("ix_platform_session_families_account_id"),
        "session_families",
        ["account_id"],
        unique=False,
        schema="platform",
    )


def downgrade() -> None:
    op.drop_index(
        op.f("ix_platform_session_families_account_id"), table_name="session_families", schema="platform"
    )
    op.drop_table("session_families", schema="platform")
