"""Every query of the billing domain."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from cara.models import Account, Payment, Plan, ProviderEvent, Subscription
from cara.models.platform import LIVE_SUBSCRIPTION_STATUSES


def active_plans(session: Session, audience: str | None = None) -> list[Plan]:
    stmt = select(Plan).where(Plan.is_active.is_(True))
    if audience is not None:
        stmt = stmt.where(Plan.audience == audience)
    return list(session.scalars(stmt.order_by(Plan.sort_order, Plan.name)))


def active_plans_by_code(session: Session) -> list[Plan]:
    return list(session.scalars(select(Plan).where(Plan.is_active.is_(True)).order_by(Plan.code)))


def plan_by_name(session: Session, name: str) -> list[Plan]:
    """Active plans of that name (case-insensitive), any audience."""
    return list(
        session.scalars(select(Plan).where(Plan.is_active.is_(True), func.lower(Plan.name) == name.lower()))
    )


def plan_by_code(session: Session, code: str) -> Plan | None:
    return session.scalar(select(Plan).where(Plan.code == code))


def plan_by_price(session: Session, price_id: str) -> tuple[Plan, str] | None:
    plan = session.scalar(
        select(Plan).where(
            (Plan.stripe_monthly_price_id == price_id) | (Plan.stripe_annual_price_id == price_id)
        )
    )
    if plan is None:
        return None
    return plan, "annual" if plan.stripe_annual_price_id == price_id else "monthly"


def lock_account(session: Session, account_id: uuid.UUID) -> Account | None:
    """The account row, locked until the transaction ends: serialises every billing
    change of one account (checkouts, syncs from the webhook and the success page)."""
    return session.scalar(
        select(Account)
        .where(Account.id == account_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )


def account_by_customer(session: Session, customer_id: str) -> Account | None:
    return session.scalar(select(Account).where(Account.stripe_customer_id == customer_id))


def account(session: Session, account_id: uuid.UUID) -> Account | None:
    return session.get(Account, account_id)


def subscription_by_stripe_id(session: Session, stripe_id: str) -> Subscription | None:
    return session.scalar(
        select(Subscription)
        .where(Subscription.stripe_subscription_id == stripe_id)
        .execution_options(populate_existing=True)
    )


def live_subscriptions(session: Session, account_id: uuid.UUID) -> list[Subscription]:
    return list(
        session.scalars(
            select(Subscription)
            .where(
                Subscription.account_id == account_id,
                Subscription.status.in_(LIVE_SUBSCRIPTION_STATUSES),
            )
            .execution_options(populate_existing=True)
        )
    )


def count_hospital_doctors(session: Session, hospital_id: uuid.UUID) -> int:
    """Every doctor account of the hospital; a deactivated doctor keeps a seat until removed."""
    return int(
        session.scalar(
            select(func.count())
            .select_from(Account)
            .where(Account.hospital_id == hospital_id, Account.role == "doctor")
        )
        or 0
    )


def insert_event(
    session: Session, source: str, event_id: str, type_: str, payload: dict[str, Any]
) -> int | None:
    """Store a provider event once; returns its row id, or None if it was stored before."""
    stmt = (
        insert(ProviderEvent)
        .values(source=source, event_id=event_id, type=type_, payload=payload, attempts=0)
        .on_conflict_do_nothing(constraint="uq_provider_events_source_event")
        .returning(ProviderEvent.id)
    )
    row_id = session.execute(stmt).scalar_one_or_none()
    return int(row_id) if row_id is not None else None


def upsert_payment(
    session: Session,
    *,
    invoice_id: str,
    account_id: uuid.UUID,
    subscription_id: uuid.UUID | None,
    plan_id: uuid.UUID | None,
    amount_cents: int,
    currency: str,
    status: str,
    paid_at: datetime | None,
) -> None:
    """One Payment row per invoice: a later state of the same invoice replaces the earlier one."""
    values = {
        "account_id": account_id,
        "subscription_id": subscription_id,
        "plan_id": plan_id,
        "amount_cents": amount_cents,
        "currency": currency,
        "status": status,
        "paid_at": paid_at,
    }
    stmt = insert(Payment).values(id=uuid.uuid4(), stripe_invoice_id=invoice_id, **values)
    session.execute(stmt.on_conflict_do_update(index_elements=[Payment.stripe_invoice_id], set_=values))


def expire_local_trials(session: Session, now: datetime) -> int:
    """Trials granted at signup (no Stripe subscription behind them) whose end has passed."""
    result = session.execute(
        update(Subscription)
        .where(
            Subscription.status == "trialing",
            Subscription.stripe_subscription_id.is_(None),
            Subscription.trial_end <= now,
        )
        .values(status="canceled", updated_at=now)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def event_for_update(session: Session, event_row_id: int) -> ProviderEvent | None:
    """A stored provider event, locked until commit (processed once)."""
    return session.get(ProviderEvent, event_row_id, with_for_update=True)


def unprocessed_event_ids(session: Session, source: str, received_before: datetime) -> list[int]:
    """Ids of the source's events still unprocessed, received before the cutoff, oldest first."""
    ids = session.scalars(
        select(ProviderEvent.id)
        .where(ProviderEvent.source == source, ProviderEvent.processed_at.is_(None))
        .where(ProviderEvent.received_at <= received_before)
        .order_by(ProviderEvent.received_at)
    ).all()
    return list(ids)
