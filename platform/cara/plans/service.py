"""What other domains read of the plans: the features each plan includes (`catalog.py`)."""

from __future__ import annotations

from cara.plans.catalog import (
    CAMERA_AND_SCREEN,
    EVERY_ENTITLEMENT,
    PLAN_REVIEW_CHAT,
    REPORT_DRAFTS,
    entitlements_of,
)

__all__ = ["CAMERA_AND_SCREEN", "EVERY_ENTITLEMENT", "PLAN_REVIEW_CHAT", "REPORT_DRAFTS", "entitlements_of"]
