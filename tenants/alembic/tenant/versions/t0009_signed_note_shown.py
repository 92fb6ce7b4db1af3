"""what a signed note shows, fixed at signing

A signature entry keeps, in `shown`, the title, patient reference, signer's name and licence
number and clinic name its document shows, so that later renames or edits do not change the
document (or any export of it). Entries signed before this revision have none; their exports
fall back to the current values, as before.

Revision ID: t0009
Revises: t0008
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "t0009"
down_revision: str | None = "t0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "consultation_note_entries",
        sa.Column("shown", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    )


def downgrade() -> None:
    op.drop_column("consultation_note_entries", "shown")
