"""Response bodies of /api/subscription and the facility check (spec §3 "Subscription")."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class PlanRef(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    id: str = Field(serialization_alias="_id", validation_alias="_id")
    name: str
    features: list[str] = []
    maxDoctors: int | None = None
    price: float
    annualPrice: float | None = None


class CurrentSubscription(BaseModel):
    """The caller's subscription; `planId` is null and status `inactive` when there is none."""

    planId: PlanRef | None = None
    status: str
    billingCycle: str | None = None
    startDate: datetime | None = None
    endDate: datetime | None = None
    nextPaymentDate: datetime | None = None
    lastPaymentDate: datetime | None = None
    trialEndDate: datetime | None = None
    createdAt: datetime | None = None
    updatedAt: datetime | None = None


class HospitalSubscriptionStatus(BaseModel):
    """A hospital-created doctor's view of their hospital's subscription."""

    hospitalSubscriptionActive: bool
    status: str
    planName: str | None = Field(
        default=None, description="the hospital's plan (catalogue name, e.g. 'Bronze'); null without one"
    )
