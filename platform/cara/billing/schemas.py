"""Request and response bodies of the billing endpoints (spec §3 "Subscription plan", §7).

Request fields are optional strings at the type level: the service checks them
and answers with a clear message per field, never a generic "field required".
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class _In(BaseModel):
    model_config = ConfigDict(extra="ignore", str_max_length=500)

    @field_validator("*", mode="before")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if isinstance(value, str) and "\x00" in value:
            raise ValueError("Must not contain NUL characters")
        return value


class PlanOut(BaseModel):
    """A plan as the plan pickers show it; prices in dollars."""

    model_config = ConfigDict(populate_by_name=True)

    id: str = Field(serialization_alias="_id", validation_alias="_id")
    name: str
    price: float = Field(description="Monthly price")
    annualPrice: float = Field(
        description="Price of a year: the plan's own, else 12 x monthly with 15% off (spec §9)"
    )
    maxDoctors: int | None = Field(default=None, description="Doctor limit of a hospital plan")
    features: list[str] = []


class CheckoutRequest(_In):
    planName: str | None = None
    billingCycle: str | None = Field(default=None, description="monthly (default) or annual")
    userId: str | None = Field(default=None, description="Must be the signed-in account's own id")


class CheckoutOut(BaseModel):
    url: str = Field(description="Where to send the browser: Stripe Checkout, or the Portal for a switch")
    mode: Literal["checkout", "portal"] = Field(
        description="checkout: a new subscription; portal: confirm a plan switch of the live one"
    )
    sessionId: str | None = Field(default=None, description="The Checkout Session (mode checkout)")


class ConfirmRequest(_In):
    sessionId: str | None = None


class PortalOut(BaseModel):
    url: str


class VerifyOut(BaseModel):
    ok: bool
    message: str
    testMode: bool = Field(description="Payments go to a test account or the project's Stripe double")


class DoctorLimitOut(BaseModel):
    canAdd: bool
    maxDoctors: int | None = None
    doctorCount: int
    message: str | None = Field(default=None, description="Why no doctor can be added, when canAdd is false")


class WebhookAck(BaseModel):
    received: bool
    duplicate: bool = Field(description="The event was received before and is not processed again")
