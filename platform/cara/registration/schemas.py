"""Bodies of sign-up (POST /api/auth/signup) and admin invitations (POST /api/admin/invitations),
and the hospital and admin registration forms' rules (spec §3, §5).

A doctor's sign-up is the `NewDoctor` payload of `cara.doctors.schemas` (shared with Manage
Doctors) plus the profile lists; its form rules are `DOCTOR_FORMS["registration"]`. Request
fields are optional at the type level: the form rules check presence and format so every
message is the spec's exact text rather than a generic "field required".
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, Field

from cara.auth.passwords import MIN_LENGTH
from cara.auth.schemas import UserOut
from cara.doctors.schemas import DOCTOR_FORMS, NewDoctor
from cara.kit.bodies import RequestBody
from cara.kit.validation import FormRules


class CertificationIn(RequestBody):
    name: str | None = None
    issuer: str | None = None
    date: str | None = None


class WorkHistoryIn(RequestBody):
    hospital: str | None = None
    position: str | None = None
    startDate: str | None = None
    endDate: str | None = None
    description: str | None = None


class AvailabilityIn(RequestBody):
    day: str
    startTime: str = "09:00"
    endTime: str = "17:00"
    isAvailable: bool = False


class SignupRequest(NewDoctor):
    """One payload for the three roles; which fields matter depends on `role`."""

    role: str | None = Field(default="doctor", description="doctor, hospital or admin")
    # doctor, beside the NewDoctor fields
    education: list[Any] | None = None
    certifications: list[CertificationIn] | None = None
    workHistory: list[WorkHistoryIn] | None = None
    availability: list[AvailabilityIn] | None = None
    # hospital
    address: str | None = Field(default=None, max_length=500)
    type: str | None = Field(default=None, max_length=16)
    registrationNumber: str | None = Field(default=None, max_length=100)
    capacity: int | None = None
    website: str | None = Field(default=None, max_length=500)
    # admin
    invitationToken: str | None = Field(default=None, description="required for role=admin")


class AuthData(BaseModel):
    token: str
    user: UserOut


class SignupResponse(BaseModel):
    message: str
    data: AuthData


class SignupPendingData(BaseModel):
    email: str


class SignupPending(BaseModel):
    """The answer to a doctor or hospital signing themselves up, whether the email is free or not."""

    message: str
    data: SignupPendingData


class CompleteSignupIn(RequestBody):
    token: str | None = Field(default=None, description="the token of the mailed link")


class InvitationIn(RequestBody):
    email: str | None = None


class InvitationOut(BaseModel):
    email: str
    expiresAt: datetime
    invitationUrl: str


# ---------------------------------------------------------------- the sign-up forms (spec §5)

SIGNUP_FORMS: Mapping[str, FormRules] = MappingProxyType(
    {
        "doctor": DOCTOR_FORMS["registration"],
        "hospital": FormRules(
            fields=(
                "name",
                "email",
                "password",
                "phoneNumber",
                "address",
                "registrationNumber",
                "country",
                "state",
                "type",
                "capacity",
                "website",
                "privacyPolicyAccepted",
            ),
            optional=frozenset({"type", "capacity", "website"}),
            password_min=MIN_LENGTH["hospital"],
            choices=MappingProxyType({"type": ("private", "public")}),
            texts=MappingProxyType({"privacyPolicyAccepted.required": "You must accept the privacy policy."}),
        ),
        "admin": FormRules(
            fields=("name", "email", "password", "phoneNumber"),
            password_min=MIN_LENGTH["admin"],
            phone_format="digits",
        ),
    }
)
