"""the consultation record: consent, patient reference, title and state; drafts, notes, signed
entries (signature and addenda) and the record settings

Revision ID: t0004
Revises: t0003
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "t0004"
down_revision: str | None = "t0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("consultations", sa.Column("consent_basis", sa.String(length=32), nullable=True))
    op.add_column("consultations", sa.Column("consent_by_account_id", sa.UUID(), nullable=True))
    op.add_column("consultations", sa.Column("consent_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column(
        "consultations",
        sa.Column("patient_reference", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    )
    op.add_column("consultations", sa.Column("title", sa.String(length=200), nullable=True))
    op.add_column(
        "consultations",
        sa.Column("state", sa.String(length=16), nullable=False, server_default="in_progress"),
    )
    op.alter_column("consultations", "state", server_default=None)
    op.add_column("consultations", sa.Column("signed_at", sa.DateTime(timezone=True), nullable=True))
    op.create_check_constraint(
        op.f("ck_consultations_state"), "consultations", "state IN ('in_progress', 'draft', 'signed')"
    )
    op.create_check_constraint(
        op.f("ck_consultations_consent_basis"),
        "consultations",
        "consent_basis IN ('doctor_confirmed', 'tenant_policy')",
    )
    op.create_index(
        "ix_consultations_doctor_started",
        "consultations",
        ["doctor_account_id", "started_at", "id"],
        unique=False,
    )
    op.drop_index("ix_consultations_doctor_account_id", table_name="consultations")

    op.create_table(
        "consultation_drafts",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("consultation_id", sa.UUID(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("focus", sa.String(length=200), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("sections", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("evidence", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("prompt_version", sa.String(length=50), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('summary', 'report')", name=op.f("ck_consultation_drafts_kind")),
        sa.ForeignKeyConstraint(
            ["consultation_id"],
            ["consultations.id"],
            name=op.f("fk_consultation_drafts_consultation_id_consultations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_consultation_drafts")),
    )
    op.create_index(
        "ix_consultation_drafts_consultation_id", "consultation_drafts", ["consultation_id"], unique=False
    )
    op.create_table(
        "consultation_notes",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("consultation_id", sa.UUID(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("sections", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("source_draft_id", sa.UUID(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["consultation_id"],
            ["consultations.id"],
            name=op.f("fk_consultation_notes_consultation_id_consultations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_consultation_notes")),
        sa.UniqueConstraint("consultation_id", name=op.f("uq_consultation_notes_consultation_id")),
    )
    op.create_table(
        "consultation_note_entries",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("note_id", sa.UUID(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("sections", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("author_account_id", sa.UUID(), nullable=True),
        sa.Column("author_name", sa.String(length=200), nullable=False),
        sa.Column("content_sha256", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "kind IN ('signature', 'addendum')", name=op.f("ck_consultation_note_entries_kind")
        ),
        sa.ForeignKeyConstraint(
            ["note_id"],
            ["consultation_notes.id"],
            name=op.f("fk_consultation_note_entries_note_id_consultation_notes"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_consultation_note_entries")),
        sa.UniqueConstraint("note_id", "number", name="uq_consultation_note_entries_note_number"),
    )
    op.create_table(
        "record_settings",
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("consent_mandatory", sa.Boolean(), nullable=False),
        sa.Column("retention_days", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("owner", name=op.f("pk_record_settings")),
    )


def downgrade() -> None:
    op.drop_table("record_settings")
    op.drop_table("consultation_note_entries")
    op.drop_table("consultation_notes")
    op.drop_index("ix_consultation_drafts_consultation_id", table_name="consultation_drafts")
    op.drop_table("consultation_drafts")
    op.create_index(
        "ix_consultations_doctor_account_id", "consultations", ["doctor_account_id"], unique=False
    )
    op.drop_index("ix_consultations_doctor_started", table_name="consultations")
    op.drop_constraint(op.f("ck_consultations_consent_basis"), "consultations", type_="check")
    op.drop_constraint(op.f("ck_consultations_state"), "consultations", type_="check")
    for column in (
        "signed_at",
        "state",
        "title",
        "patient_reference",
        "consent_at",
        "consent_by_account_id",
        "consent_basis",
    ):
        op.drop_column("consultations", column)
