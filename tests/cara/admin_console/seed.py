"""Billing rows written directly (the billing domain owns their creation)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import select

from cara.kit.db import session_scope
from cara.models import Account, Payment, Plan, Subscription


def subscribe(
    email: str,
    plan_code: str,
    *,
    status: str = "active",
    created: datetime | None = None,
    updated: datetime | None = None,
    cycle: str = "monthly",
) -> uuid.UUID:
    with session_scope() as s:
        account = s.scalar(select(Account).where(Account.email == email))
        plan = s.scalar(select(Plan).where(Plan.code == plan_code))
        assert account is not None and plan is not None
        sub = Subscription(account_id=account.id, plan_id=plan.id, status=status, billing_cycle=cycle)
        if created:
            sub.created_at = created
        if updated:
            sub.updated_at = updated
        s.add(sub)
        s.flush()
        return sub.id


def pay(
    email: str,
    plan_code: str,
    cents: int,
    paid_at: datetime,
    status: str = "succeeded",
    subscription: uuid.UUID | None = None,
) -> None:
    with session_scope() as s:
        account = s.scalar(select(Account).where(Account.email == email))
        plan = s.scalar(select(Plan).where(Plan.code == plan_code))
        assert account is not None and plan is not None
        s.add(
            Payment(
                account_id=account.id,
                subscription_id=subscription,
                plan_id=plan.id,
                amount_cents=cents,
                status=status,
                paid_at=paid_at,
                created_at=paid_at,
            )
        )
