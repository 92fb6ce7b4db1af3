"""Request and response bodies of /api/auth sign-in, current user and password reset
(field names as in spec §3 and §7); sign-up's are in `cara.registration.schemas`.

Request fields are optional at the type level on purpose: the service checks
presence and format itself so every message is the spec's exact text rather
than a generic "field required".
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cara.kit.bodies import RequestBody


class LoginRequest(RequestBody):
    email: str | None = None
    password: str | None = None
    role: str | None = None


class ForgotPasswordRequest(RequestBody):
    email: str | None = None


class ResetPasswordRequest(RequestBody):
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
    emailVerified: bool = Field(
        default=True, description="False for a new hospital until it opens the mailed link"
    )


class LoginResponse(BaseModel):
    message: str
    token: str
    user: UserOut


class MessageResponse(BaseModel):
    message: str


class ChangePasswordRequest(RequestBody):
    currentPassword: str | None = None
    newPassword: str | None = None


class ChangeEmailRequest(RequestBody):
    currentPassword: str | None = None
    email: str | None = None


class EmailLinkRequest(RequestBody):
    """The token of an emailed link (undo an email change, confirm a new address)."""

    token: str | None = None


class SessionRenewedResponse(BaseModel):
    """After an account change every other session is signed out; this one goes on with `token`."""

    message: str
    token: str
    user: UserOut


# ---------------------------------------------------------------- two-factor sign-in


class StepUpResponse(BaseModel):
    """202 from `POST /api/auth/login`: past the account's or the address's limit of failed
    sign-ins, from a place the account has not signed in from. The same for a right and a wrong
    password; after a right one the account's email has a sign-in link
    (`POST /api/auth/login/unlock`)."""

    message: str
    stepUp: Literal["email"]


class MfaChallengeResponse(BaseModel):
    """The answer to a right password when the account has two-factor sign-in (`code`: send a
    code with the challenge to `POST /api/auth/login/mfa`) or must enrol first (`enroll`:
    `POST /api/auth/login/mfa/setup`, then `/login/mfa/enable`). No session yet."""

    message: str
    mfaRequired: Literal["code", "enroll"]
    challenge: str


class MfaChallengeRequest(RequestBody):
    challenge: str | None = None


class MfaCodeRequest(RequestBody):
    """A sign-in's second step: the challenge and a 6-digit code (or a recovery code)."""

    challenge: str | None = None
    code: str | None = None


class MfaEnableRequest(RequestBody):
    code: str | None = None


class MfaDisableRequest(RequestBody):
    currentPassword: str | None = None
    code: str | None = None


class MfaSetupResponse(BaseModel):
    """A secret to enrol: for the authenticator app as text, as its URI and as a QR code."""

    secret: str
    otpauthUri: str
    qrCode: str = Field(description="An SVG image of the otpauth URI, as a data: URI")


class MfaEnabledResponse(BaseModel):
    """Two-factor is on; the recovery codes are shown this once (only their hashes are kept)."""

    message: str
    recoveryCodes: list[str]


class MfaEnrolledLoginResponse(BaseModel):
    """A forced enrolment done: signed in as by login, and the recovery codes shown once."""

    message: str
    token: str
    user: UserOut
    recoveryCodes: list[str]


class MfaStatusResponse(BaseModel):
    enabled: bool
    required: bool
    recoveryCodesLeft: int


class MfaPolicyRequest(RequestBody):
    requireForDoctors: bool | None = None


class MfaPolicyResponse(BaseModel):
    """A hospital's rule: its doctors must enrol in two-factor sign-in at their next sign-in."""

    requireForDoctors: bool
