"""The queries behind the subscription view: an account's newest subscription, a hospital's account."""

from __future__ import annotations

import uuid
from collections.abc import Collection

from sqlalchemy import select
from sqlalchemy.orm import Session

from cara.models import Account, Plan, Subscription


def latest_subscription(
    session: Session, account_id: uuid.UUID, live_statuses: Collection[str]
) -> tuple[Subscription, Plan | None] | None:
    """The account's newest subscription with its plan, those in `live_statuses` first."""
    row = session.execute(
        select(Subscription, Plan)
        .outerjoin(Plan, Plan.id == Subscription.plan_id)
        .where(Subscription.account_id == account_id)
        .order_by(
            Subscription.status.in_(tuple(live_statuses)).desc(),
            Subscription.created_at.desc(),
        )
        .limit(1)
    ).first()
    if row is None:
        return None
    return row[0], row[1]


def hospital_account(session: Session, hospital_id: uuid.UUID) -> Account | None:
    return session.scalar(
        select(Account).where(Account.hospital_id == hospital_id, Account.role == "hospital").limit(1)
    )
