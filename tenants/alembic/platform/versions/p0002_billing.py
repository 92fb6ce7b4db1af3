"""billing: the account's Stripe customer; `incomplete` no longer counts as live

Revision ID: p0002
Revises: p0001
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "p0002"
down_revision: str | None = "p0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_LIVE = "('trialing', 'active', 'past_due', 'unpaid', 'incomplete', 'paused')"
NEW_LIVE = "('trialing', 'active', 'past_due', 'unpaid', 'paused')"


def upgrade() -> None:
    op.add_column(
        "accounts", sa.Column("stripe_customer_id", sa.String(length=255), nullable=True), schema="platform"
    )
    op.create_unique_constraint(
        op.f("uq_accounts_stripe_customer_id"), "accounts", ["stripe_customer_id"], schema="platform"
    )
    op.drop_index("uq_subscriptions_one_live_per_account", table_name="subscriptions", schema="platform")
    op.create_index(
        "uq_subscriptions_one_live_per_account",
        "subscriptions",
        ["account_id"],
        unique=True,
        schema="platform",
        postgresql_where=sa.text(f"status IN {NEW_LIVE}"),
    )


def downgrade() -> None:
    op.drop_index("uq_subscriptions_one_live_per_account", table_name="subscriptions", schema="platform")
    op.create_index(
        "uq_subscriptions_one_live_per_account",
        "subscriptions",
        ["account_id"],
        unique=True,
        schema="platform",
        postgresql_where=sa.text(f"status IN {OLD_LIVE}"),
    )
    op.drop_constraint(op.f("uq_accounts_stripe_customer_id"), "accounts", schema="platform", type_="unique")
    op.drop_column("accounts", "stripe_customer_id", schema="platform")
