"""certificate files; the audit log becomes append-only

Revision ID: t0003
Revises: t0002
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from tenants import audit_guard

revision: str = "t0003"
down_revision: str | None = "t0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "certificate_files",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("account_id", sa.UUID(), nullable=False),
        sa.Column("file_name", sa.String(length=255), nullable=False),
        sa.Column("content_type", sa.String(length=100), nullable=False),
        sa.Column("size_bytes", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["platform.accounts.id"],
            name=op.f("fk_certificate_files_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_certificate_files")),
    )
    op.create_index("ix_certificate_files_account_id", "certificate_files", ["account_id"], unique=False)

    # Who did what stays written: rows can be added, never changed or removed.
    audit_guard.install(op.get_bind(), op.get_context().version_table_schema)


def downgrade() -> None:
    audit_guard.remove(op.get_bind(), op.get_context().version_table_schema)
    op.drop_index("ix_certificate_files_account_id", table_name="certificate_files")
    op.drop_table("certificate_files")
