"""Request and response of POST /api/summarize."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from cara.consultations.schemas import DraftOut

MAX_TRANSCRIPT_CHARS = 200_000
DRAFT_LABEL = "Draft — AI-assisted"


def _no_nul(value: Any) -> Any:
    if isinstance(value, str) and "\x00" in value:
        raise ValueError("Must not contain NUL characters")
    return value


class TranscriptLineIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    speaker: Literal["user", "assistant", "tool"] = "user"
    text: str = Field(max_length=20_000)

    _nul = field_validator("text", mode="before")(_no_nul)


class SummarizeRequest(BaseModel):
    """`transcript` is the conversation as text, or as lines of the live transcript."""

    model_config = ConfigDict(extra="ignore")

    transcript: str | list[TranscriptLineIn] | None = Field(
        default=None, description="the conversation: text, or [{speaker, text}] lines"
    )
    kind: Literal["summary", "report", "note"] = Field(
        default="summary",
        description="a concise summary, a report draft, or the note itself in a template "
        "(`note` needs `consultationId`)",
    )
    template: str | None = Field(
        default=None,
        max_length=64,
        description="a note's template (GET /api/templates); the console's default when absent",
    )
    focus: str | None = Field(default=None, max_length=200, description="optional topic of the report draft")
    consultationId: str | None = Field(
        default=None,
        max_length=64,
        description="draft from this stored consultation's transcript (then `transcript` is not needed) "
        "and keep the draft on it",
    )

    _nul = field_validator("transcript", "focus", "template", mode="before")(_no_nul)

    @field_validator("transcript")
    @classmethod
    def _size(cls, value: str | list[TranscriptLineIn] | None) -> str | list[TranscriptLineIn] | None:
        size = len(value) if isinstance(value, str) else sum(len(line.text) for line in value or [])
        if size > MAX_TRANSCRIPT_CHARS:
            # The error type the API's handler words as "Is too long".
            raise PydanticCustomError("string_too_long", "Is too long")
        return value


class SummaryOut(BaseModel):
    summary: str
    kind: Literal["summary", "report", "note"]
    label: str = Field(default=DRAFT_LABEL, description="shown with the text until a clinician signs it off")
    draft: DraftOut | None = Field(
        default=None, description="the stored draft, when drafted from a consultation"
    )


class TemplateSectionOut(BaseModel):
    key: str
    heading: str
    instruction: str


class TemplateOut(BaseModel):
    """A note template: its sections in order, each with its instruction to the model."""

    id: str
    version: int
    title: str
    loinc: str = Field(description="the LOINC document type of a note written in it")
    structured: bool = Field(description="fills the radiology report's structured sections")
    default: bool = Field(description="the console's default: the note at the visit's end is written in it")
    sections: list[TemplateSectionOut]
