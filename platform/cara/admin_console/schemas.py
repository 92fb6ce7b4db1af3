"""Bodies of /api/admin (field names as the spec's admin entities, §3)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, Field


class RevenueDataset(BaseModel):
    label: str
    data: list[float]


class RevenueData(BaseModel):
    labels: list[str]
    datasets: list[RevenueDataset]


class SubscriptionDetails(BaseModel):
    total: int = 0
    active: int = 0
    expired: int = 0
    byPlan: dict[str, int] = Field(default_factory=dict)
    byType: dict[str, int] = Field(default_factory=lambda: {"hospital": 0, "doctor": 0})


class StatsOut(BaseModel):
    totalHospitals: int
    totalDoctors: int
    activeSubscriptions: int
    monthlyRevenue: float
    revenueData: RevenueData
    subscriptionDetails: SubscriptionDetails
    computedAt: datetime | None = None


class Series(BaseModel):
    labels: list[str] = Field(default_factory=list)
    data: list[float] = Field(default_factory=list)


class SubscriptionAnalyticsOut(BaseModel):
    totalRevenue: float = 0
    activeSubscriptions: int = 0
    subscriptionTrends: Series = Field(default_factory=Series)
    revenueByPlan: Series = Field(default_factory=Series)


class HospitalOut(BaseModel):
    id: str
    name: str
    email: str
    city: str
    country: str
    isVerified: bool
    status: Literal["active", "suspended"]
    doctorsCount: int
    createdAt: datetime
    # On one hospital's page only (lists leave them out: each is a read in its schema).
    recordingHeldBytes: int | None = Field(default=None, description="recorded audio awaiting processing")
    recordingQuotaBytes: int | None = None


class DoctorOut(BaseModel):
    id: str
    name: str
    email: str
    specialization: str | None
    hospitalId: str | None
    hospitalName: str | None
    isVerified: bool
    isActive: bool
    createdAt: datetime


class PaymentOut(BaseModel):
    id: str
    userName: str | None
    plan: str | None
    amount: float
    status: str
    date: datetime


class AuditEventOut(BaseModel):
    id: int
    action: str
    actorEmail: str | None
    actorRole: str | None
    targetType: str | None
    targetId: str | None
    tenantSchema: str | None
    createdAt: datetime


class AiUsageOut(BaseModel):
    """Live AI use of one hospital (or of the independent doctors together) over a period."""

    id: str = Field(description="the hospital's id, or 'independent' for the independent doctors")
    name: str
    kind: Literal["hospital", "independent"]
    aiMinutes: float = Field(description="minutes consultations were connected to the live model")
    tokens: int = Field(description="model tokens of those consultations (the provider's usageMetadata)")
    fromDate: date = Field(description="first day counted (UTC)")
    toDate: date = Field(description="last day counted (UTC), today")
