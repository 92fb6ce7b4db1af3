"""Bodies and answers of /api/recordings (camelCase JSON)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from cara.consultations.schemas import PatientReference
from cara.kit.bodies import RequestBody

RecordingState = Literal["receiving", "processing", "waiting", "done", "failed"]


class RecordingCreate(RequestBody):
    """A recording made in the browser (while offline, or by choice), about to be uploaded."""

    clientId: uuid.UUID = Field(
        description="the browser's id of the capture: creating it again returns the same upload"
    )
    console: str = Field(max_length=50)
    consent: bool = Field(description="the doctor confirmed the patient's consent before recording")
    recordedAt: datetime = Field(description="when the recording started")
    durationMs: int | None = Field(default=None, ge=0, le=12 * 3600 * 1000)
    mimeType: str = Field(max_length=100, description="audio/webm or audio/ogg (Opus)")
    language: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$",
        description="the language spoken (the console's interface language); absent: English",
    )
    patientReference: PatientReference | None = Field(
        default=None, description="who it is about, as for a live consultation; never sent to the AI model"
    )


class RecordingComplete(RequestBody):
    totalBytes: int = Field(ge=1, description="the recording's size: every byte must have been received")
    durationMs: int | None = Field(default=None, ge=0, le=12 * 3600 * 1000)


class RecordingOut(BaseModel):
    id: uuid.UUID
    clientId: uuid.UUID
    console: str
    state: RecordingState = Field(
        description="receiving chunks; processing on the worker; waiting for the AI service (see error: "
        "this server cannot transcribe it); done (see consultationId); failed (retry)"
    )
    receivedBytes: int = Field(description="the next chunk's offset")
    chunkBytes: int = Field(description="the largest chunk accepted")
    minChunkBytes: int = Field(description="the smallest chunk accepted, except the recording's last")
    maxBytes: int = Field(description="the largest recording accepted")
    recordedAt: datetime
    durationMs: int | None
    consultationId: uuid.UUID | None
    error: str | None
    createdAt: datetime


class RecordingList(BaseModel):
    items: list[RecordingOut]


class RecordingStorageOut(BaseModel):
    """Recorded audio waiting to be processed, against its limits (a hospital: all its doctors';
    a doctor: as counted for them)."""

    heldBytes: int = Field(description="audio stored until it is transcribed")
    quotaBytes: int = Field(description="the most that may be held")
    openUploads: int | None = Field(description="the doctor's uploads still receiving (doctors only)")
    maxOpenUploads: int
    receivedTodayBytes: int | None = Field(description="bytes the doctor sent in the last 24 hours")
    dailyBytes: int = Field(description="the most one doctor may send in 24 hours")
