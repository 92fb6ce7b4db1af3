"""imaging: the hospital's own PACS setting and the studies each doctor brought in

Revision ID: t0014
Revises: t0011
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "t0014"
down_revision: str | None = "t0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "pacs_settings",
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("base_url", sa.String(length=500), nullable=False),
        sa.Column("username", sa.String(length=200), nullable=True),
        sa.Column("password_encrypted", sa.Text(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("owner", name=op.f("pk_pacs_settings")),
    )
    op.create_table(
        "imaging_studies",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("study_instance_uid", sa.String(length=64), nullable=False),
        sa.Column("doctor_account_id", sa.UUID(), nullable=False),
        sa.Column("consultation_id", sa.UUID(), nullable=True),
        sa.Column("pacs", sa.String(length=16), nullable=False),
        sa.Column("instance_count", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["consultation_id"],
            ["consultations.id"],
            name=op.f("fk_imaging_studies_consultation_id_consultations"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_imaging_studies")),
        sa.UniqueConstraint("study_instance_uid", name="uq_imaging_studies_study_instance_uid"),
    )
    op.create_index(
        "ix_imaging_studies_doctor_created", "imaging_studies", ["doctor_account_id", "created_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_imaging_studies_doctor_created", table_name="imaging_studies")
    op.drop_table("imaging_studies")
    op.drop_table("pacs_settings")
