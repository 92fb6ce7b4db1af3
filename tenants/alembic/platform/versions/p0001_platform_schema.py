"""platform schema

Revision ID: p0001
Revises:
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "p0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Every connection's search_path points here; it stays empty on purpose
    # so unqualified SQL fails instead of reaching a tenant (see cara.kit.db).
    op.execute("CREATE SCHEMA IF NOT EXISTS cara_void")
    op.create_table(
        "audit_events",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("actor_account_id", sa.UUID(), nullable=True),
        sa.Column("actor_role", sa.String(length=16), nullable=True),
        sa.Column("action", sa.String(length=100), nullable=False),
        sa.Column("target_type", sa.String(length=50), nullable=True),
        sa.Column("target_id", sa.String(length=100), nullable=True),
        sa.Column("tenant_schema", sa.String(length=63), nullable=True),
        sa.Column("detail", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_events")),
        schema="platform",
    )
    op.create_table(
        "outbox_jobs",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("actor_name", sa.String(length=100), nullable=False),
        sa.Column("tenant_schema", sa.String(length=63), nullable=True),
        sa.Column("kwargs", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("trace_context", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox_jobs")),
        schema="platform",
    )
    op.create_table(
        "period_rollups",
        sa.Column("granularity", sa.String(length=8), nullable=False),
        sa.Column("period_start", sa.Date(), nullable=False),
        sa.Column("revenue_cents", sa.BigInteger(), nullable=False),
        sa.Column("payments_count", sa.Integer(), nullable=False),
        sa.Column("hospitals_total", sa.Integer(), nullable=False),
        sa.Column("doctors_total", sa.Integer(), nullable=False),
        sa.Column("subscriptions_total", sa.Integer(), nullable=False),
        sa.Column("subscriptions_active", sa.Integer(), nullable=False),
        sa.Column("subscriptions_expired", sa.Integer(), nullable=False),
        sa.Column("by_plan", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("by_type", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("revenue_by_plan", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "granularity IN ('week', 'month', 'year')", name=op.f("ck_period_rollups_granularity")
        ),
        sa.PrimaryKeyConstraint("granularity", "period_start", name=op.f("pk_period_rollups")),
        schema="platform",
    )
    op.create_table(
        "plans",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("code", sa.String(length=64), nullable=False),
        sa.Column("audience", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("price_cents", sa.Integer(), nullable=False),
        sa.Column("annual_price_cents", sa.Integer(), nullable=True),
        sa.Column("max_doctors", sa.Integer(), nullable=True),
        sa.Column("features", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("sort_order", sa.Integer(), nullable=False),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("stripe_product_id", sa.String(length=255), nullable=True),
        sa.Column("stripe_monthly_price_id", sa.String(length=255), nullable=True),
        sa.Column("stripe_annual_price_id", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("audience IN ('hospital', 'doctor')", name=op.f("ck_plans_audience")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_plans")),
        sa.UniqueConstraint("code", name=op.f("uq_plans_code")),
        schema="platform",
    )
    op.create_table(
        "provider_events",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("source", sa.String(length=32), nullable=False),
        sa.Column("event_id", sa.String(length=255), nullable=False),
        sa.Column("type", sa.String(length=100), nullable=False),
        sa.Column("payload", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_provider_events")),
        sa.UniqueConstraint("source", "event_id", name="uq_provider_events_source_event"),
        schema="platform",
    )
    op.create_table(
        "tenants",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("schema_name", sa.String(length=63), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('hospital', 'independent')", name=op.f("ck_tenants_kind")),
        sa.CheckConstraint("status IN ('active', 'suspended')", name=op.f("ck_tenants_status")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tenants")),
        sa.UniqueConstraint("schema_name", name=op.f("uq_tenants_schema_name")),
        schema="platform",
    )
    op.create_table(
        "hospitals",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("tenant_id", sa.UUID(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("phone_number", sa.String(length=32), nullable=False),
        sa.Column("address", sa.String(length=500), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("registration_number", sa.String(length=100), nullable=False),
        sa.Column("capacity", sa.Integer(), nullable=False),
        sa.Column("country", sa.String(length=100), nullable=False),
        sa.Column("state", sa.String(length=100), nullable=False),
        sa.Column("website", sa.String(length=500), nullable=True),
        sa.Column("is_verified", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("type IN ('private', 'public')", name=op.f("ck_hospitals_type")),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["platform.tenants.id"],
            name=op.f("fk_hospitals_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hospitals")),
        sa.UniqueConstraint("tenant_id", name=op.f("uq_hospitals_tenant_id")),
        schema="platform",
    )
    op.create_table(
        "tenant_rollups",
        sa.Column("tenant_id", sa.UUID(), nullable=False),
        sa.Column("doctors_total", sa.Integer(), nullable=False),
        sa.Column("doctors_active", sa.Integer(), nullable=False),
        sa.Column("active_subscriptions", sa.Integer(), nullable=False),
        sa.Column("plan_name", sa.String(length=100), nullable=True),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["platform.tenants.id"],
            name=op.f("fk_tenant_rollups_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant_id", name=op.f("pk_tenant_rollups")),
        schema="platform",
    )
    op.create_table(
        "accounts",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("phone_number", sa.String(length=32), nullable=False),
        sa.Column("tenant_id", sa.UUID(), nullable=True),
        sa.Column("hospital_id", sa.UUID(), nullable=True),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("specialty", sa.String(length=50), nullable=True),
        sa.Column("is_verified", sa.Boolean(), nullable=False),
        sa.Column("password_changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_login_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("role IN ('doctor', 'hospital', 'admin')", name=op.f("ck_accounts_role")),
        sa.ForeignKeyConstraint(
            ["hospital_id"],
            ["platform.hospitals.id"],
            name=op.f("fk_accounts_hospital_id_hospitals"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["platform.tenants.id"],
            name=op.f("fk_accounts_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("email", name=op.f("uq_accounts_email")),
        schema="platform",
    )
    op.create_index(
        op.f("ix_platform_accounts_hospital_id"), "accounts", ["hospital_id"], unique=False, schema="platform"
    )
    op.create_index(
        op.f("ix_platform_accounts_tenant_id"), "accounts", ["tenant_id"], unique=False, schema="platform"
    )
    op.create_table(
        "admin_invitations",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("invited_by", sa.UUID(), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("accepted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("mailed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["invited_by"],
            ["platform.accounts.id"],
            name=op.f("fk_admin_invitations_invited_by_accounts"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_admin_invitations")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_admin_invitations_token_hash")),
        schema="platform",
    )
    op.create_index(
        op.f("ix_platform_admin_invitations_email"),
        "admin_invitations",
        ["email"],
        unique=False,
        schema="platform",
    )
    op.create_table(
        "password_resets",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("account_id", sa.UUID(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("mailed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["platform.accounts.id"],
            name=op.f("fk_password_resets_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_password_resets")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_password_resets_token_hash")),
        schema="platform",
    )
    op.create_index(
        op.f("ix_platform_password_resets_account_id"),
        "password_resets",
        ["account_id"],
        unique=False,
        schema="platform",
    )
    op.create_table(
        "subscriptions",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("account_id", sa.UUID(), nullable=False),
        sa.Column("plan_id", sa.UUID(), nullable=True),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("billing_cycle", sa.String(length=16), nullable=False),
        sa.Column("stripe_customer_id", sa.String(length=255), nullable=True),
        sa.Column("stripe_subscription_id", sa.String(length=255), nullable=True),
        sa.Column("current_period_start", sa.DateTime(timezone=True), nullable=True),
        sa.Column("current_period_end", sa.DateTime(timezone=True), nullable=True),
        sa.Column("trial_end", sa.DateTime(timezone=True), nullable=True),
        sa.Column("cancel_at_period_end", sa.Boolean(), nullable=False),
        sa.Column("last_payment_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "billing_cycle IN ('monthly', 'annual')", name=op.f("ck_subscriptions_billing_cycle")
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["platform.accounts.id"],
            name=op.f("fk_subscriptions_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["plan_id"], ["platform.plans.id"], name=op.f("fk_subscriptions_plan_id_plans")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_subscriptions")),
        sa.UniqueConstraint("stripe_subscription_id", name=op.f("uq_subscriptions_stripe_subscription_id")),
        schema="platform",
    )
    op.create_index(
        op.f("ix_platform_subscriptions_account_id"),
        "subscriptions",
        ["account_id"],
        unique=False,
        schema="platform",
    )
    op.create_index(
        op.f("ix_platform_subscriptions_stripe_customer_id"),
        "subscriptions",
        ["stripe_customer_id"],
        unique=False,
        schema="platform",
    )
    op.create_index(
        "uq_subscriptions_one_live_per_account",
        "subscriptions",
        ["account_id"],
        unique=True,
        schema="platform",
        postgresql_where=sa.text(
            "status IN ('trialing', 'active', 'past_due', 'unpaid', 'incomplete', 'paused')"
        ),
    )
    op.create_table(
        "payments",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("account_id", sa.UUID(), nullable=True),
        sa.Column("subscription_id", sa.UUID(), nullable=True),
        sa.Column("plan_id", sa.UUID(), nullable=True),
        sa.Column("amount_cents", sa.Integer(), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("stripe_invoice_id", sa.String(length=255), nullable=True),
        sa.Column("paid_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["platform.accounts.id"],
            name=op.f("fk_payments_account_id_accounts"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(["plan_id"], ["platform.plans.id"], name=op.f("fk_payments_plan_id_plans")),
        sa.ForeignKeyConstraint(
            ["subscription_id"],
            ["platform.subscriptions.id"],
            name=op.f("fk_payments_subscription_id_subscriptions"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_payments")),
        sa.UniqueConstraint("stripe_invoice_id", name=op.f("uq_payments_stripe_invoice_id")),
        schema="platform",
    )
    op.create_index(
        op.f("ix_platform_payments_account_id"), "payments", ["account_id"], unique=False, schema="platform"
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_platform_payments_account_id"), table_name="payments", schema="platform")
    op.drop_table("payments", schema="platform")
    op.drop_index(
        "uq_subscriptions_one_live_per_account",
        table_name="subscriptions",
        schema="platform",
        postgresql_where=sa.text(
            "status IN ('trialing', 'active', 'past_due', 'unpaid', 'incomplete', 'paused')"
        ),
    )
    op.drop_index(
        op.f("ix_platform_subscriptions_stripe_customer_id"), table_name="subscriptions", schema="platform"
    )
    op.drop_index(op.f("ix_platform_subscriptions_account_id"), table_name="subscriptions", schema="platform")
    op.drop_table("subscriptions", schema="platform")
    op.drop_index(
        op.f("ix_platform_password_resets_account_id"), table_name="password_resets", schema="platform"
    )
    op.drop_table("password_resets", schema="platform")
    op.drop_index(
        op.f("ix_platform_admin_invitations_email"), table_name="admin_invitations", schema="platform"
    )
    op.drop_table("admin_invitations", schema="platform")
    op.drop_index(op.f("ix_platform_accounts_tenant_id"), table_name="accounts", schema="platform")
    op.drop_index(op.f("ix_platform_accounts_hospital_id"), table_name="accounts", schema="platform")
    op.drop_table("accounts", schema="platform")
    op.drop_table("tenant_rollups", schema="platform")
    op.drop_table("hospitals", schema="platform")
    op.drop_table("tenants", schema="platform")
    op.drop_table("provider_events", schema="platform")
    op.drop_table("plans", schema="platform")
    op.drop_table("period_rollups", schema="platform")
    op.drop_table("outbox_jobs", schema="platform")
    op.drop_table("audit_events", schema="platform")
