"""Bodies of PUT /api/auth/doctor/profile and the certificate files (spec §2 "Doctor Profile", §3)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from cara.auth.schemas import UserOut
from cara.doctors.schemas import DoctorChanges
from cara.kit.bodies import RequestBody


class CertificationEntry(RequestBody):
    name: str | None = Field(default=None, max_length=200)
    issuer: str | None = Field(default=None, max_length=200)
    date: str | None = Field(default=None, max_length=10, description="YYYY-MM-DD, the date obtained")
    fileId: str | None = Field(default=None, max_length=64, description="from POST /auth/doctor/certificates")


class WorkHistoryEntry(RequestBody):
    hospital: str | None = Field(default=None, max_length=200)
    position: str | None = Field(default=None, max_length=200)
    startDate: str | None = Field(default=None, max_length=10)
    endDate: str | None = Field(default=None, max_length=10, description="empty while still there")
    description: str | None = Field(default=None, max_length=2000)


class AvailabilityEntry(RequestBody):
    day: str | None = Field(default=None, max_length=16)
    startTime: str | None = Field(default=None, max_length=5, description="HH:MM")
    endTime: str | None = Field(default=None, max_length=5, description="HH:MM")
    isAvailable: bool | None = None


class ProfileUpdate(DoctorChanges):
    """The fields sent replace the stored ones; absent fields stay as they are."""

    certifications: list[CertificationEntry] | None = Field(default=None, max_length=50)
    workHistory: list[WorkHistoryEntry] | None = Field(default=None, max_length=50)
    availability: list[AvailabilityEntry] | None = Field(default=None, max_length=7)


class ProfileUpdated(BaseModel):
    message: str
    user: UserOut


class CertificateFileOut(BaseModel):
    id: str
    fileName: str
    contentType: str
    size: int
