"""The signup trial and the hospital doctor limit: rules other domains call.

* `start_trial`: an independent doctor gets `TRIAL_DAYS` (default 14) of
  `trialing` at signup. It is our own row, without a Stripe subscription: no
  card is asked for and nothing is charged, so the signup never waits on the
  provider. When the doctor pays, the sync ends the trial; when the trial runs
  out, `expire_trials` (scheduled hourly) marks it `canceled`, and readers
  already treat it as ended from its `trial_end` on (cara.subscriptions).
* `can_add_doctor`: a hospital may add a doctor while its subscription grants
  access and it has fewer doctors than its plan's `maxDoctors`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy.orm import Session

from cara.analytics import service as analytics
from cara.billing import repository
from cara.config import get_settings
from cara.kit.errors import Forbidden
from cara.models import Account, Subscription
from cara.models.base import utcnow
from cara.subscriptions.service import ACCESS_STATUSES, effective_status, latest_subscription

NO_SUBSCRIPTION = "An active subscription is required to add doctors. Please choose a plan."
LIMIT_REACHED = "Doctor limit reached for your current plan. Upgrade to add more."
# Refusals of an add name the subscription: the hospital dashboard then opens /subscription.
ADD_REFUSED_NO_SUBSCRIPTION = NO_SUBSCRIPTION
ADD_REFUSED_LIMIT = (
    "Doctor limit reached for your current subscription plan ({max_doctors} doctors). "
    "Upgrade your subscription to add more doctors."
)


def start_trial(session: Session, account: Account) -> Subscription | None:
    """The free trial of a new independent doctor (none for others, or with TRIAL_DAYS=0)."""
    days = get_settings().trial_days
    if days <= 0 or account.role != "doctor" or account.hospital_id is not None:
        return None
    now = utcnow()
    trial = Subscription(
        account_id=account.id,
        plan_id=None,
        status="trialing",
        billing_cycle="monthly",
        current_period_start=now,
        trial_end=now + timedelta(days=days),
    )
    session.add(trial)
    session.flush()
    return trial


def expire_trials(session: Session) -> int:
    expired = repository.expire_local_trials(session, utcnow())
    if expired:
        analytics.figures_changed(session)
    return expired


@dataclass(frozen=True)
class DoctorLimit:
    can_add: bool
    max_doctors: int | None
    doctor_count: int
    reason: str | None


def doctor_limit(session: Session, hospital: Account, *, lock: bool = False) -> DoctorLimit:
    """The hospital's doctor limit now. With `lock`, the hospital's account row is locked
    until the transaction ends, so two doctors added at once cannot both take the last seat."""
    if lock:
        repository.lock_account(session, hospital.id)
    count = repository.count_hospital_doctors(session, hospital.hospital_id) if hospital.hospital_id else 0
    if hospital.role != "hospital" or hospital.hospital_id is None:
        return DoctorLimit(False, None, count, NO_SUBSCRIPTION)
    found = latest_subscription(session, hospital.id)
    if found is None or effective_status(found[0]) not in ACCESS_STATUSES:
        return DoctorLimit(False, None, count, NO_SUBSCRIPTION)
    plan = found[1]
    if plan is None:
        return DoctorLimit(False, None, count, NO_SUBSCRIPTION)
    if plan.max_doctors is not None and count >= plan.max_doctors:
        return DoctorLimit(False, plan.max_doctors, count, LIMIT_REACHED)
    return DoctorLimit(True, plan.max_doctors, count, None)


def can_add_doctor(session: Session, hospital_account: Account) -> bool:
    """May this hospital add one more doctor now? (Checked server-side, spec §6.)

    Call it in the transaction that inserts the doctor: it locks the hospital's
    account row, which serialises concurrent additions.
    """
    return doctor_limit(session, hospital_account, lock=True).can_add


def require_doctor_seat(session: Session, hospital_account: Account) -> None:
    """Refuse (403, naming the subscription) unless the hospital may add a doctor now.

    Locks the hospital's account row until the transaction ends, like `can_add_doctor`.
    """
    limit = doctor_limit(session, hospital_account, lock=True)
    if limit.can_add:
        return
    if limit.max_doctors is not None:
        raise Forbidden(ADD_REFUSED_LIMIT.format(max_doctors=limit.max_doctors))
    raise Forbidden(ADD_REFUSED_NO_SUBSCRIPTION)
