"""Rules of the billing endpoints. Services never commit; the endpoint does.

Who may buy what: hospitals buy hospital plans, independent doctors buy doctor
plans, hospital-created doctors buy nothing (their hospital's subscription
covers them). The `userId` a client sends is compared with the principal and
never used on its own.
"""

from __future__ import annotations

import contextlib
import logging
import re
import uuid
from typing import Any

import stripe
from sqlalchemy.orm import Session

from cara.auth.principal import NO_PERMISSION, Principal
from cara.billing import catalog, repository, seats, stripe_api
from cara.billing.schemas import (
    CheckoutOut,
    CheckoutRequest,
    ConfirmRequest,
    DoctorLimitOut,
    PlanOut,
    PortalOut,
    VerifyOut,
)
from cara.billing.sync import sync_subscription
from cara.config import get_settings
from cara.kit.errors import Conflict, Forbidden, NotFound, ServiceUnavailable, ValidationFailed
from cara.kit.validation import FieldErrors, blank
from cara.models import Account, Plan, Subscription
from cara.subscriptions.schemas import CurrentSubscription
from cara.subscriptions.service import current_subscription

log = logging.getLogger("cara.billing")

AUDIENCES = ("hospital", "doctor")
HOSPITAL_COVERED = (
    "Doctors registered by a hospital are covered by their hospital's subscription "
    "and cannot buy a plan of their own."
)
NOT_YOUR_ACCOUNT = "You can only manage the subscription of your own account."
NOT_YOUR_SESSION = "This checkout session belongs to another account."
NOT_YOUR_HOSPITAL = "You can only check the doctor limit of your own hospital."
PLAN_NOT_FOR_YOU = "This plan is not available for your account type."
SESSION_NOT_YET = "Checkout session not yet found. Please try again shortly."
SUBSCRIPTION_NOT_YET = "Subscription not yet found: your payment is still being confirmed."
SESSION_EXPIRED = "This checkout session has expired. Please choose a plan again."
ALREADY_ON_PLAN = "You are already subscribed to this plan."
NO_BILLING_ACCOUNT = "You have no billing account yet. Choose a plan first."
# Checkout Session ids as Stripe issues them (cs_test_..., cs_live_...).
SESSION_ID = re.compile(r"^cs_[A-Za-z0-9_]{1,250}$")
RETURN_PATH = {"doctor": "/doctor-subscription", "hospital": "/subscription"}


def _url(path: str) -> str:
    return get_settings().public_base_url.rstrip("/") + path


def audience_of(account: Account) -> str:
    """Which plans this account may buy (403 for hospital-created doctors and admins)."""
    if account.role == "hospital":
        return "hospital"
    if account.role == "doctor":
        if account.hospital_id is not None:
            raise Forbidden(HOSPITAL_COVERED)
        return "doctor"
    raise Forbidden(NO_PERMISSION)


# ---------------------------------------------------------------- plans


def plan_out(plan: Plan) -> PlanOut:
    return PlanOut.model_validate(
        {
            "_id": str(plan.id),
            "name": plan.name,
            "price": plan.price_cents / 100,
            "annualPrice": catalog.annual_cents(plan) / 100,
            "maxDoctors": plan.max_doctors,
            "features": list(plan.features or []),
        }
    )


def list_plans(session: Session, audience: str) -> list[PlanOut]:
    kind = audience.strip().lower()
    if kind not in AUDIENCES:
        raise NotFound("Unknown plan type: use hospital or doctor.")
    return [plan_out(plan) for plan in repository.active_plans(session, kind)]


def verify(session: Session) -> VerifyOut:
    """Is payment set up: keys present and every plan priced in Stripe?"""
    settings = get_settings()
    if not stripe_api.is_configured() or not settings.stripe_webhook_secret:
        raise ServiceUnavailable(stripe_api.NOT_CONFIGURED)
    unsynced = [plan.code for plan in repository.active_plans(session) if not catalog.is_synced(plan)]
    if unsynced:
        log.warning("plans not in stripe; run python -m cara.billing sync-catalog", extra={"plans": unsynced})
        raise ServiceUnavailable(stripe_api.NOT_CONFIGURED)
    return VerifyOut(ok=True, message="Payment system is ready", testMode=stripe_api.test_mode())


# ---------------------------------------------------------------- checkout


def _checked_request(principal: Principal, body: CheckoutRequest) -> tuple[str, str]:
    errors = FieldErrors()
    errors.require("planName", body.planName, "Plan name is required")
    cycle = (body.billingCycle or "monthly").strip().lower()
    if cycle not in catalog.CYCLES:
        errors.add("billingCycle", "Billing cycle must be monthly or annual")
    errors.require("userId", body.userId, "User ID is required")
    if errors:
        raise ValidationFailed(dict(errors))
    if (body.userId or "").strip() != str(principal.id):
        raise Forbidden(NOT_YOUR_ACCOUNT)
    return (body.planName or "").strip(), cycle


def _plan_for(session: Session, name: str, audience: str) -> Plan:
    plans = repository.plan_by_name(session, name)
    mine = next((p for p in plans if p.audience == audience), None)
    if mine is not None:
        return mine
    if plans:
        raise Forbidden(PLAN_NOT_FOR_YOU)
    raise NotFound("Plan not found.")


def _price_of(client: stripe.StripeClient, plan: Plan, cycle: str) -> str:
    """The plan's Stripe price, creating the plan in Stripe if the catalogue was never synced."""
    price = catalog.price_id(plan, cycle)
    if price is None:
        catalog.sync_plan(client, plan)
        price = catalog.price_id(plan, cycle)
    assert price is not None
    return price


def _live_paid(session: Session, account_id: uuid.UUID) -> Subscription | None:
    return next(
        (s for s in repository.live_subscriptions(session, account_id) if s.stripe_subscription_id), None
    )


def ensure_customer(client: stripe.StripeClient, account: Account, *, replacing: str | None = None) -> str:
    """The account's Stripe customer, created on first use (the account row must be locked).

    `replacing` names a customer Stripe no longer knows (deleted in the dashboard, or a
    restarted test double): a new one is created in its place.
    """
    if account.stripe_customer_id and account.stripe_customer_id != replacing:
        return account.stripe_customer_id
    customer = client.v1.customers.create(
        params={
            "email": account.email,
            "name": account.name,
            "metadata": {"account_id": str(account.id), "role": account.role},
        },
        # A retry, or a second request after a failed commit, gets the same customer back.
        options={"idempotency_key": f"cara-customer-{account.id}-{replacing or 'first'}"},
    )
    account.stripe_customer_id = customer.id
    return customer.id


def _customer_gone(exc: stripe.InvalidRequestError) -> bool:
    return stripe_api.is_missing(exc) and exc.param == "customer"


def create_checkout(session: Session, principal: Principal, body: CheckoutRequest) -> CheckoutOut:
    """A Checkout Session for a new subscription, or a Portal confirmation for a plan switch."""
    name, cycle = _checked_request(principal, body)
    audience = audience_of(principal.account)
    plan = _plan_for(session, name, audience)
    client = stripe_api.client()
    account = repository.lock_account(session, principal.id)  # one checkout at a time per account
    assert account is not None
    with stripe_api.provider_errors():
        price = _price_of(client, plan, cycle)
        live = _live_paid(session, account.id)
        if live is not None and live.stripe_subscription_id:
            same = live.plan_id == plan.id and live.billing_cycle == cycle
            if same and not live.cancel_at_period_end:
                raise Conflict(ALREADY_ON_PLAN)
            if same:  # ending at the period's end: the Portal is where it is renewed
                return CheckoutOut(url=_portal_url(client, account), mode="portal")
            return CheckoutOut(
                url=_switch_url(client, account, live.stripe_subscription_id, price), mode="portal"
            )
        customer = ensure_customer(client, account)
        try:
            checkout = _new_checkout(client, account, customer, plan, price, cycle)
        except stripe.InvalidRequestError as exc:
            if not _customer_gone(exc):
                raise
            customer = ensure_customer(client, account, replacing=customer)
            checkout = _new_checkout(client, account, customer, plan, price, cycle)
    if not checkout.url:
        raise ServiceUnavailable(stripe_api.PROVIDER_DOWN)
    return CheckoutOut(url=checkout.url, mode="checkout", sessionId=checkout.id)


def _new_checkout(
    client: stripe.StripeClient, account: Account, customer: str, plan: Plan, price: str, cycle: str
) -> stripe.checkout.Session:
    _expire_open_sessions(client, customer)
    metadata = {"account_id": str(account.id), "plan_code": plan.code, "billing_cycle": cycle}
    params: dict[str, Any] = {
        "mode": "subscription",
        "customer": customer,
        "client_reference_id": str(account.id),
        "line_items": [{"price": price, "quantity": 1}],
        "success_url": _url("/subscription-success?session_id={CHECKOUT_SESSION_ID}"),
        "cancel_url": _url(RETURN_PATH[plan.audience]),
        "metadata": metadata,
        "subscription_data": {"metadata": metadata},
    }
    return client.v1.checkout.sessions.create(params=params)  # type: ignore[arg-type]


def _expire_open_sessions(client: stripe.StripeClient, customer: str) -> None:
    """At most one open checkout per account: two paid checkouts would mean two subscriptions."""
    for old in client.v1.checkout.sessions.list(params={"customer": customer, "status": "open"}).data:
        # Completed or expired in the meantime: the sync handles a completed one.
        with contextlib.suppress(stripe.InvalidRequestError):
            client.v1.checkout.sessions.expire(old.id)


def _switch_url(client: stripe.StripeClient, account: Account, subscription_id: str, price: str) -> str:
    """The Portal's confirmation page for switching the live subscription to `price`."""
    current = client.v1.subscriptions.retrieve(subscription_id)
    item = current["items"].data[0].id
    back = _url(RETURN_PATH[audience_of(account)])
    portal = client.v1.billing_portal.sessions.create(
        params={
            "customer": account.stripe_customer_id or str(current.customer),
            "return_url": back,
            "flow_data": {
                "type": "subscription_update_confirm",
                "subscription_update_confirm": {
                    "subscription": subscription_id,
                    "items": [{"id": item, "price": price}],
                },
                "after_completion": {"type": "redirect", "redirect": {"return_url": back}},
            },
        }
    )
    return portal.url


# ---------------------------------------------------------------- after checkout


def confirm(session: Session, principal: Principal, body: ConfirmRequest) -> CurrentSubscription:
    """The success page's call: sync the session's subscription now and return it."""
    if blank(body.sessionId):
        raise ValidationFailed({"sessionId": "Missing session ID. Cannot confirm subscription."})
    session_id = (body.sessionId or "").strip()
    if not SESSION_ID.match(session_id):
        raise NotFound("Checkout session not found.")
    audience_of(principal.account)
    client = stripe_api.client()
    with stripe_api.provider_errors():
        try:
            checkout = client.v1.checkout.sessions.retrieve(session_id)
        except stripe.StripeError as exc:
            if stripe_api.is_missing(exc):
                raise NotFound(SESSION_NOT_YET) from exc
            raise
        if checkout.client_reference_id != str(principal.id):
            raise Forbidden(NOT_YOUR_SESSION)
        if checkout.status == "expired":
            raise Conflict(SESSION_EXPIRED)
        sub_id = checkout.subscription
        sub_id = sub_id if isinstance(sub_id, str) or sub_id is None else sub_id.id
        if checkout.status != "complete" or not sub_id:
            raise Conflict(SUBSCRIPTION_NOT_YET)
        row = sync_subscription(session, client, sub_id, account_id=principal.id)
    if row is None:
        raise Conflict(SUBSCRIPTION_NOT_YET)
    session.flush()
    return current_subscription(session, principal.account)


def portal(session: Session, principal: Principal) -> PortalOut:
    """A Customer Portal session: change plan, update the card, cancel."""
    audience_of(principal.account)  # hospital-created doctors have nothing to manage
    client = stripe_api.client()
    if not principal.account.stripe_customer_id:
        raise Conflict(NO_BILLING_ACCOUNT)
    with stripe_api.provider_errors():
        try:
            return PortalOut(url=_portal_url(client, principal.account))
        except stripe.InvalidRequestError as exc:
            if not _customer_gone(exc):
                raise
            raise Conflict(NO_BILLING_ACCOUNT) from exc


def _portal_url(client: stripe.StripeClient, account: Account) -> str:
    created = client.v1.billing_portal.sessions.create(
        params={
            "customer": account.stripe_customer_id or "",
            "return_url": _url(RETURN_PATH[audience_of(account)]),
        }
    )
    return created.url


# ---------------------------------------------------------------- hospitals


def check_doctor_limit(session: Session, principal: Principal, hospital_id: str) -> DoctorLimitOut:
    if principal.hospital_id is None or hospital_id.strip().lower() != str(principal.hospital_id):
        raise Forbidden(NOT_YOUR_HOSPITAL)
    limit = seats.doctor_limit(session, principal.account)
    return DoctorLimitOut(
        canAdd=limit.can_add,
        maxDoctors=limit.max_doctors,
        doctorCount=limit.doctor_count,
        message=limit.reason,
    )
