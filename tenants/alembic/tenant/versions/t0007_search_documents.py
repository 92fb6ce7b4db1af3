"""consultation search documents gathered at upgrade: every consultation whose document is behind
gets it now, so that no doctor's first search has to gather them (it took 18-43 s for 5,000
consultations of 200 lines). From here on the live relay, the recordings worker and the record's
own edits keep the documents current as lines are stored.

Revision ID: t0007
Revises: t0006
"""

from collections.abc import Sequence

from alembic import op

revision: str = "t0007"
down_revision: str | None = "t0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The document cara.consultations.repository writes (_gather), as of this revision: the doctor's
# token, title, patient reference and at most 400,000 characters of transcript, letters and digits.
# Joined with || (immutable), not concat_ws (STABLE), which Citus refuses over columns in an UPDATE.
GATHER = """
UPDATE "{schema}".consultations AS c
SET search = to_tsvector(
        'simple'::regconfig,
        regexp_replace(
            'zd' || replace(CAST(c.doctor_account_id AS text), '-', '')
            || ' ' || coalesce(c.title, '')
            || ' ' || coalesce(c.patient_reference ->> 'recordNumber', '')
            || ' ' || coalesce(c.patient_reference ->> 'name', '')
            || ' ' || coalesce((
                SELECT left(string_agg(t.text, ' ' ORDER BY t.seq), 400000)
                FROM "{schema}".transcript_lines AS t
                WHERE t.consultation_id = c.id
            ), ''),
            '[^[:alnum:]]+', ' ', 'g'
        )
    ),
    search_indexed_at = now()
WHERE c.search_indexed_at IS NULL OR c.ended_at IS NULL OR c.ended_at > c.search_indexed_at
"""


def upgrade() -> None:
    schema = op.get_context().version_table_schema
    # The correlated aggregate's estimate is huge: compiling it (JIT) costs more than running it.
    op.execute("SET LOCAL jit = off")
    op.execute(GATHER.format(schema=schema))


def downgrade() -> None:
    # Nothing to undo: the documents are data that searches would have gathered anyway.
    pass
