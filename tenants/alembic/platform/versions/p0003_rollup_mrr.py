"""period rollups: monthly recurring revenue and revenue with annual plans spread over their year

Revision ID: p0003
Revises: p0002
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "p0003"
down_revision: str | None = "p0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    for column in ("mrr_cents", "recognised_cents"):
        op.add_column(
            "period_rollups",
            sa.Column(column, sa.BigInteger(), nullable=False, server_default="0"),
            schema="platform",
        )
        op.alter_column("period_rollups", column, server_default=None, schema="platform")


def downgrade() -> None:
    for column in ("recognised_cents", "mrr_cents"):
        op.drop_column("period_rollups", column, schema="platform")
