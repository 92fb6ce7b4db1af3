"""pending sign-ups: an anonymous sign-up is kept here until its mailed link is followed

Revision ID: p0011
Revises: p0009
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "p0011"
down_revision: str | None = "p0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "pending_signups",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("form", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("mailed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "role IN ('doctor', 'hospital')", name=op.f("ck_pending_signups_pending_signup_role")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pending_signups")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_pending_signups_token_hash")),
        schema="platform",
    )
    op.create_index(
        op.f("ix_platform_pending_signups_email"),
        "pending_signups",
        ["email"],
        unique=False,
        schema="platform",
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_platform_pending_signups_email"), table_name="pending_signups", schema="platform")
    op.drop_table("pending_signups", schema="platform")
