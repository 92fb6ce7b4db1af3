"""radiotherapy plan reviews: a consultation's RTSTRUCT, RTDOSE and RTPLAN files, the DVH table
computed from them, and the hospital's saved structure names

Revision ID: t0015
Revises: t0011
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "t0015"
down_revision: str | None = "t0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "plan_reviews",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("consultation_id", sa.UUID(), nullable=False),
        sa.Column("doctor_account_id", sa.UUID(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("progress", sa.Integer(), nullable=False),
        sa.Column("progress_total", sa.Integer(), nullable=False),
        sa.Column("settings", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("result", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("error", sa.String(length=1000), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "state IN ('receiving', 'queued', 'computing', 'done', 'failed')",
            name=op.f("ck_plan_reviews_state"),
        ),
        sa.ForeignKeyConstraint(
            ["consultation_id"],
            ["consultations.id"],
            name=op.f("fk_plan_reviews_consultation_id_consultations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_plan_reviews")),
    )
    op.create_index("ix_plan_reviews_consultation", "plan_reviews", ["consultation_id"])
    op.create_table(
        "plan_review_files",
        sa.Column("review_id", sa.UUID(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("filename", sa.String(length=255), nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "kind IN ('rtstruct', 'rtdose', 'rtplan')", name=op.f("ck_plan_review_files_kind")
        ),
        sa.ForeignKeyConstraint(
            ["review_id"],
            ["plan_reviews.id"],
            name=op.f("fk_plan_review_files_review_id_plan_reviews"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("review_id", "kind", name=op.f("pk_plan_review_files")),
    )
    op.create_table(
        "structure_name_mappings",
        sa.Column("scope", sa.String(length=64), nullable=False),
        sa.Column("name_key", sa.String(length=200), nullable=False),
        sa.Column("organ_key", sa.String(length=64), nullable=True),
        sa.Column("saved_by_account_id", sa.UUID(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("scope", "name_key", name=op.f("pk_structure_name_mappings")),
    )


def downgrade() -> None:
    op.drop_table("structure_name_mappings")
    op.drop_table("plan_review_files")
    op.drop_index("ix_plan_reviews_consultation", table_name="plan_reviews")
    op.drop_table("plan_reviews")
