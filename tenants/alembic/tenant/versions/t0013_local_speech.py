"""speech recognised on the hospital's own server

A recorded consultation says which engine made its transcript; a recognised line keeps its
words with their timings and confidence; an upload keeps the language spoken, and may wait
for the AI service when the local recogniser cannot handle it.

Revision ID: t0013
Revises: t0011
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "t0013"
down_revision: str | None = "t0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("consultations", sa.Column("transcript_engine", sa.String(length=100), nullable=True))
    op.add_column(
        "transcript_lines",
        sa.Column("words", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    )
    op.add_column("recording_uploads", sa.Column("language", sa.String(length=16), nullable=True))
    op.drop_constraint(op.f("ck_recording_uploads_state"), "recording_uploads", type_="check")
    op.create_check_constraint(
        op.f("ck_recording_uploads_state"),
        "recording_uploads",
        "state IN ('receiving', 'processing', 'waiting', 'done', 'failed')",
    )


def downgrade() -> None:
    op.execute("UPDATE recording_uploads SET state = 'failed' WHERE state = 'waiting'")
    op.drop_constraint(op.f("ck_recording_uploads_state"), "recording_uploads", type_="check")
    op.create_check_constraint(
        op.f("ck_recording_uploads_state"),
        "recording_uploads",
        "state IN ('receiving', 'processing', 'done', 'failed')",
    )
    op.drop_column("recording_uploads", "language")
    op.drop_column("transcript_lines", "words")
    op.drop_column("consultations", "transcript_engine")
