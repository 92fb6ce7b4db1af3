"""Bodies of /api/imaging: the hospital's PACS setting and the studies brought in."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, Field

PacsSource = Literal["platform", "hospital"]
PacsTestResult = Literal["ok", "unauthorized", "timeout", "unreachable", "not_dicomweb", "not_configured"]


class PacsSettingsOut(BaseModel):
    """Which PACS the hospital's studies go to. The password itself is never returned."""

    source: PacsSource
    baseUrl: str | None = Field(description="the hospital's own DICOMweb root; null on the platform's PACS")
    username: str | None
    passwordSet: bool
    platformAvailable: bool = Field(description="the platform offers a PACS to fall back on")


class PacsSettingsIn(BaseModel):
    """`baseUrl` null (or empty) goes back to the platform's PACS. `password` omitted (null)
    keeps the stored one; an empty string removes it."""

    baseUrl: str | None = Field(default=None, max_length=500)
    username: str | None = Field(default=None, max_length=200)
    password: str | None = Field(default=None, max_length=500)


class PacsTestIn(BaseModel):
    """Settings to try before saving them; `baseUrl` omitted tests the PACS in use. A password
    omitted with the saved address uses the saved password."""

    baseUrl: str | None = Field(default=None, max_length=500)
    username: str | None = Field(default=None, max_length=200)
    password: str | None = Field(default=None, max_length=500)


class PacsTestOut(BaseModel):
    result: PacsTestResult
    message: str
    status: int | None = Field(default=None, description="the PACS's HTTP status, when it answered")


class StudyOut(BaseModel):
    studyInstanceUid: str
    patientName: str | None
    patientId: str | None
    accessionNumber: str | None
    studyDate: date | None
    modalities: list[str]
    description: str | None
    seriesCount: int | None
    instanceCount: int | None
    consultationId: uuid.UUID | None
    broughtInAt: datetime


class FailedFile(BaseModel):
    file: str
    reason: str


class StudyUploadOut(BaseModel):
    studies: list[StudyOut]
    storedInstances: int
    failedFiles: list[FailedFile] = Field(default_factory=list, description="files the PACS refused")


class StudyList(BaseModel):
    studies: list[StudyOut]
