"""Reading subscriptions and deciding access.

Every clinical page and the live assistant ask `grants_clinical_access`, so
the rule of spec §6 lives in one place: independent doctors need their own
subscription active or trialing; hospital-created doctors need their
hospital's subscription active or trialing.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy.orm import Session

from cara.models import Account, Plan, Subscription
from cara.models.base import utcnow
from cara.plans.service import EVERY_ENTITLEMENT, entitlements_of
from cara.subscriptions import repository
from cara.subscriptions.schemas import CurrentSubscription, HospitalSubscriptionStatus, PlanRef

ACCESS_STATUSES = frozenset({"active", "trialing"})
NO_SUBSCRIPTION = "inactive"
TRIAL_ENDED = "canceled"


def effective_status(sub: Subscription, now: datetime | None = None) -> str:
    """The status as of now: a signup trial (no Stripe subscription behind it) whose
    end has passed reads as ended even before the hourly job marks it (cara.billing.seats)."""
    if (
        sub.status == "trialing"
        and sub.stripe_subscription_id is None
        and sub.trial_end is not None
        and sub.trial_end <= (now or utcnow())
    ):
        return TRIAL_ENDED
    return sub.status


def latest_subscription(session: Session, account_id: uuid.UUID) -> tuple[Subscription, Plan | None] | None:
    """The account's newest subscription with its plan (live ones first)."""
    return repository.latest_subscription(session, account_id, ACCESS_STATUSES)


def _plan_ref(plan: Plan) -> PlanRef:
    return PlanRef.model_validate(
        {
            "_id": str(plan.id),
            "name": plan.name,
            "features": list(plan.features or []),
            "maxDoctors": plan.max_doctors,
            "price": plan.price_cents / 100,
            "annualPrice": plan.annual_price_cents / 100 if plan.annual_price_cents is not None else None,
        }
    )


def current_subscription(session: Session, account: Account) -> CurrentSubscription:
    found = latest_subscription(session, account.id)
    if found is None:
        return CurrentSubscription(status=NO_SUBSCRIPTION)
    sub, plan = found
    end = (
        sub.trial_end
        if sub.status == "trialing" and sub.current_period_end is None
        else sub.current_period_end
    )
    return CurrentSubscription(
        planId=_plan_ref(plan) if plan is not None else None,
        status=effective_status(sub),
        billingCycle=sub.billing_cycle,
        startDate=sub.current_period_start or sub.created_at,
        endDate=end,
        nextPaymentDate=None if sub.cancel_at_period_end else sub.current_period_end,
        lastPaymentDate=sub.last_payment_at,
        trialEndDate=sub.trial_end,
        createdAt=sub.created_at,
        updatedAt=sub.updated_at,
    )


def hospital_status(session: Session, doctor: Account) -> HospitalSubscriptionStatus:
    """The facility check for a hospital-created doctor (their hospital's subscription)."""
    if doctor.hospital_id is None:
        return HospitalSubscriptionStatus(hospitalSubscriptionActive=False, status=NO_SUBSCRIPTION)
    owner = repository.hospital_account(session, doctor.hospital_id)
    found = latest_subscription(session, owner.id) if owner is not None else None
    status = effective_status(found[0]) if found is not None else NO_SUBSCRIPTION
    plan = found[1] if found is not None else None
    return HospitalSubscriptionStatus(
        hospitalSubscriptionActive=status in ACCESS_STATUSES,
        status=status,
        planName=plan.name if plan is not None else None,
    )


def grants_clinical_access(session: Session, doctor: Account) -> bool:
    """Spec §6: may this doctor open the clinical pages and the assistant?"""
    if doctor.role != "doctor":
        return False
    # Only hospital-created doctors carry a hospital id (independent ones share a tenant).
    if doctor.hospital_id is not None:
        return hospital_status(session, doctor).hospitalSubscriptionActive
    found = latest_subscription(session, doctor.id)
    return found is not None and effective_status(found[0]) in ACCESS_STATUSES


def doctor_entitlements(session: Session, doctor: Account) -> frozenset[str]:
    """What the doctor's plan (a hospital-created doctor's: the hospital's) lets them use beyond
    the live assistant and summaries (`cara.plans.catalog`). A sign-up trial, with no Stripe
    subscription behind it, tries everything; without a live subscription, nothing."""
    holder: Account | None = doctor
    if doctor.hospital_id is not None:
        holder = repository.hospital_account(session, doctor.hospital_id)
    found = latest_subscription(session, holder.id) if holder is not None else None
    if found is None or effective_status(found[0]) not in ACCESS_STATUSES:
        return frozenset()
    sub, plan = found
    if sub.status == "trialing" and sub.stripe_subscription_id is None:
        return EVERY_ENTITLEMENT
    return entitlements_of(plan.code if plan is not None else None)


def account_entitlements(session: Session, account_id: uuid.UUID) -> frozenset[str]:
    """`doctor_entitlements` of the account with this id (none when it is gone)."""
    account = session.get(Account, account_id)
    return doctor_entitlements(session, account) if account is not None else frozenset()
