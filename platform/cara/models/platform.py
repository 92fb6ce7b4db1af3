"""Platform-wide tables (schema `platform`): who can sign in, which tenants
exist, plans and billing, provider events and the platform audit trail.

Tenant tables may reference these (they become Citus reference tables on
scale-out); these never reference a tenant schema.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB, UUID
from sqlalchemy.orm import Mapped, mapped_column

from cara.models.base import PlatformBase, created_at, updated_at, uuid_pk

ROLES = ("doctor", "hospital", "admin")
TENANT_KINDS = ("hospital", "independent")
TENANT_STATUSES = ("active", "suspended")
# Subscription statuses that count as "live": an account may hold at most one.
# `incomplete` (a first payment still pending, expiring after 23 h) is left out:
# it must not end a trial or block the subscription it may yet become.
LIVE_SUBSCRIPTION_STATUSES = ("trialing", "active", "past_due", "unpaid", "paused")


class Tenant(PlatformBase):
    """The registry of tenant schemas: one per hospital plus `independent`."""

    __tablename__ = "tenants"
    __table_args__ = (
        CheckConstraint(f"kind IN {TENANT_KINDS}", name="kind"),
        CheckConstraint(f"status IN {TENANT_STATUSES}", name="status"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    schema_name: Mapped[str] = mapped_column(String(63), unique=True, nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="active")
    created_at: Mapped[datetime] = created_at()


class Hospital(PlatformBase):
    __tablename__ = "hospitals"
    __table_args__ = (
        CheckConstraint("type IN ('private', 'public')", name="type"),
        # The admin console's hospital list, a page at a time by each column it sorts on (ties by
        # id, as cara.admin_console.repository orders them), and its unverified ones newest first.
        Index("ix_hospitals_name", "name", "id"),
        Index("ix_hospitals_email", "email", "id"),
        Index("ix_hospitals_state", "state", "id"),
        Index("ix_hospitals_created", "created_at", "id"),
        Index("ix_hospitals_verified_created", "is_verified", "created_at", "id"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    tenant_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("tenants.id", ondelete="CASCADE"), unique=True, nullable=False
    )
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    email: Mapped[str] = mapped_column(String(254), nullable=False)
    phone_number: Mapped[str] = mapped_column(String(32), nullable=False)
    address: Mapped[str] = mapped_column(String(500), nullable=False, default="")
    type: Mapped[str] = mapped_column(String(16), nullable=False, default="private")
    registration_number: Mapped[str] = mapped_column(String(100), nullable=False, default="")
    capacity: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    country: Mapped[str] = mapped_column(String(100), nullable=False, default="")
    state: Mapped[str] = mapped_column(String(100), nullable=False, default="")
    website: Mapped[str | None] = mapped_column(String(500))
    is_verified: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    # The hospital's doctors enrol in two-factor sign-in at their next sign-in (cara.auth.mfa).
    require_doctor_mfa: Mapped[bool] = mapped_column(
        Boolean, nullable=False, default=False, server_default=text("false")
    )
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class Account(PlatformBase):
    """A sign-in identity. Email is unique platform-wide (stored lower-cased)."""

    __tablename__ = "accounts"
    __table_args__ = (
        CheckConstraint(f"role IN {ROLES}", name="role"),
        # A hospital's doctor list, a page at a time in either order (keyset on (key, id)).
        Index("ix_accounts_hospital_name", "hospital_id", "name", "id"),
        Index("ix_accounts_hospital_created", "hospital_id", "created_at", "id"),
        # The admin console's list of every doctor, by creation and by name.
        Index("ix_accounts_doctors_created", "created_at", "id", postgresql_where=text("role = 'doctor'")),
        Index("ix_accounts_doctors_name", "name", "id", postgresql_where=text("role = 'doctor'")),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    email: Mapped[str] = mapped_column(String(254), unique=True, nullable=False)
    password_hash: Mapped[str] = mapped_column(String(255), nullable=False)
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    phone_number: Mapped[str] = mapped_column(String(32), nullable=False, default="")
    tenant_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("tenants.id", ondelete="CASCADE"), index=True
    )
    hospital_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("hospitals.id", ondelete="CASCADE"), index=True
    )
    is_active: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    # Directory facts the admin console lists without opening tenant schemas.
    specialty: Mapped[str | None] = mapped_column(String(50))
    is_verified: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    # Tokens issued before this instant are refused (set on password change).
    password_changed_at: Mapped[datetime] = created_at()
    last_login_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # When the owner of `email` proved it (a hospital's emailed link; other accounts at sign-up).
    email_verified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The account's customer at the payment provider, created at its first checkout.
    stripe_customer_id: Mapped[str | None] = mapped_column(String(255), unique=True)
    # Two-factor sign-in (cara.auth.mfa): the TOTP secret encrypted at rest (Fernet), the one
    # being enrolled until its first code confirms it, and the last time step a code was
    # accepted for (a code is not accepted twice).
    mfa_secret: Mapped[str | None] = mapped_column(Text)
    mfa_pending_secret: Mapped[str | None] = mapped_column(Text)
    mfa_enabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    mfa_last_step: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class MfaRecoveryCode(PlatformBase):
    """One-time recovery codes of an account's two-factor sign-in: only their SHA-256."""

    __tablename__ = "mfa_recovery_codes"

    id: Mapped[uuid.UUID] = uuid_pk()
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False, index=True
    )
    code_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = created_at()


class Plan(PlatformBase):
    __tablename__ = "plans"
    __table_args__ = (CheckConstraint("audience IN ('hospital', 'doctor')", name="audience"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    code: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    audience: Mapped[str] = mapped_column(String(16), nullable=False)
    name: Mapped[str] = mapped_column(String(100), nullable=False)
    price_cents: Mapped[int] = mapped_column(Integer, nullable=False)
    annual_price_cents: Mapped[int | None] = mapped_column(Integer)
    max_doctors: Mapped[int | None] = mapped_column(Integer)
    features: Mapped[list[str]] = mapped_column(JSONB, nullable=False, default=list)
    sort_order: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    is_active: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    stripe_product_id: Mapped[str | None] = mapped_column(String(255))
    stripe_monthly_price_id: Mapped[str | None] = mapped_column(String(255))
    stripe_annual_price_id: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class Subscription(PlatformBase):
    __tablename__ = "subscriptions"
    __table_args__ = (
        CheckConstraint("billing_cycle IN ('monthly', 'annual')", name="billing_cycle"),
        # One account never holds two live subscriptions.
        Index(
            "uq_subscriptions_one_live_per_account",
            "account_id",
            unique=True,
            postgresql_where=text(f"status IN {LIVE_SUBSCRIPTION_STATUSES}"),
        ),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False, index=True
    )
    plan_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("plans.id"))
    status: Mapped[str] = mapped_column(String(32), nullable=False)
    billing_cycle: Mapped[str] = mapped_column(String(16), nullable=False, default="monthly")
    stripe_customer_id: Mapped[str | None] = mapped_column(String(255), index=True)
    stripe_subscription_id: Mapped[str | None] = mapped_column(String(255), unique=True)
    current_period_start: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    current_period_end: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    trial_end: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    cancel_at_period_end: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    last_payment_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class Payment(PlatformBase):
    __tablename__ = "payments"
    __table_args__ = (
        # The admin console's payment history by date (when paid, else when created), newest
        # first, all of it or one status. The two columns are included so that a deep page's
        # offset is walked in the index alone (PostgreSQL reads an expression index only when
        # the expression's columns are in it).
        Index(
            "ix_payments_date",
            text("coalesce(paid_at, created_at)"),
            "id",
            postgresql_include=["paid_at", "created_at"],
        ),
        Index(
            "ix_payments_status_date",
            "status",
            text("coalesce(paid_at, created_at)"),
            "id",
            postgresql_include=["paid_at", "created_at"],
        ),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    account_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), index=True
    )
    subscription_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("subscriptions.id", ondelete="SET NULL")
    )
    plan_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("plans.id"))
    amount_cents: Mapped[int] = mapped_column(Integer, nullable=False)
    currency: Mapped[str] = mapped_column(String(3), nullable=False, default="usd")
    status: Mapped[str] = mapped_column(String(32), nullable=False)
    stripe_invoice_id: Mapped[str | None] = mapped_column(String(255), unique=True)
    paid_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = created_at()


class ProviderEvent(PlatformBase):
    """Every webhook event from a provider, stored once by its id."""

    __tablename__ = "provider_events"
    __table_args__ = (UniqueConstraint("source", "event_id", name="uq_provider_events_source_event"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    source: Mapped[str] = mapped_column(String(32), nullable=False)
    event_id: Mapped[str] = mapped_column(String(255), nullable=False)
    type: Mapped[str] = mapped_column(String(100), nullable=False)
    payload: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    received_at: Mapped[datetime] = created_at()
    processed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)


class AuditEvent(PlatformBase):
    """Append-only record of platform-level actions (who, what, when)."""

    __tablename__ = "audit_events"
    # The admin console's audit log, newest first.
    __table_args__ = (Index("ix_audit_events_created", "created_at", "id"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    actor_account_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    actor_role: Mapped[str | None] = mapped_column(String(16))
    action: Mapped[str] = mapped_column(String(100), nullable=False)
    target_type: Mapped[str | None] = mapped_column(String(50))
    target_id: Mapped[str | None] = mapped_column(String(100))
    tenant_schema: Mapped[str | None] = mapped_column(String(63))
    detail: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, default=dict)
    created_at: Mapped[datetime] = created_at()


class PasswordReset(PlatformBase):
    """A single-use, expiring reset token. Only its SHA-256 is stored."""

    __tablename__ = "password_resets"

    id: Mapped[uuid.UUID] = uuid_pk()
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False, index=True
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    mailed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = created_at()


class EmailChange(PlatformBase):
    """A change of an account's sign-in email. `undo`: made by the account holder with their
    password, undoable from the old address until `expires_at`; `confirm`: asked by the
    account's hospital, made when the new address confirms. Only the link token's SHA-256
    is stored."""

    __tablename__ = "email_changes"

    id: Mapped[uuid.UUID] = uuid_pk()
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False, index=True
    )
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    old_email: Mapped[str] = mapped_column(String(254), nullable=False)
    new_email: Mapped[str] = mapped_column(String(254), nullable=False)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = created_at()


class SessionFamily(PlatformBase):
    """A browser app's sign-in (`app`: `web` the clinician app, `admin` the console): a
    rotating refresh token in an HttpOnly cookie. Only the SHA-256 of the current token (and of
    the one it replaced, for concurrent tabs) is stored; a token presented after its rotation
    revokes the family."""

    __tablename__ = "session_families"

    id: Mapped[uuid.UUID] = uuid_pk()
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False, index=True
    )
    app: Mapped[str] = mapped_column(String(8), nullable=False)
    current_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    previous_hash: Mapped[str | None] = mapped_column(String(64))
    rotated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = created_at()


class AdminInvitation(PlatformBase):
    """Admins join only by invitation from an existing admin."""

    __tablename__ = "admin_invitations"

    id: Mapped[uuid.UUID] = uuid_pk()
    email: Mapped[str] = mapped_column(String(254), nullable=False, index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    invited_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("accounts.id", ondelete="SET NULL"))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    accepted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    mailed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = created_at()


class PendingSignup(PlatformBase):
    """An anonymous sign-up waiting for its address to confirm it: nothing else exists until the
    mailed link is followed, so a sign-up answers the same whether the email is free or taken.
    `form` is the sign-up form without the password (its hash is `password_hash`); only the
    link token's SHA-256 is stored. Purged a day after it expires or is used."""

    __tablename__ = "pending_signups"

    id: Mapped[uuid.UUID] = uuid_pk()
    email: Mapped[str] = mapped_column(String(254), nullable=False, index=True)
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    form: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    password_hash: Mapped[str] = mapped_column(String(255), nullable=False)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    mailed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = created_at()

    __table_args__ = (CheckConstraint("role IN ('doctor', 'hospital')", name="pending_signup_role"),)


class OutboxJob(PlatformBase):
    """A job written in the same transaction as the data it refers to.

    Sent to the broker right after commit and then deleted; rows that remain
    (broker down, process killed between commit and send) are re-sent by the
    scheduler's relay. Actors are idempotent, so a rare duplicate is harmless.
    """

    __tablename__ = "outbox_jobs"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    actor_name: Mapped[str] = mapped_column(String(100), nullable=False)
    tenant_schema: Mapped[str | None] = mapped_column(String(63))
    kwargs: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, default=dict)
    trace_context: Mapped[dict[str, str]] = mapped_column(JSONB, nullable=False, default=dict)
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = created_at()


class TenantRollup(PlatformBase):
    """Per-tenant figures computed by the analytics actor (one row per tenant).

    The admin console reads these instead of opening every tenant schema.
    """

    __tablename__ = "tenant_rollups"

    tenant_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True
    )
    doctors_total: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    doctors_active: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    active_subscriptions: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    plan_name: Mapped[str | None] = mapped_column(String(100))
    computed_at: Mapped[datetime] = created_at()


class PeriodRollup(PlatformBase):
    """Platform figures for one week, month or year; recomputable for any past period.

    `revenue_cents` is the cash of the succeeded payments in the period (what the
    payment history adds up to); `recognised_cents` spreads an annual payment over
    its year (1/12 a month, 1/52 a week), so the revenue chart does not spike on
    renewals; `mrr_cents` is the monthly recurring revenue of the subscriptions
    paying at the period's end (an annual plan counts for its price / 12).
    """

    __tablename__ = "period_rollups"
    __table_args__ = (CheckConstraint("granularity IN ('week', 'month', 'year')", name="granularity"),)

    granularity: Mapped[str] = mapped_column(String(8), primary_key=True)
    period_start: Mapped[date] = mapped_column(Date, primary_key=True)
    revenue_cents: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    recognised_cents: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    mrr_cents: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    payments_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    hospitals_total: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    doctors_total: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    subscriptions_total: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    subscriptions_active: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    subscriptions_expired: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    by_plan: Mapped[dict[str, int]] = mapped_column(JSONB, nullable=False, default=dict)
    by_type: Mapped[dict[str, int]] = mapped_column(JSONB, nullable=False, default=dict)
    revenue_by_plan: Mapped[dict[str, int]] = mapped_column(JSONB, nullable=False, default=dict)
    computed_at: Mapped[datetime] = created_at()
