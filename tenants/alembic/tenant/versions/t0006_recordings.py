"""consultations recorded offline: the consultation's source, a 'patient' speaker, and the
recording uploads with their received parts

Revision ID: t0006
Revises: t0005
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "t0006"
down_revision: str | None = "t0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "consultations", sa.Column("source", sa.String(length=16), nullable=False, server_default="live")
    )
    op.create_check_constraint(
        op.f("ck_consultations_source"), "consultations", "source IN ('live', 'recorded')"
    )
    op.drop_constraint(op.f("ck_transcript_lines_speaker"), "transcript_lines", type_="check")
    op.create_check_constraint(
        op.f("ck_transcript_lines_speaker"),
        "transcript_lines",
        "speaker IN ('user', 'assistant', 'tool', 'patient')",
    )
    op.create_table(
        "recording_uploads",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("doctor_account_id", sa.UUID(), nullable=False),
        sa.Column("client_id", sa.UUID(), nullable=False),
        sa.Column("console", sa.String(length=50), nullable=False),
        sa.Column("consent_basis", sa.String(length=32), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.Column("mime_type", sa.String(length=100), nullable=False),
        sa.Column("received_bytes", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("consultation_id", sa.UUID(), nullable=True),
        sa.Column("error", sa.String(length=300), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "state IN ('receiving', 'processing', 'done', 'failed')", name=op.f("ck_recording_uploads_state")
        ),
        sa.ForeignKeyConstraint(
            ["doctor_account_id"],
            ["platform.accounts.id"],
            name=op.f("fk_recording_uploads_doctor_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["consultation_id"],
            ["consultations.id"],
            name=op.f("fk_recording_uploads_consultation_id_consultations"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recording_uploads")),
        sa.UniqueConstraint("doctor_account_id", "client_id", name="uq_recording_uploads_doctor_client"),
    )
    op.create_table(
        "recording_parts",
        sa.Column("upload_id", sa.UUID(), nullable=False),
        sa.Column("offset", sa.BigInteger(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["upload_id"],
            ["recording_uploads.id"],
            name=op.f("fk_recording_parts_upload_id_recording_uploads"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("upload_id", "offset", name=op.f("pk_recording_parts")),
    )


def downgrade() -> None:
    op.drop_table("recording_parts")
    op.drop_table("recording_uploads")
    op.execute("DELETE FROM transcript_lines WHERE speaker = 'patient'")
    op.drop_constraint(op.f("ck_transcript_lines_speaker"), "transcript_lines", type_="check")
    op.create_check_constraint(
        op.f("ck_transcript_lines_speaker"), "transcript_lines", "speaker IN ('user', 'assistant', 'tool')"
    )
    op.drop_constraint(op.f("ck_consultations_source"), "consultations", type_="check")
    op.drop_column("consultations", "source")
