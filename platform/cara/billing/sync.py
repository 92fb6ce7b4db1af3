"""Make our rows equal to Stripe's view: the one function behind webhooks and the success page.

`sync_subscription` re-fetches the subscription from Stripe and writes what it
says, so the order and number of the events that led here do not matter: a
duplicate, a `created` after an `updated`, or the success page overtaking the
webhook all end in the same row. Every sync of one account holds that
account's row lock and reads Stripe only once it has it, so two syncs never
apply snapshots out of order.

One account never holds two live subscriptions (the partial unique index
`uq_subscriptions_one_live_per_account` is the last line):

* a paid subscription that goes live ends the signup trial;
* if Stripe really has two live subscriptions for one account (two checkouts
  completed at the same moment), the older one is kept and the newer one is
  cancelled at Stripe; each is re-read first, so an old subscription that was
  cancelled a moment ago does not push out its successor.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from datetime import UTC, datetime
from typing import Any

import stripe
from sqlalchemy.orm import Session

from cara.analytics import service as analytics
from cara.billing import repository
from cara.billing.stripe_api import is_missing
from cara.models import Account, Plan, Subscription
from cara.models.base import utcnow
from cara.models.platform import LIVE_SUBSCRIPTION_STATUSES

log = logging.getLogger("cara.billing")

SUBSCRIPTION_EVENTS = frozenset(
    {
        "customer.subscription.created",
        "customer.subscription.updated",
        "customer.subscription.deleted",
        "customer.subscription.paused",
        "customer.subscription.resumed",
        "customer.subscription.trial_will_end",
        "customer.subscription.pending_update_applied",
        "customer.subscription.pending_update_expired",
    }
)
CHECKOUT_EVENTS = frozenset({"checkout.session.completed", "checkout.session.async_payment_succeeded"})
INVOICE_EVENTS = frozenset(
    {"invoice.paid", "invoice.payment_failed", "invoice.voided", "invoice.marked_uncollectible"}
)


class RetryLater(Exception):
    """A related object is not there yet; the job is retried instead of dropped."""


def _ts(value: int | None) -> datetime | None:
    return datetime.fromtimestamp(value, UTC) if value else None


def _id(value: Any) -> str | None:
    """An expandable field's id, whether Stripe sent the id or the object."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict) and not hasattr(value, "id"):  # raw event JSON
        inner = value.get("id")
        return inner if isinstance(inner, str) else None
    return str(value.id)


def _metadata(obj: Any, key: str) -> str | None:
    """One metadata value of a Stripe object (the SDK types metadata loosely)."""
    metadata = getattr(obj, "metadata", None)
    value = metadata.get(key) if metadata else None
    return value if isinstance(value, str) and value else None


# ---------------------------------------------------------------- subscriptions


def fetch_subscription(client: stripe.StripeClient, subscription_id: str) -> stripe.Subscription:
    try:
        return client.v1.subscriptions.retrieve(subscription_id, params={"expand": ["latest_invoice"]})
    except stripe.StripeError as exc:
        if is_missing(exc):
            # Stripe keeps cancelled subscriptions readable: a 404 means "not there yet".
            raise RetryLater(f"subscription {subscription_id} not found at Stripe") from exc
        raise


def _owner_id(session: Session, sub: stripe.Subscription) -> uuid.UUID | None:
    """Our account for a Stripe subscription: by its customer, else by the metadata we set."""
    customer = _id(sub.customer)
    if customer:
        owner = repository.account_by_customer(session, customer)
        if owner is not None:
            return owner.id
    raw = _metadata(sub, "account_id")
    try:
        return uuid.UUID(str(raw)) if raw else None
    except ValueError:
        return None


def sync_subscription(
    session: Session,
    client: stripe.StripeClient,
    subscription_id: str,
    *,
    account_id: uuid.UUID | None = None,
) -> Subscription | None:
    """Write Stripe's current state of one subscription; returns our row (None: not ours)."""
    if account_id is None:
        known = repository.subscription_by_stripe_id(session, subscription_id)
        if known is not None:
            account_id = known.account_id
        else:
            account_id = _owner_id(session, fetch_subscription(client, subscription_id))
    if account_id is None:
        log.warning(
            "stripe subscription of no account; ignored", extra={"stripe_subscription": subscription_id}
        )
        return None
    owner = repository.lock_account(session, account_id)
    if owner is None:
        log.warning(
            "stripe subscription of a removed account", extra={"stripe_subscription": subscription_id}
        )
        return None
    sub = fetch_subscription(client, subscription_id)  # read only now that we hold the lock
    if _id(sub.customer) and owner.stripe_customer_id not in (None, _id(sub.customer)):
        log.warning("stripe subscription of another customer; ignored", extra={"stripe_subscription": sub.id})
        return None

    if sub.status in LIVE_SUBSCRIPTION_STATUSES:
        sub = _make_room(session, client, owner, sub)
    row = repository.subscription_by_stripe_id(session, sub.id)
    if row is None:
        row = Subscription(account_id=owner.id, stripe_subscription_id=sub.id, status=sub.status)
        session.add(row)
    _apply(session, row, sub)
    session.flush()
    _record_latest_invoice(session, row, sub)
    analytics.figures_changed(session)
    return row


def _make_room(
    session: Session, client: stripe.StripeClient, owner: Account, sub: stripe.Subscription
) -> stripe.Subscription:
    """Before `sub` is written as live, end or re-check every other live row of the account."""
    for other in repository.live_subscriptions(session, owner.id):
        if other.stripe_subscription_id == sub.id:
            continue
        if other.stripe_subscription_id is None:
            other.status = "canceled"  # the signup trial ends when a paid subscription starts
            continue
        theirs = fetch_subscription(client, other.stripe_subscription_id)
        _apply(session, other, theirs)
        if theirs.status not in LIVE_SUBSCRIPTION_STATUSES:
            continue
        # Two live subscriptions at Stripe for one account: keep the older one.
        if (theirs.created, theirs.id) <= (sub.created, sub.id):
            log.warning("duplicate stripe subscription cancelled", extra={"stripe_subscription": sub.id})
            sub = _cancel(client, sub)
        else:
            log.warning("duplicate stripe subscription cancelled", extra={"stripe_subscription": theirs.id})
            _apply(session, other, _cancel(client, theirs))
    session.flush()  # the others are no longer live before this one becomes live
    return sub


def _cancel(client: stripe.StripeClient, sub: stripe.Subscription) -> stripe.Subscription:
    # Already cancelled by someone else: the re-read below says so.
    with contextlib.suppress(stripe.InvalidRequestError):
        client.v1.subscriptions.cancel(sub.id)
    return fetch_subscription(client, sub.id)


def _plan_of(session: Session, price: stripe.Price) -> tuple[Plan | None, str]:
    interval = price.recurring.interval if price.recurring else "month"
    found = repository.plan_by_price(session, price.id)
    if found is not None:
        return found
    # A price retired by a later catalogue sync still names its plan in the metadata.
    code = _metadata(price, "plan_code")
    plan = repository.plan_by_code(session, code) if code else None
    return plan, "annual" if interval == "year" else "monthly"


def _apply(session: Session, row: Subscription, sub: stripe.Subscription) -> None:
    items = sub["items"].data
    if items:
        plan, cycle = _plan_of(session, items[0].price)
        row.plan_id = plan.id if plan is not None else row.plan_id
        row.billing_cycle = cycle
        row.current_period_start = _ts(items[0].current_period_start)
        row.current_period_end = _ts(items[0].current_period_end)
    row.status = sub.status
    row.stripe_customer_id = _id(sub.customer)
    row.trial_end = _ts(sub.trial_end)
    row.cancel_at_period_end = bool(sub.cancel_at_period_end or sub.cancel_at)
    row.updated_at = utcnow()


def _record_latest_invoice(session: Session, row: Subscription, sub: stripe.Subscription) -> None:
    invoice = sub.latest_invoice
    if invoice is None or isinstance(invoice, str):
        return
    record_payment(session, invoice, row)


# ---------------------------------------------------------------- invoices


PAYMENT_STATUS = {"paid": "succeeded", "void": "void", "uncollectible": "failed"}


def payment_status(invoice: stripe.Invoice) -> str:
    if invoice.status in PAYMENT_STATUS:
        return PAYMENT_STATUS[invoice.status]
    return "failed" if invoice.status == "open" and invoice.attempted else "pending"


def record_payment(session: Session, invoice: stripe.Invoice, row: Subscription) -> None:
    """The admin console's Payment row for one invoice (idempotent by invoice id)."""
    status = payment_status(invoice)
    if status == "pending":
        return  # nothing happened yet that the payment history should show
    transitions = invoice.status_transitions
    paid_at = _ts(transitions.paid_at) if transitions is not None else None
    amount = invoice.amount_paid if status == "succeeded" else invoice.amount_due
    repository.upsert_payment(
        session,
        invoice_id=invoice.id,
        account_id=row.account_id,
        subscription_id=row.id,
        plan_id=row.plan_id,
        amount_cents=int(amount or 0),
        currency=invoice.currency or "usd",
        status=status,
        paid_at=paid_at or _ts(invoice.created),
    )
    analytics.figures_changed(session)
    if (
        status == "succeeded"
        and paid_at is not None
        and (row.last_payment_at is None or row.last_payment_at < paid_at)
    ):
        row.last_payment_at = paid_at


def invoice_subscription_id(invoice: stripe.Invoice) -> str | None:
    parent = invoice.parent
    details = parent.subscription_details if parent is not None else None
    return _id(details.subscription) if details is not None else None


def record_invoice(session: Session, client: stripe.StripeClient, invoice_id: str) -> None:
    """Re-read the invoice and record its payment; its subscription is synced first."""
    try:
        invoice = client.v1.invoices.retrieve(invoice_id)
    except stripe.StripeError as exc:
        if is_missing(exc):
            raise RetryLater(f"invoice {invoice_id} not found at Stripe") from exc
        raise
    sub_id = invoice_subscription_id(invoice)
    if sub_id is None:
        return  # a one-off invoice: not a subscription payment
    row = sync_subscription(session, client, sub_id)
    if row is not None:
        record_payment(session, invoice, row)


# ---------------------------------------------------------------- events


def handle_event(session: Session, client: stripe.StripeClient, type_: str, obj: dict[str, Any]) -> bool:
    """Act on one stored event; returns False for events we do not use."""
    object_id = obj.get("id")
    if not isinstance(object_id, str):
        return False
    if type_ in CHECKOUT_EVENTS:
        sub_id = _id(obj.get("subscription")) if obj.get("mode") == "subscription" else None
        if not sub_id:
            return False
        sync_subscription(session, client, sub_id)
        return True
    if type_ in SUBSCRIPTION_EVENTS:
        sync_subscription(session, client, object_id)
        return True
    if type_ in INVOICE_EVENTS:
        record_invoice(session, client, object_id)
        return True
    return False
