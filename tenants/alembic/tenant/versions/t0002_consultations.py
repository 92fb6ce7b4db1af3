"""consultations and their transcript lines (live assistant)

Revision ID: t0002
Revises: t0001
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "t0002"
down_revision: str | None = "t0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "consultations",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("doctor_account_id", sa.UUID(), nullable=False),
        sa.Column("console", sa.String(length=50), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reconnects", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["doctor_account_id"],
            ["platform.accounts.id"],
            name=op.f("fk_consultations_doctor_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_consultations")),
    )
    op.create_index(
        "ix_consultations_doctor_account_id", "consultations", ["doctor_account_id"], unique=False
    )
    op.create_table(
        "transcript_lines",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("consultation_id", sa.UUID(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("speaker", sa.String(length=16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("spoken_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "speaker IN ('user', 'assistant', 'tool')", name=op.f("ck_transcript_lines_speaker")
        ),
        sa.ForeignKeyConstraint(
            ["consultation_id"],
            ["consultations.id"],
            name=op.f("fk_transcript_lines_consultation_id_consultations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_transcript_lines")),
        sa.UniqueConstraint("consultation_id", "seq", name="uq_transcript_lines_consultation_seq"),
    )


def downgrade() -> None:
    op.drop_table("transcript_lines")
    op.drop_index("ix_consultations_doctor_account_id", table_name="consultations")
    op.drop_table("consultations")
