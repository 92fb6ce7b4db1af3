"""Transcript lines, written in one place whoever speaks them: the live relay (store_lines,
rejoin_live, end_live), the radiotherapy chat (add_assistant_lines) and a recording's
transcription (add_recorded). Each keeps the consultation's search words current.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from cara.audit.service import record_tenant
from cara.auth.principal import Principal
from cara.consultations import repository
from cara.consultations.service.record import open_for_live
from cara.kit.jobs import enqueue_after_commit
from cara.models import Consultation
from cara.models.base import utcnow


@dataclass(frozen=True)
class WordTiming:
    """A recognised word: seconds from the recording's start, and the recogniser's confidence (0-1)."""

    text: str
    start: float
    end: float
    confidence: float

    def as_json(self) -> dict[str, Any]:
        return {"w": self.text, "s": self.start, "e": self.end, "p": self.confidence}


@dataclass(frozen=True)
class SpokenLine:
    """One line of a consultation's transcript, as every writer hands it over: the live relay,
    the radiotherapy chat, a recording's transcription. A new field of transcript lines goes
    here, in TranscriptLine (cara.models) and in repository.add_lines, the one writer."""

    seq: int
    speaker: str
    text: str
    at: datetime
    # The words with their timings and confidence, where a recogniser gave them.
    words: tuple[WordTiming, ...] | None = field(default=None, kw_only=True)


# ------------------------------------------------------------------ the live relay


def rejoin_live(session: Session, doctor_id: uuid.UUID, consultation_id: uuid.UUID) -> list[SpokenLine]:
    """A consultation the doctor comes back to (open_for_live has checked it is theirs): open
    again (no end time), with its transcript so far in order."""
    repository.reopen(session, doctor_id, consultation_id)
    return [
        SpokenLine(seq=line.seq, speaker=line.speaker, text=line.text, at=line.spoken_at)
        for line in repository.lines(session, consultation_id)
    ]


def store_lines(session: Session, consultation_id: uuid.UUID, lines: Sequence[SpokenLine]) -> None:
    """Lines the live relay closed, numbered by it, with the search words gathered at once."""
    repository.add_lines(session, consultation_id, lines)
    index_for_search(session, consultation_id)


NOTE_AT_END_ACTOR = "summaries.note_at_end"


def end_live(
    session: Session,
    doctor_id: uuid.UUID,
    consultation_id: uuid.UUID,
    reconnects: int,
    tenant_schema: str | None = None,
) -> None:
    """The live session is over: the end time and how often the link was re-established; and,
    with `tenant_schema`, the note is asked for (a worker job after commit: one row here)."""
    repository.end(session, doctor_id, consultation_id, reconnects)
    # Gathered after the end time is set, so the document is not behind it.
    index_for_search(session, consultation_id)
    if tenant_schema is not None and wants_note_at_end(session, doctor_id, consultation_id):
        enqueue_after_commit(
            session,
            NOTE_AT_END_ACTOR,
            tenant=tenant_schema,
            schema=tenant_schema,
            doctor=str(doctor_id),
            consultation=str(consultation_id),
        )


def wants_note_at_end(session: Session, doctor_id: uuid.UUID, consultation_id: uuid.UUID) -> bool:
    """A visit that ended with something said, no note draft and no signature yet."""
    consultation = repository.doctor_consultation(session, doctor_id, consultation_id)
    if consultation is None or consultation.state == "signed":
        return False
    if repository.line_count(session, consultation_id) == 0:
        return False
    return not any(d.kind == "note" for d in repository.drafts(session, consultation_id))


# ------------------------------------------------------------------ outside the live socket


def add_assistant_lines(
    session: Session, principal: Principal, consultation_id: object, lines: list[tuple[str, str]]
) -> None:
    """Keep an exchange with the assistant outside the live socket (the radiotherapy chat: the
    question, the dose-constraint tool's results, the answer) in the consultation's transcript.
    Only the doctor's own consultation with consent and not signed; anything else is NotFound."""
    consultation = open_for_live(session, principal, consultation_id)
    # The row lock keeps two exchanges of one consultation from taking the same numbers.
    repository.doctor_consultation(session, principal.id, consultation.id, for_update=True)
    first = repository.last_seq(session, consultation.id) + 1
    now = utcnow()
    repository.add_lines(
        session,
        consultation.id,
        [
            SpokenLine(seq=first + i, speaker=speaker, text=text, at=now)
            for i, (speaker, text) in enumerate(lines)
        ],
    )
    index_for_search(session, consultation.id)


def index_for_search(session: Session, consultation_id: uuid.UUID) -> None:
    """Gather a consultation's search words now, as its lines are stored and when it ends, so
    that a search never has to gather them."""
    repository.index_consultation(session, consultation_id)


# ------------------------------------------------------------------ consultations recorded offline


@dataclass(frozen=True)
class RecordedLine:
    """A line of a recording's transcript: `user` (the clinician) or `patient` (anyone else)."""

    speaker: str
    text: str
    offset_seconds: float
    words: tuple[WordTiming, ...] | None = None


def add_recorded(
    session: Session,
    *,
    doctor_id: uuid.UUID,
    console: str,
    consent_basis: str,
    consent_at: datetime,
    started_at: datetime,
    duration_seconds: float,
    model: str,
    lines: list[RecordedLine],
    patient_reference: dict[str, Any] | None = None,
    transcript_engine: str | None = None,
) -> uuid.UUID:
    """A consultation made from a recording (on the worker, in the caller's tenant session, not
    committed): ended, with its transcript lines, marked as recorded offline."""
    consultation = repository.add_consultation(
        session,
        Consultation(
            doctor_account_id=doctor_id,
            console=console,
            model=model,
            started_at=started_at,
            ended_at=started_at + timedelta(seconds=max(0.0, duration_seconds)),
            consent_basis=consent_basis,
            consent_by_account_id=doctor_id if consent_basis == "doctor_confirmed" else None,
            consent_at=consent_at,
            state="in_progress",
            source="recorded",
            patient_reference=patient_reference,
            transcript_engine=transcript_engine,
        ),
    )
    repository.add_lines(
        session,
        consultation.id,
        [
            SpokenLine(
                seq=seq,
                speaker=line.speaker,
                text=line.text,
                at=started_at + timedelta(seconds=max(0.0, line.offset_seconds)),
                words=line.words,
            )
            for seq, line in enumerate(lines)
        ],
    )
    record_tenant(
        session,
        action="consultation.recorded",
        actor_id=doctor_id,
        target_type="consultation",
        target_id=consultation.id,
        detail={
            "basis": consent_basis,
            "console": console,
            "lines": len(lines),
            "engine": transcript_engine or model,
        },
    )
    index_for_search(session, consultation.id)
    return consultation.id
