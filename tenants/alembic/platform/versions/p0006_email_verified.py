"""email verified: when an account's owner proved its email (hospitals, by the mailed link)

Revision ID: p0006
Revises: p0005
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "p0006"
down_revision: str | None = "p0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "accounts",
        sa.Column("email_verified_at", sa.DateTime(timezone=True), nullable=True),
        schema="platform",
    )
    # Accounts made before verification existed are taken as verified.
    op.execute("UPDATE platform.accounts SET email_verified_at = created_at")


def downgrade() -> None:
    op.drop_column("accounts", "email_verified_at", schema="platform")
