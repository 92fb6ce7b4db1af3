"""Bodies and answers of /api/consultations (camelCase JSON)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, StrictBool, StrictInt

from cara.kit.bodies import RequestBody

ConsultationState = Literal["in_progress", "draft", "signed"]
# The consoles a consultation runs in: the live assistant's profiles (a test keeps them equal).
CONSOLES = frozenset(
    {"radiologist", "radiotherapist", "cardiologist", "general-practitioner", "nurse", "generic"}
)


class PatientReference(RequestBody):
    """Who the consultation was about: a hospital record number, or name, age and sex.
    Stored with the consultation and exported as the document's subject; never sent to the AI model."""

    recordNumber: str | None = Field(default=None, max_length=64)
    name: str | None = Field(default=None, max_length=200)
    age: StrictInt | None = Field(default=None, ge=0, le=150)
    sex: Literal["female", "male", "other", "unknown"] | None = None


class ConsultationCreate(RequestBody):
    """Start a consultation once the doctor confirmed the patient's consent."""

    console: str = Field(max_length=50, description="the console kind, e.g. radiologist or generic")
    consent: StrictBool = Field(description="the patient agreed to AI assistance and recording")
    patientReference: PatientReference | None = None


class ConsentOut(BaseModel):
    basis: Literal["doctor_confirmed", "tenant_policy"] | None
    givenBy: uuid.UUID | None
    givenAt: datetime | None


class ConsultationOut(BaseModel):
    id: uuid.UUID
    console: str
    state: ConsultationState
    title: str | None
    startedAt: datetime
    endedAt: datetime | None
    durationSeconds: int | None
    lineCount: int
    patientReference: PatientReference | None
    consent: ConsentOut
