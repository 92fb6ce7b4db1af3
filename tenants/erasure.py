"""Erasing a hospital tenant: its schema, its platform rows, its database role, in one transaction.

What goes (tenants.ownership defines the platform part, the same rows an export carries):

* the tenant schema, dropped with CASCADE: profiles, certificate files, consultations with their
  transcripts, drafts, notes and signed entries, the record settings, the tenant's own audit log;
* the hospital's accounts (its own and its doctors'), their password resets, subscriptions and
  payments (payments are deleted explicitly: their key to the account only sets NULL), the
  hospital row, the tenant row and its rollup, jobs still queued for the tenant;
* the provider's webhook events about those accounts (`platform.provider_events` keeps Stripe's
  payloads, which carry customer emails);
* the tenant's database role (DROP ROLE is transactional, so it commits or rolls back with the rest).

What stays: the platform audit trail, which holds ids and actions but never names or emails, plus
one new entry, `tenant.erased`, with the schema name and counts only.

Stripe keeps its own copy of the customers; the command prints their ids so an operator deletes
them there (deleting a Stripe customer also cancels its subscriptions). Nothing is sent to Stripe
from here: erasure must succeed whether or not the provider answers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from sqlalchemy import Connection, text

from cara.kit import account_events
from cara.kit import platform_audit as audit
from cara.kit.db import session_scope
from tenants import citus, naming, ownership, roles
from tenants.backup import checked_schema, schema_exists, table_counts
from tenants.ownership import Refused


@dataclass(frozen=True)
class ErasureReport:
    schema: str
    registered: bool
    tables: dict[str, int]
    deleted: dict[str, int]
    role: str
    role_dropped: bool
    stripe_customers: list[str] = field(default_factory=list)
    stripe_subscriptions: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def lines(self) -> list[str]:
        out = [
            f"deleted tenant {self.schema} in {self.seconds:.2f}s: schema dropped "
            f"({len(self.tables)} tables, {sum(self.tables.values())} rows)",
            "platform rows deleted: " + (", ".join(f"{t} {n}" for t, n in self.deleted.items()) or "none"),
            f"database role {self.role} " + ("dropped" if self.role_dropped else "did not exist"),
        ]
        if not self.registered:
            out.append("the schema was not registered in platform.tenants (an inspection copy)")
        if self.stripe_customers:
            subs = ", ".join(self.stripe_subscriptions)
            out.append(
                f"REMINDER: Stripe still holds customer(s) {', '.join(self.stripe_customers)}"
                + (f" (subscriptions {subs})" if subs else "")
                + ". Delete them at Stripe (Dashboard > Customers, or DELETE /v1/customers/<id>);"
                " that also cancels their subscriptions. Nothing was sent to Stripe."
            )
        return out


def _ids(conn: Connection, sql: str, tenant: object) -> list[str]:
    return [str(v) for v in conn.execute(text(sql), {"tenant": tenant}).scalars() if v is not None]


_STRIPE_CUSTOMERS = (
    f"SELECT stripe_customer_id FROM platform.accounts WHERE id IN ({ownership.ACCOUNTS})"
    f" UNION SELECT stripe_customer_id FROM platform.subscriptions WHERE account_id IN ({ownership.ACCOUNTS})"
)
_STRIPE_SUBSCRIPTIONS = (
    f"SELECT stripe_subscription_id FROM platform.subscriptions WHERE account_id IN ({ownership.ACCOUNTS})"
)
# Children before parents; until `accounts` goes, each statement finds them through the tenant id.
_DELETIONS: tuple[tuple[str, str], ...] = (
    ("payments", f"DELETE FROM platform.payments r WHERE {ownership.WHERE['payments']}"),
    ("subscriptions", f"DELETE FROM platform.subscriptions r WHERE {ownership.WHERE['subscriptions']}"),
    ("password_resets", f"DELETE FROM platform.password_resets WHERE account_id IN ({ownership.ACCOUNTS})"),
    (
        "provider_events",
        "DELETE FROM platform.provider_events WHERE"
        " payload -> 'data' -> 'object' ->> 'customer' = ANY(:customers)"
        " OR payload -> 'data' -> 'object' ->> 'client_reference_id' = ANY(:accounts)",
    ),
    ("accounts", f"DELETE FROM platform.accounts r WHERE {ownership.WHERE['accounts']}"),
    ("hospitals", "DELETE FROM platform.hospitals WHERE tenant_id = :tenant"),
    ("outbox_jobs", "DELETE FROM platform.outbox_jobs WHERE tenant_schema = :schema"),
    ("tenant_rollups", "DELETE FROM platform.tenant_rollups WHERE tenant_id = :tenant"),
    ("tenants", "DELETE FROM platform.tenants WHERE id = :tenant"),
)


def erase_tenant(schema: str) -> ErasureReport:
    """Delete every trace of hospital tenant `schema`; refuse the shared independent tenant."""
    schema = checked_schema(schema)
    if schema == naming.INDEPENDENT_SCHEMA:
        raise Refused(
            "the independent tenant is shared by every independent doctor and cannot be deleted; "
            "remove those doctors' accounts one by one instead",
            2,
        )
    started = time.perf_counter()
    with session_scope() as session:
        conn = session.connection()
        # The row lock makes a concurrent erasure or export of the same tenant wait for this one.
        tenant = conn.execute(
            text("SELECT id FROM platform.tenants WHERE schema_name = :s FOR UPDATE"), {"s": schema}
        ).first()
        exists = schema_exists(conn, schema)
        if tenant is None and not exists:
            raise Refused(f"no tenant {schema}: neither registered in platform.tenants nor a schema")
        tables = table_counts(conn, schema) if exists else {}
        tid = tenant.id if tenant is not None else None

        deleted: dict[str, int] = {}
        customers: list[str] = []
        subscriptions: list[str] = []
        if exists:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        if tid is not None:
            account_ids = _ids(conn, ownership.ACCOUNTS, tid)
            customers = sorted(_ids(conn, _STRIPE_CUSTOMERS, tid))
            subscriptions = sorted(_ids(conn, _STRIPE_SUBSCRIPTIONS, tid))
            params = {"tenant": tid, "schema": schema, "accounts": account_ids, "customers": customers}
            for name, sql in _DELETIONS:
                deleted[name] = int(conn.execute(text(sql), params).rowcount)

        database = str(conn.execute(text("SELECT current_database()")).scalar_one())
        role = roles.role_for(database, schema)
        role_exists = conn.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}).first()
        if role_exists is not None:
            # Revokes what the role still holds in this database (default privileges included);
            # roles are cluster-wide but this one was only ever granted rights here.
            conn.execute(text(f'DROP OWNED BY "{role}"'))
            conn.execute(text(f'DROP ROLE "{role}"'))
            if citus.active(conn):
                citus.end_role_sessions(conn, role)

        audit.record_platform(
            session,
            action="tenant.erased",
            actor_id=None,
            actor_role=None,
            target_type="tenant",
            target_id=tid,
            tenant_schema=schema,
            detail={
                "registered": tid is not None,
                "tables": len(tables),
                "rows": sum(tables.values()),
                "deleted": deleted,
                "roleDropped": role_exists is not None,
                "stripeCustomers": len(customers),
            },
        )
    if tid is not None:
        # The API processes forget what they remember of the tenant's accounts (raw SQL above:
        # the ORM's own announcements, cara.auth.account_state, do not see these deletions).
        account_events.changed([("tenant", str(tid))])
    return ErasureReport(
        schema=schema,
        registered=tid is not None,
        tables=tables,
        deleted=deleted,
        role=role,
        role_dropped=role_exists is not None,
        stripe_customers=customers,
        stripe_subscriptions=subscriptions,
        seconds=time.perf_counter() - started,
    )
