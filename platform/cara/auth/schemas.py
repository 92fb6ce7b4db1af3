"""Request and response bodies of /api/auth (field names as in spec §3 and §7).

Request fields are optional at the type level on purpose: the service checks
presence and format itself so every message is the spec's exact text rather
than a generic "field required".
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cara.kit.bodies import RequestBody

_In = RequestBody


class CertificationIn(_In):
    name: str | None = None
    issuer: str | None = None
    date: str | None = None


class WorkHistoryIn(_In):
    hospital: str | None = None
    position: str | None = None
    startDate: str | None = None
    endDate: str | None = None
    description: str | None = None


class AvailabilityIn(_In):
    day: str
    startTime: str = "09:00"
    endTime: str = "17:00"
    isAvailable: bool = False


class SignupRequest(_In):
    """One payload for the three roles; which fields matter depends on `role`."""

    role: str | None = Field(default="doctor", description="doctor, hospital or admin")
    name: str | None = Field(default=None, max_length=200)
    email: str | None = Field(default=None, max_length=254)
    password: str | None = Field(default=None, max_length=200)
    phoneNumber: str | None = Field(default=None, max_length=32)
    # doctor
    specialty: str | None = Field(default=None, max_length=50)
    licenseNumber: str | None = Field(default=None, max_length=100)
    experience: int | None = None
    country: str | None = Field(default=None, max_length=100)
    state: str | None = Field(default=None, max_length=100)
    education: list[Any] | None = None
    certifications: list[CertificationIn] | None = None
    workHistory: list[WorkHistoryIn] | None = None
    availability: list[AvailabilityIn] | None = None
    isHospitalCreated: bool | None = False
    hospitalId: str | None = Field(default=None, max_length=64)
    privacyPolicyAccepted: bool | None = False
    # hospital
    address: str | None = Field(default=None, max_length=500)
    type: str | None = Field(default=None, max_length=16)
    registrationNumber: str | None = Field(default=None, max_length=100)
    capacity: int | None = None
    website: str | None = Field(default=None, max_length=500)
    # admin
    invitationToken: str | None = Field(default=None, description="required for role=admin")


class LoginRequest(_In):
    email: str | None = None
    password: str | None = None
    role: str | None = None


class ForgotPasswordRequest(_In):
    email: str | None = None


class ResetPasswordRequest(_In):
    token: str | None = None
    password: str | None = None


class UserOut(BaseModel):
    """The user object the web app stores (spec §3 "User")."""

    model_config = ConfigDict(populate_by_name=True)

    id: str = Field(serialization_alias="_id", validation_alias="_id")
    name: str
    email: str
    role: Literal["doctor", "hospital", "admin"]
    phoneNumber: str = ""
    specialty: str | None = None
    profilePicture: str | None = None
    licenseNumber: str | None = None
    experience: int | None = None
    country: str | None = None
    state: str | None = None
    education: list[Any] | None = None
    certifications: list[Any] | None = None
    workHistory: list[Any] | None = None
    availability: list[Any] | None = None
    isHospitalCreated: bool = False
    hospitalId: str | None = None
    hospitalName: str | None = None
    isActive: bool = True
    isVerified: bool = False


class AuthData(BaseModel):
    token: str
    user: UserOut


class SignupResponse(BaseModel):
    message: str
    data: AuthData


class LoginResponse(BaseModel):
    message: str
    token: str
    user: UserOut


class MessageResponse(BaseModel):
    message: str
