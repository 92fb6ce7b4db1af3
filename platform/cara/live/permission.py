"""Who may use the AI assistant: the one place that decides.

Every assistant entry point (live consoles, summaries, radiotherapy chat)
calls `check_assistant_permission`: doctors only, the radiotherapy chat for
Radiotherapists only, and the subscription gate of spec §6 (independent
doctors need an active or trialing subscription of their own,
hospital-created doctors their hospital's). The subscription rule itself is
`cara.subscriptions.service.grants_clinical_access`, shared with the pages.
"""

from __future__ import annotations

from typing import Literal

from sqlalchemy.orm import Session

from cara.auth.principal import NO_PERMISSION, Principal
from cara.kit.db import session_scope
from cara.kit.errors import Forbidden
from cara.plans.service import CAMERA_AND_SCREEN, PLAN_REVIEW_CHAT, REPORT_DRAFTS
from cara.subscriptions.service import (
    current_subscription,
    doctor_entitlements,
    grants_clinical_access,
    hospital_status,
)

Feature = Literal["live", "summary", "chat"]
CHAT_SPECIALTY = "Radiotherapist"
CHAT_ONLY_RADIOTHERAPISTS = "The radiotherapy chat is available to Radiotherapists only."
NEEDS_SUBSCRIPTION = "An active subscription is required to use Cara. Please choose a plan."
# A feature the plan does not include: 403 naming the plan (the web app hides or explains it).
NOT_IN_PLAN = {
    REPORT_DRAFTS: "Report drafts are not part of the {plan} plan. Please choose a plan that includes them.",
    PLAN_REVIEW_CHAT: (
        "The radiotherapy plan review chat is not part of the {plan} plan. "
        "Please choose a plan that includes it."
    ),
    CAMERA_AND_SCREEN: (
        "Camera and screen sharing are not part of the {plan} plan. Please choose a plan that includes them."
    ),
}


def not_in_plan(entitlement: str, plan_name: str | None) -> str:
    return NOT_IN_PLAN[entitlement].format(plan=plan_name or "current")


def check_assistant_permission(
    principal: Principal, feature: Feature, *, needs: str | None = None
) -> frozenset[str]:
    """Raise Forbidden unless `principal` may use `feature` (and, with `needs`, unless their plan
    includes that entitlement: 403 naming the plan). Returns the plan's entitlements."""
    if principal.role != "doctor":
        raise Forbidden(NO_PERMISSION)
    if feature == "chat" and principal.account.specialty != CHAT_SPECIALTY:
        raise Forbidden(CHAT_ONLY_RADIOTHERAPISTS)
    # Subscriptions are platform rows: read them outside the caller's tenant session.
    with session_scope() as session:
        if not grants_clinical_access(session, principal.account):
            raise Forbidden(NEEDS_SUBSCRIPTION)
        allowed = doctor_entitlements(session, principal.account)
        if needs is not None and needs not in allowed:
            raise Forbidden(not_in_plan(needs, plan_name(session, principal)))
    return allowed


def plan_name(session: Session, principal: Principal) -> str | None:
    """The name of the plan the doctor is on (a hospital-created doctor: the hospital's)."""
    account = principal.account
    if account.hospital_id is not None:
        return hospital_status(session, account).planName
    plan = current_subscription(session, account).planId
    return plan.name if plan is not None else None
