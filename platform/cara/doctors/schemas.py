"""Doctor payloads and the doctor forms' rules (field names as spec §3 "Doctor" and §7).

Two payload shapes carry a doctor's details: `NewDoctor` (doctor registration and
Manage Doctors' add) and `DoctorChanges` (Manage Doctors' edit and the doctor's own
profile form). Their fields are optional at the type level: `DOCTOR_FORMS` checks
presence and format, so each message is the spec's own text for that form (§5).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cara.auth.passwords import MIN_LENGTH
from cara.doctors.specialties import SPECIALTIES
from cara.kit.bodies import RequestBody
from cara.kit.validation import FormRules


class DoctorFields(RequestBody):
    """Base of the doctor payloads."""

    @property
    def phone_number(self) -> str | None:
        """`phoneNumber`, or Manage Doctors' older name `phone` when `phoneNumber` is absent."""
        value: str | None = getattr(self, "phoneNumber", None)
        return value if value is not None else getattr(self, "phone", None)

    def form_values(self) -> dict[str, object]:
        """The values the form rules read."""
        return {**dict(self), "phoneNumber": self.phone_number}


class NewDoctor(DoctorFields):
    """A doctor's account and profile as first entered."""

    name: str | None = Field(default=None, max_length=200)
    email: str | None = Field(default=None, max_length=254)
    password: str | None = Field(default=None, max_length=200)
    phoneNumber: str | None = Field(default=None, max_length=32)
    specialty: str | None = Field(default=None, max_length=50)
    licenseNumber: str | None = Field(default=None, max_length=100)
    experience: int | None = None
    country: str | None = Field(default=None, max_length=100)
    state: str | None = Field(default=None, max_length=100)
    isHospitalCreated: bool | None = False
    hospitalId: str | None = Field(default=None, max_length=64)
    privacyPolicyAccepted: bool | None = False


class DoctorChanges(DoctorFields):
    """Details a doctor's edit forms share; absent fields stay as they are."""

    name: str | None = Field(default=None, max_length=200)
    email: str | None = Field(default=None, max_length=254)
    phoneNumber: str | None = Field(default=None, max_length=32)
    specialty: str | None = Field(default=None, max_length=50)
    licenseNumber: str | None = Field(default=None, max_length=100)
    experience: int | None = None


class DoctorCreate(NewDoctor):
    # The manage form's older field name; used only when phoneNumber is absent.
    phone: str | None = Field(default=None, max_length=32)
    # Manage Doctors' own defaults and notes (the API's documented schema keeps them).
    specialty: str | None = Field(default=None, max_length=50, description="default Radiologist")
    hospitalId: str | None = Field(default=None, max_length=64, description="must be the caller's own")
    isHospitalCreated: bool | None = True
    privacyPolicyAccepted: bool | None = None


class DoctorUpdate(DoctorChanges):
    """Changed fields only; the status toggle sends `isActive` alone."""

    phone: str | None = Field(default=None, max_length=32)
    country: str | None = Field(default=None, max_length=100)
    state: str | None = Field(default=None, max_length=100)
    isActive: bool | None = None
    hospitalId: str | None = Field(default=None, max_length=64)


# ---------------------------------------------------------------- the doctor forms (spec §5)

_DETAILS = ("name", "email", "phoneNumber", "specialty", "licenseNumber", "experience")
_CHOICES = MappingProxyType({"specialty": SPECIALTIES})
_MANAGE_TEXTS = MappingProxyType({"state.required": "State/Province is required"})

DOCTOR_FORMS: Mapping[str, FormRules] = MappingProxyType(
    {
        # /doctor-register, also when a signed-in hospital registers its doctor there.
        "registration": FormRules(
            fields=(
                "name",
                "email",
                "password",
                "phoneNumber",
                "specialty",
                "licenseNumber",
                "country",
                "state",
                "experience",
                "privacyPolicyAccepted",
            ),
            optional=frozenset({"experience"}),
            password_min=MIN_LENGTH["doctor"],
            choices=_CHOICES,
        ),
        # Manage Doctors' Add Doctor and the hospital dashboard's add (POST /doctors/new-doctor):
        # the specialty defaults to Radiologist. The browser form asks for 8 password
        # characters; the account rule is the doctor's 6.
        "manage_add": FormRules(
            fields=(*_DETAILS, "country", "state", "password"),
            optional=frozenset({"specialty", "experience"}),
            password_min=MIN_LENGTH["doctor"],
            phone_format="written",
            choices=_CHOICES,
            texts=_MANAGE_TEXTS,
        ),
        # Manage Doctors' Edit Doctor (PUT /doctors/{id}): fields with a value.
        "manage_edit": FormRules(
            fields=(*_DETAILS, "country", "state"),
            edits="given",
            phone_format="written",
            choices=_CHOICES,
            texts=_MANAGE_TEXTS,
        ),
        # The doctor's own profile (PUT /auth/doctor/profile): fields sent, a null included.
        "profile": FormRules(fields=_DETAILS, edits="sent", phone_format="written", choices=_CHOICES),
    }
)


class DoctorRemove(RequestBody):
    hospitalId: str | None = Field(default=None, max_length=64)


class _DoctorFacts(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    id: str = Field(serialization_alias="_id", validation_alias="_id")
    name: str
    email: str
    phoneNumber: str
    specialty: str
    licenseNumber: str
    experience: int
    hospitalId: str
    isActive: bool
    isHospitalCreated: bool
    country: str
    state: str


class HospitalDoctorOut(_DoctorFacts):
    """A doctor as the hospital's screens show it."""

    education: list[Any]
    certifications: list[Any]
    workHistory: list[Any]
    availability: list[Any]
    role: Literal["doctor"] = "doctor"
    createdAt: datetime


class DoctorListItem(_DoctorFacts):
    """A row of the paged doctor list: the doctor's details without the profile's lists
    (education, certifications, work history, availability), so a page of 50 stays small."""

    role: Literal["doctor"] = "doctor"
    createdAt: datetime


DoctorSort = Literal["name", "-name", "createdAt", "-createdAt"]


class DoctorPage(BaseModel):
    """One page of a hospital's doctors; `nextCursor` asks for the next (null on the last)."""

    items: list[DoctorListItem]
    nextCursor: str | None = None


class DoctorRemoved(BaseModel):
    message: str
    id: str
