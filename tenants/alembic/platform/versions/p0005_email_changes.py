"""email changes: a sign-in email change undoable from the old address, or confirmed by the new

Revision ID: p0005
Revises: p0004
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "p0005"
down_revision: str | None = "p0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "email_changes",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("account_id", sa.UUID(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("old_email", sa.String(length=254), nullable=False),
        sa.Column("new_email", sa.String(length=254), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["platform.accounts.id"],
            name=op.f("fk_email_changes_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_email_changes")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_email_changes_token_hash")),
        schema="platform",
    )
    op.create_index(
        op.f("ix_platform_email_changes_account_id"),
        "email_changes",
        ["account_id"],
        unique=False,
        schema="platform",
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_platform_email_changes_account_id"), table_name="email_changes", schema="platform")
    op.drop_table("email_changes", schema="platform")
