"""The plans Cara sells (prices in US cents).

Hospital plans cap the number of doctors (`max_doctors`). When a plan has no
explicit annual price, the annual price is 12 x monthly with 15% off (spec §9).
"""

from __future__ import annotations

from dataclasses import dataclass, field

ANNUAL_DISCOUNT = 0.15

# What a plan lets its doctors use beyond the live assistant, its transcript and summaries (every
# plan has those). The server enforces them (`cara.live.permission`); the features' display text
# is the plan's `features` list.
REPORT_DRAFTS = "report-drafts"
PLAN_REVIEW_CHAT = "plan-review-chat"
CAMERA_AND_SCREEN = "camera-and-screen"
EVERY_ENTITLEMENT = frozenset({REPORT_DRAFTS, PLAN_REVIEW_CHAT, CAMERA_AND_SCREEN})


@dataclass(frozen=True)
class PlanSpec:
    code: str
    audience: str
    name: str
    price_cents: int
    annual_price_cents: int | None
    max_doctors: int | None
    features: list[str] = field(default_factory=list)
    sort_order: int = 0
    entitlements: frozenset[str] = EVERY_ENTITLEMENT


def annual_price_cents(monthly_cents: int, annual_cents: int | None) -> int:
    if annual_cents is not None:
        return annual_cents
    return round(monthly_cents * 12 * (1 - ANNUAL_DISCOUNT))


CATALOG: tuple[PlanSpec, ...] = (
    PlanSpec(
        "hospital-bronze",
        "hospital",
        "Bronze",
        9_900,
        99_000,
        5,
        [
            "Up to 5 doctors",
            "Live Cara assistant for every specialty",
            "Conversation summaries",
            "Email support",
        ],
        10,
        # A hospital's live assistant takes the camera and screen ("for every specialty").
        frozenset({CAMERA_AND_SCREEN}),
    ),
    PlanSpec(
        "hospital-silver",
        "hospital",
        "Silver",
        24_900,
        249_000,
        15,
        [
            "Up to 15 doctors",
            "Everything in Bronze",
            "Report drafts",
            "Radiotherapy plan review chat",
            "Priority support",
        ],
        20,
    ),
    PlanSpec(
        "hospital-gold",
        "hospital",
        "Gold",
        49_900,
        479_000,
        50,
        ["Up to 50 doctors", "Everything in Silver", "Per-hospital data export", "Dedicated success manager"],
        30,
    ),
    PlanSpec(
        "doctor-basic",
        "doctor",
        "Basic",
        1_900,
        None,
        None,
        ["Live Cara assistant for your specialty", "Live transcript", "Conversation summaries"],
        10,
        frozenset(),
    ),
    PlanSpec(
        "doctor-professional",
        "doctor",
        "Professional",
        3_900,
        None,
        None,
        [
            "Everything in Basic",
            "Report drafts",
            "Camera and screen sharing",
            "Radiotherapy plan review chat",
        ],
        20,
    ),
)


def entitlements_of(plan_code: str | None) -> frozenset[str]:
    """What the plan with this code allows. A trial, or a plan the catalog does not know (one
    made for a single customer), allows everything."""
    for spec in CATALOG:
        if spec.code == plan_code:
            return spec.entitlements
    return EVERY_ENTITLEMENT
