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

from cara.auth.principal import NO_PERMISSION, Principal
from cara.kit.db import session_scope
from cara.kit.errors import Forbidden
from cara.subscriptions.service import grants_clinical_access

Feature = Literal["live", "summary", "chat"]
CHAT_SPECIALTY = "Radiotherapist"
CHAT_ONLY_RADIOTHERAPISTS = "The radiotherapy chat is available to Radiotherapists only."
NEEDS_SUBSCRIPTION = "An active subscription is required to use Cara. Please choose a plan."


def check_assistant_permission(principal: Principal, feature: Feature) -> None:
    """Raise Forbidden unless `principal` may use `feature`."""
    if principal.role != "doctor":
        raise Forbidden(NO_PERMISSION)
    if feature == "chat" and principal.account.specialty != CHAT_SPECIALTY:
        raise Forbidden(CHAT_ONLY_RADIOTHERAPISTS)
    # Subscriptions are platform rows: read them outside the caller's tenant session.
    with session_scope() as session:
        if not grants_clinical_access(session, principal.account):
            raise Forbidden(NEEDS_SUBSCRIPTION)
