"""the patient a recording is about

A consultation recorded offline takes, at its consent step, the same optional patient
reference as a live one; the upload keeps it until the worker makes the consultation.

Revision ID: t0010
Revises: t0009
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "t0010"
down_revision: str | None = "t0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "recording_uploads",
        sa.Column("patient_reference", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    )


def downgrade() -> None:
    op.drop_column("recording_uploads", "patient_reference")
