"""no foreign keys from a tenant schema into platform.accounts

Each hospital's four keys (doctors, certificate_files, consultations, recording_uploads -> accounts,
ON DELETE CASCADE) put two triggers per key on platform.accounts: deleting one account then ran a
cascading DELETE into every hospital's tables and locked them all (the server's shared lock table
ran out near 430 hospitals), and every signup rebuilt that table's trigger list under a lock that
holds up account writes. Removing an account now deletes its rows in its own tenant schema
explicitly (cara.doctors.service.remove_doctor). The indexes on these columns stay: that delete
finds the rows through them.

IF EXISTS: schemas seeded without the keys (the benchmarks' bare copies) migrate too.

Revision ID: t0008
Revises: t0007
"""

from collections.abc import Sequence

from alembic import op

revision: str = "t0008"
down_revision: str | None = "t0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (table, column, constraint) as t0001, t0002, t0003 and t0006 named them.
KEYS = (
    ("doctors", "account_id", "fk_doctors_account_id_accounts"),
    ("certificate_files", "account_id", "fk_certificate_files_account_id_accounts"),
    ("consultations", "doctor_account_id", "fk_consultations_doctor_account_id_accounts"),
    ("recording_uploads", "doctor_account_id", "fk_recording_uploads_doctor_account_id_accounts"),
)


def upgrade() -> None:
    schema = op.get_context().version_table_schema
    for table, _column, name in KEYS:
        op.execute(f'ALTER TABLE "{schema}".{table} DROP CONSTRAINT IF EXISTS {name}')


def downgrade() -> None:
    # A row whose account is gone makes its key fail to validate and the downgrade stop: clinical
    # rows are not deleted behind the operator's back (the product deletes them with the account).
    schema = op.get_context().version_table_schema
    for table, column, name in KEYS:
        op.execute(
            f'ALTER TABLE "{schema}".{table} ADD CONSTRAINT {name} FOREIGN KEY ({column}) '
            "REFERENCES platform.accounts (id) ON DELETE CASCADE"
        )
