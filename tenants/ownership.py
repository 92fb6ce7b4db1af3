"""Which platform rows belong to a hospital tenant: one definition for export, restore and erasure.

A hospital tenant owns its `platform.tenants` row, its `platform.hospitals` row, every account
registered in it (the hospital's own account and its doctors), and those accounts' subscriptions
and payments. Export copies exactly these rows, restore puts them back in `INSERT_ORDER`, and
erasure deletes them, so the three can never disagree about what "the tenant's data" is.

Everything here is a SQL fragment bound by `:tenant` (the tenant's id); nothing is interpolated
from input.
"""

from __future__ import annotations

ACCOUNTS = (
    "SELECT a.id FROM platform.accounts a WHERE a.tenant_id = :tenant"
    " OR a.hospital_id IN (SELECT h.id FROM platform.hospitals h WHERE h.tenant_id = :tenant)"
)
SUBSCRIPTIONS = f"SELECT s.id FROM platform.subscriptions s WHERE s.account_id IN ({ACCOUNTS})"

# Parents before children: the order rows are restored in (erasure goes the other way).
INSERT_ORDER = ("tenants", "hospitals", "accounts", "subscriptions", "payments")

WHERE: dict[str, str] = {
    "tenants": "r.id = :tenant",
    "hospitals": "r.tenant_id = :tenant",
    "accounts": f"r.id IN ({ACCOUNTS})",
    "subscriptions": f"r.account_id IN ({ACCOUNTS})",
    # payments.account_id is ON DELETE SET NULL: without this they would outlive the account.
    "payments": f"r.account_id IN ({ACCOUNTS}) OR r.subscription_id IN ({SUBSCRIPTIONS})",
}


def rows_query(table: str) -> str:
    """Every row `table` holds for the tenant, each as one jsonb value (types survive the trip)."""
    return f"SELECT to_jsonb(r) FROM platform.{table} r WHERE {WHERE[table]} ORDER BY r.id"


class Refused(Exception):
    """An export, restore or deletion declined for a reason the operator can act on.

    `exit_status` is what `python -m tenants` exits with: 2 for a request that can never succeed
    as written (a malformed name, the shared tenant), 1 for one that may once the state changes.
    """

    def __init__(self, message: str, exit_status: int = 1) -> None:
        super().__init__(message)
        self.exit_status = exit_status
