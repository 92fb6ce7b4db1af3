"""Bodies and answers of /api/consultations (camelCase JSON)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

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
    source: Literal["live", "recorded"] = Field(
        default="live", description="live: with the assistant; recorded: recorded offline, processed later"
    )


class ConsultationPage(BaseModel):
    """One page of the list, newest first; `nextCursor` asks for the page after it."""

    items: list[ConsultationOut]
    nextCursor: str | None = Field(description="opaque; absent on the last page")


class ConsultationChange(RequestBody):
    """The title, the patient reference, or both; an absent field stays as it is, `null` clears it."""

    title: str | None = Field(default=None, max_length=200)
    patientReference: PatientReference | None = None


class WordOut(BaseModel):
    """A recognised word: seconds from the recording's start and the recogniser's confidence."""

    text: str
    start: float
    end: float
    confidence: float = Field(ge=0, le=1)
    lowConfidence: bool = Field(description="the recogniser was unsure of it: check it against the recording")


class TranscriptLineOut(BaseModel):
    id: int
    seq: int
    speaker: Literal["user", "assistant", "tool", "patient"] = Field(
        description="user: the clinician; assistant: Cara; tool: the dose-constraint tool; "
        "patient: anyone else in a consultation recorded offline"
    )
    text: str
    spokenAt: datetime
    words: list[WordOut] | None = Field(
        default=None, description="a recogniser's words with timings and confidence, where it gave them"
    )


class EvidenceOut(BaseModel):
    sentence: str
    lineIds: list[int]


class CodeOut(BaseModel):
    """A WHO ICD-10 code, with the transcript lines and draft sentences that support it."""

    code: str
    title: str
    lineIds: list[int] = Field(default_factory=list)
    sentences: list[str] = Field(default_factory=list)


class DraftOut(BaseModel):
    id: uuid.UUID
    kind: Literal["summary", "report", "note"]
    focus: str | None
    text: str
    sections: dict[str, object] | None
    evidence: list[EvidenceOut]
    model: str
    promptVersion: str
    createdAt: datetime
    templateId: str | None = Field(default=None, description="a note draft's template")
    templateVersion: int | None = None
    templateTitle: str | None = None
    codes: list[CodeOut] = Field(
        default_factory=list, description="ICD-10 codes proposed, each checked against the WHO list"
    )
    label: str = "Draft — AI-assisted"


class NoteEntryOut(BaseModel):
    number: int
    kind: Literal["signature", "addendum"]
    text: str
    sections: dict[str, object] | None
    authorName: str
    createdAt: datetime
    contentSha256: str


class NoteOut(BaseModel):
    text: str
    sections: dict[str, object] | None
    codes: list[CodeOut] = Field(default_factory=list, description="accepted ICD-10 codes")
    version: int = Field(description="send it back as If-Match (or `version`) when saving")
    signed: bool
    sourceDraftId: uuid.UUID | None
    updatedAt: datetime
    entries: list[NoteEntryOut]


class ConsultationDetail(ConsultationOut):
    lines: list[TranscriptLineOut]
    transcriptEngine: str | None = Field(
        default=None,
        description="what made a recorded consultation's transcript: 'local:...' (this server) "
        "or the AI model",
    )
    drafts: list[DraftOut]
    note: NoteOut | None


class RecordSettingsOut(BaseModel):
    consentMandatory: bool
    retentionDays: int = Field(description="days before transcripts and drafts of unsigned consultations go")
    editable: bool = Field(description="whether the caller may change them")


class RecordSettingsIn(RequestBody):
    consentMandatory: StrictBool | None = None
    retentionDays: StrictInt | None = Field(default=None, ge=1, le=3650)


# What one signed document may hold, so that its export stays bounded (a 100,000-character
# note and its addenda render to PDF in a few CPU seconds, once: see ops/bench/export_isolation.py).
MAX_NOTE_CHARS = 100_000
MAX_ADDENDUM_CHARS = 20_000
MAX_ADDENDA = 20
MAX_NOTE_CODES = 20


class RadiologySectionsIn(RequestBody):
    """A radiology report's sections; the note's text is rendered from them."""

    model_config = ConfigDict(extra="forbid", str_max_length=MAX_NOTE_CHARS)

    indication: str = Field(default="", max_length=20_000)
    technique: str = Field(default="", max_length=20_000)
    findings: str = Field(default="", max_length=50_000)
    impression: list[Annotated[str, Field(max_length=5_000)]] = Field(default_factory=list, max_length=50)
    radsCategory: str = Field(default="", max_length=200)
    recommendation: str = Field(default="", max_length=20_000)


class NoteSave(RequestBody):
    """The note's text (or radiology sections), with the version it was edited from.

    The version may also come as `If-Match`. A first save may start from a draft (`fromDraftId`)."""

    model_config = ConfigDict(extra="ignore", str_max_length=MAX_NOTE_CHARS)

    text: str | None = Field(default=None, max_length=MAX_NOTE_CHARS)
    sections: RadiologySectionsIn | None = None
    version: StrictInt | None = Field(default=None, ge=0)
    fromDraftId: str | None = Field(default=None, max_length=64)
    codes: list[Annotated[str, Field(max_length=16)]] | None = Field(
        default=None,
        max_length=MAX_NOTE_CODES,
        description="the WHO ICD-10 codes the doctor accepted (absent: unchanged; [] none)",
    )


class NoteSign(RequestBody):
    version: StrictInt | None = Field(default=None, ge=1, description="or If-Match: the version being signed")
    timeZone: str | None = Field(
        default=None,
        max_length=64,
        description="IANA time zone the signer works in (e.g. Africa/Accra): the signed documents "
        "show their times in it. UTC when absent.",
    )


class AddendumIn(RequestBody):
    model_config = ConfigDict(extra="ignore", str_max_length=MAX_ADDENDUM_CHARS)

    text: str = Field(max_length=MAX_ADDENDUM_CHARS)


class SignedNoteItem(BaseModel):
    """A signed note in the hospital's view: never drafts, never another hospital's."""

    id: uuid.UUID
    doctorId: uuid.UUID
    doctorName: str
    # The doctor has since been removed from the hospital: the note stays, under this name.
    doctorRemoved: bool = False
    console: str
    title: str | None
    startedAt: datetime
    signedAt: datetime | None
    patientReference: PatientReference | None


class SignedNotePage(BaseModel):
    items: list[SignedNoteItem]
    nextCursor: str | None


class SignedNoteDetail(SignedNoteItem):
    note: NoteOut


class DraftChangeOut(BaseModel):
    """How much doctors change the drafts of one template before signing (the hospital's view)."""

    template: str | None = Field(description="the note template, none for a summary or report draft")
    templateTitle: str | None
    draftKind: str | None
    signed: int = Field(description="notes signed from such a draft")
    meanChanged: float = Field(description="share of the draft's words changed, 0 to 1, on average")
    medianChanged: float
