"""notes written in a template, and diagnosis codes with their evidence

A draft may be the note itself (kind `note`), written in a template: the draft keeps which one
and its version. A draft keeps the ICD-10 codes the model proposed (each with the transcript
lines behind it, checked against the WHO list), and the note keeps the codes the doctor accepted;
at signing they are fixed with the signature.

Revision ID: t0011
Revises: t0010
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "t0011"
down_revision: str | None = "t0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_constraint(op.f("ck_consultation_drafts_kind"), "consultation_drafts", type_="check")
    op.create_check_constraint(
        op.f("ck_consultation_drafts_kind"), "consultation_drafts", "kind IN ('summary', 'report', 'note')"
    )
    op.add_column("consultation_drafts", sa.Column("template_id", sa.String(64), nullable=True))
    op.add_column("consultation_drafts", sa.Column("template_version", sa.Integer(), nullable=True))
    op.add_column(
        "consultation_drafts",
        sa.Column(
            "codes",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=False,
            server_default="[]",
        ),
    )
    op.add_column(
        "consultation_notes",
        sa.Column(
            "codes",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=False,
            server_default="[]",
        ),
    )


def downgrade() -> None:
    op.drop_column("consultation_notes", "codes")
    op.drop_column("consultation_drafts", "codes")
    op.drop_column("consultation_drafts", "template_version")
    op.drop_column("consultation_drafts", "template_id")
    op.execute("DELETE FROM consultation_drafts WHERE kind = 'note'")
    op.drop_constraint(op.f("ck_consultation_drafts_kind"), "consultation_drafts", type_="check")
    op.create_check_constraint(
        op.f("ck_consultation_drafts_kind"), "consultation_drafts", "kind IN ('summary', 'report')"
    )
