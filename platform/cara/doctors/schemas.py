"""Bodies of /api/doctors (field names as spec §3 "Doctor" and §7).

Request fields are optional at the type level: the service checks presence and
format itself so each message is the spec's own text (§5 "Manage Doctors form").
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cara.kit.bodies import RequestBody


class DoctorCreate(RequestBody):
    name: str | None = Field(default=None, max_length=200)
    email: str | None = Field(default=None, max_length=254)
    password: str | None = Field(default=None, max_length=200)
    phoneNumber: str | None = Field(default=None, max_length=32)
    # The manage form's older field name; used only when phoneNumber is absent.
    phone: str | None = Field(default=None, max_length=32)
    specialty: str | None = Field(default=None, max_length=50, description="default Radiologist")
    licenseNumber: str | None = Field(default=None, max_length=100)
    experience: int | None = None
    country: str | None = Field(default=None, max_length=100)
    state: str | None = Field(default=None, max_length=100)
    hospitalId: str | None = Field(default=None, max_length=64, description="must be the caller's own")
    isHospitalCreated: bool | None = True
    privacyPolicyAccepted: bool | None = None


class DoctorUpdate(RequestBody):
    """Changed fields only; the status toggle sends `isActive` alone."""

    name: str | None = Field(default=None, max_length=200)
    email: str | None = Field(default=None, max_length=254)
    phoneNumber: str | None = Field(default=None, max_length=32)
    phone: str | None = Field(default=None, max_length=32)
    specialty: str | None = Field(default=None, max_length=50)
    licenseNumber: str | None = Field(default=None, max_length=100)
    experience: int | None = None
    country: str | None = Field(default=None, max_length=100)
    state: str | None = Field(default=None, max_length=100)
    isActive: bool | None = None
    hospitalId: str | None = Field(default=None, max_length=64)


class DoctorRemove(RequestBody):
    hospitalId: str | None = Field(default=None, max_length=64)


class HospitalDoctorOut(BaseModel):
    """A doctor as the hospital's screens show it."""

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
    education: list[Any]
    certifications: list[Any]
    workHistory: list[Any]
    availability: list[Any]
    role: Literal["doctor"] = "doctor"
    createdAt: datetime


class DoctorRemoved(BaseModel):
    message: str
    id: str
