"""/api/subscription/* (current subscription, plans, checkout, confirmation, portal, doctor
limit) and /api/stripe/*.

Thin routers: the rules are in cara.billing.service, the webhook in
cara.billing.events, the caller's current subscription in cara.subscriptions.service.
Every endpoint that talks to Stripe answers 503 'Payment system is not properly
configured' when no key is set.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Header, Request

from cara.auth import service as auth_service
from cara.auth.dependencies import DbSession
from cara.auth.principal import AnyPrincipal, Authenticator, HospitalPrincipal, Principal
from cara.billing import events, service
from cara.billing.schemas import (
    CheckoutOut,
    CheckoutRequest,
    ConfirmRequest,
    DoctorLimitOut,
    PlanOut,
    PortalOut,
    VerifyOut,
    WebhookAck,
)
from cara.kit.openapi import error_responses
from cara.subscriptions import service as subscriptions
from cara.subscriptions.schemas import CurrentSubscription

# Tags per route: the current subscription is listed under "subscriptions" in the API docs.
router = APIRouter()

DoctorOrHospital = Annotated[Principal, Depends(Authenticator("doctor", "hospital"))]


async def _raw_body(request: Request) -> bytes:
    # The signature covers the exact bytes Stripe sent: never a re-serialised JSON.
    return await request.body()


RawBody = Annotated[bytes, Depends(_raw_body)]


@router.get(
    "/subscription/current",
    operation_id="subscription_current",
    tags=["subscriptions"],
    response_model=CurrentSubscription,
    responses=error_responses(401, 403),
)
def current(principal: DoctorOrHospital, session: DbSession) -> CurrentSubscription:
    """The caller's own subscription (status `inactive` and no plan when there is none)."""
    return subscriptions.current_subscription(session, principal.account)


@router.get(
    "/subscription/plans/{audience}",
    operation_id="subscription_plans",
    tags=["billing"],
    response_model=list[PlanOut],
    responses=error_responses(401, 404),
)
def plans(audience: str, principal: AnyPrincipal, session: DbSession) -> list[PlanOut]:
    """The plans of one kind (`hospital` or `doctor`), cheapest first, with monthly and annual prices."""
    return service.list_plans(session, audience)


@router.post(
    "/subscription/create-checkout-session",
    operation_id="subscription_create_checkout_session",
    tags=["billing"],
    response_model=CheckoutOut,
    responses=error_responses(401, 403, 404, 409, 422, 503),
)
def create_checkout_session(
    body: CheckoutRequest, principal: DoctorOrHospital, session: DbSession
) -> CheckoutOut:
    """Start buying `planName` (`billingCycle` monthly or annual) for the signed-in account.

    `userId` must be the caller's own id. Hospitals buy hospital plans and independent doctors
    doctor plans; doctors registered by a hospital are refused (403). Returns the Stripe Checkout
    URL, or, when a paid subscription is already live, the Customer Portal page that confirms the
    switch (`mode` says which).
    """
    auth_service.require_verified_email(principal.account)
    out = service.create_checkout(session, principal, body)
    session.commit()
    return out


@router.post(
    "/subscription/confirm-session",
    operation_id="subscription_confirm_session",
    tags=["billing"],
    response_model=CurrentSubscription,
    responses=error_responses(401, 403, 404, 409, 422, 503),
)
def confirm_session(
    body: ConfirmRequest, principal: DoctorOrHospital, session: DbSession
) -> CurrentSubscription:
    """After Checkout: bring the subscription of `sessionId` in from Stripe and return it.

    Safe to race the webhook (both run the same sync). While Stripe has not finished, the answer
    is a 404 or 409 whose message contains 'not yet found': retry after a short wait.
    """
    out = service.confirm(session, principal, body)
    session.commit()
    return out


@router.post(
    "/subscription/portal-session",
    operation_id="subscription_portal_session",
    tags=["billing"],
    response_model=PortalOut,
    responses=error_responses(401, 403, 409, 503),
)
def portal_session(principal: DoctorOrHospital, session: DbSession) -> PortalOut:
    """A Stripe Customer Portal session for the caller: change plan, update the card, cancel."""
    return service.portal(session, principal)


@router.get(
    "/subscription/check-doctor-limit/{hospital_id}",
    operation_id="subscription_check_doctor_limit",
    tags=["billing"],
    response_model=DoctorLimitOut,
    responses=error_responses(401, 403),
)
def check_doctor_limit(hospital_id: str, principal: HospitalPrincipal, session: DbSession) -> DoctorLimitOut:
    """Whether the signed-in hospital (`hospital_id` must be its own) may add another doctor:
    its subscription must be active or trialing and below its plan's `maxDoctors`."""
    return service.check_doctor_limit(session, principal, hospital_id)


@router.get(
    "/stripe/verify",
    operation_id="stripe_verify",
    tags=["billing"],
    response_model=VerifyOut,
    responses=error_responses(401, 503),
)
def verify(principal: AnyPrincipal, session: DbSession) -> VerifyOut:
    """Whether payments are set up (keys present, plans priced in Stripe); 503 with
    'Payment system is not properly configured' otherwise. `testMode` marks test payments."""
    return service.verify(session)


@router.post(
    "/stripe/webhook",
    operation_id="stripe_webhook",
    tags=["billing"],
    response_model=WebhookAck,
    responses=error_responses(400, 503),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"type": "object", "description": "A Stripe event"}}},
        }
    },
)
def webhook(
    payload: RawBody,
    session: DbSession,
    stripe_signature: Annotated[str | None, Header(alias="Stripe-Signature")] = None,
) -> WebhookAck:
    """Stripe's event delivery. The signature is checked on the raw body (400 if missing or
    wrong); each event is stored once by its id and processed by a worker; a repeated delivery
    answers 200 without being processed again."""
    ack = events.receive(session, payload, stripe_signature)
    session.commit()
    return ack
