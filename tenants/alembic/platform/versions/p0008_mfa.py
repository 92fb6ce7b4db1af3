"""two-factor sign-in: encrypted TOTP secrets, one-time recovery codes, a hospital's policy

Revision ID: p0008
Revises: p0007
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "p0008"
down_revision: str | None = "p0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("accounts", sa.Column("mfa_secret", sa.Text(), nullable=True), schema="platform")
    op.add_column("accounts", sa.Column("mfa_pending_secret", sa.Text(), nullable=True), schema="platform")
    op.add_column(
        "accounts", sa.Column("mfa_enabled_at", sa.DateTime(timezone=True), nullable=True), schema="platform"
    )
    op.add_column("accounts", sa.Column("mfa_last_step", sa.BigInteger(), nullable=True), schema="platform")
    op.add_column(
        "hospitals",
        sa.Column("require_doctor_mfa", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        schema="platform",
    )
    op.create_table(
        "mfa_recovery_codes",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("account_id", sa.UUID(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["platform.accounts.id"],
            name=op.f("fk_mfa_recovery_codes_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mfa_recovery_codes")),
        schema="platform",
    )
    op.create_index(
        op.f("ix_platform_mfa_recovery_codes_account_id"),
        "mfa_recovery_codes",
        ["account_id"],
        unique=False,
        schema="platform",
    )


def downgrade() -> None:
    op.drop_index(
        op.f("ix_platform_mfa_recovery_codes_account_id"), table_name="mfa_recovery_codes", schema="platform"
    )
    op.drop_table("mfa_recovery_codes", schema="platform")
    op.drop_column("hospitals", "require_doctor_mfa", schema="platform")
    for column in ("mfa_last_step", "mfa_enabled_at", "mfa_pending_secret", "mfa_secret"):
        op.drop_column("accounts", column, schema="platform")
