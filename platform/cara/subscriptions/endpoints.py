"""/api/subscription/current and /api/doctors/hospital-subscription-status (spec §7)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from cara.auth.dependencies import DbSession
from cara.auth.principal import Authenticator, DoctorPrincipal, Principal
from cara.kit.openapi import error_responses
from cara.subscriptions import service
from cara.subscriptions.schemas import CurrentSubscription, HospitalSubscriptionStatus

router = APIRouter(tags=["subscriptions"])

DoctorOrHospital = Annotated[Principal, Depends(Authenticator("doctor", "hospital"))]


@router.get(
    "/subscription/current",
    operation_id="subscription_current",
    response_model=CurrentSubscription,
    responses=error_responses(401, 403),
)
def current(principal: DoctorOrHospital, session: DbSession) -> CurrentSubscription:
    """The caller's own subscription (status `inactive` and no plan when there is none)."""
    return service.current_subscription(session, principal.account)


@router.get(
    "/doctors/hospital-subscription-status",
    operation_id="doctors_hospital_subscription_status",
    response_model=HospitalSubscriptionStatus,
    responses=error_responses(401, 403),
)
def hospital_subscription_status(
    principal: DoctorPrincipal, session: DbSession
) -> HospitalSubscriptionStatus:
    """Whether the signed-in hospital-created doctor's hospital has an active subscription."""
    return service.hospital_status(session, principal.account)
