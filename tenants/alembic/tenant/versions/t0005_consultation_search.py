"""consultation search: a text-search document per consultation, with its GIN index and the
partial index of documents that are behind

Revision ID: t0005
Revises: t0004
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "t0005"
down_revision: str | None = "t0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STALE = "search_indexed_at IS NULL OR ended_at IS NULL OR ended_at > search_indexed_at"


def upgrade() -> None:
    op.add_column("consultations", sa.Column("search", postgresql.TSVECTOR(), nullable=True))
    op.add_column("consultations", sa.Column("search_indexed_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_consultations_search", "consultations", ["search"], postgresql_using="gin")
    op.create_index(
        "ix_consultations_search_stale",
        "consultations",
        ["doctor_account_id"],
        postgresql_where=sa.text(STALE),
    )


def downgrade() -> None:
    op.drop_index("ix_consultations_search_stale", table_name="consultations")
    op.drop_index("ix_consultations_search", table_name="consultations")
    op.drop_column("consultations", "search_indexed_at")
    op.drop_column("consultations", "search")
