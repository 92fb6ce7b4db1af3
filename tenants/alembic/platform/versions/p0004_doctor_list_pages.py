"""doctor list pages: a hospital's accounts indexed by name and by creation, for keyset paging

Revision ID: p0004
Revises: p0003
"""

from collections.abc import Sequence

from alembic import op

revision: str = "p0004"
down_revision: str | None = "p0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_accounts_hospital_name", "accounts", ["hospital_id", "name", "id"], schema="platform")
    op.create_index(
        "ix_accounts_hospital_created", "accounts", ["hospital_id", "created_at", "id"], schema="platform"
    )


def downgrade() -> None:
    op.drop_index("ix_accounts_hospital_created", table_name="accounts", schema="platform")
    op.drop_index("ix_accounts_hospital_name", table_name="accounts", schema="platform")
