"""Work done on the workers, in the session the actor hands over: drafting from a stored
consultation (draft_target on the request, draft_source and store_draft on the worker) and the
scheduled retention of unsigned data.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from cara.audit.service import purge_expired, record_tenant
from cara.auth.principal import Principal
from cara.consultations import repository
from cara.consultations.schemas import DraftOut
from cara.consultations.service.record import (
    DEFAULT_RETENTION_DAYS,
    NO_LINES,
    NOT_FOUND,
    draft_out,
    own_consultation,
)
from cara.consultations.service.transcript import wants_note_at_end
from cara.kit.errors import NotFound, ValidationFailed
from cara.models import ConsultationDraft
from cara.models.base import utcnow
from tenants.naming import INDEPENDENT_SCHEMA

# ------------------------------------------------------------------ drafts (summary worker)

RADIOLOGY_CONSOLE = "radiologist"


@dataclass(frozen=True)
class DraftTarget:
    """Where a draft of a consultation goes: handed to the summary worker as plain values."""

    schema: str
    doctor_id: uuid.UUID
    consultation_id: uuid.UUID
    console: str


@dataclass(frozen=True)
class SourceLine:
    id: int
    speaker: str
    text: str


@dataclass(frozen=True)
class NewDraft:
    kind: str
    focus: str | None
    text: str
    sections: dict[str, Any] | None
    evidence: list[dict[str, Any]]
    model: str
    prompt_version: str
    template_id: str | None = None
    template_version: int | None = None
    codes: list[dict[str, Any]] = field(default_factory=list)


def draft_target(session: Session, principal: Principal, consultation_id: object) -> DraftTarget:
    """The caller's own consultation, with transcript lines to draft from (else 404 / 422)."""
    consultation = own_consultation(session, principal, consultation_id)
    if repository.line_count(session, consultation.id) == 0:
        raise ValidationFailed({"consultationId": NO_LINES}, message=NO_LINES)
    assert principal.tenant_schema is not None  # a doctor always has a tenant
    return DraftTarget(
        schema=principal.tenant_schema,
        doctor_id=principal.id,
        consultation_id=consultation.id,
        console=consultation.console,
    )


def visit_end_target(
    session: Session, schema: str, doctor_id: uuid.UUID, consultation_id: uuid.UUID
) -> DraftTarget | None:
    """Where the note written at a visit's end goes; None when it is no longer wanted (a note
    draft was made meanwhile, the note was signed, the consultation is gone)."""
    consultation = repository.doctor_consultation(session, doctor_id, consultation_id)
    if consultation is None or not wants_note_at_end(session, doctor_id, consultation_id):
        return None
    return DraftTarget(
        schema=schema, doctor_id=doctor_id, consultation_id=consultation.id, console=consultation.console
    )


def draft_source(session: Session, target: DraftTarget) -> list[SourceLine]:
    """The consultation's stored transcript lines, read on the worker (empty if it is gone)."""
    consultation = repository.doctor_consultation(session, target.doctor_id, target.consultation_id)
    if consultation is None:
        return []
    return [
        SourceLine(id=line.id, speaker=line.speaker, text=line.text)
        for line in repository.lines(session, consultation.id)
    ]


def store_draft(session: Session, target: DraftTarget, draft: NewDraft) -> DraftOut:
    """Keep a generated draft on its consultation (on the worker, in the caller's transaction). A
    signed note is never touched; an unsigned consultation becomes a draft."""
    consultation = repository.doctor_consultation(
        session, target.doctor_id, target.consultation_id, for_update=True
    )
    if consultation is None:
        raise NotFound(NOT_FOUND)
    row = repository.add_draft(
        session,
        ConsultationDraft(
            consultation_id=consultation.id,
            kind=draft.kind,
            focus=draft.focus,
            text=draft.text,
            sections=draft.sections,
            evidence=draft.evidence,
            model=draft.model,
            prompt_version=draft.prompt_version,
            template_id=draft.template_id,
            template_version=draft.template_version,
            codes=draft.codes,
        ),
    )
    if consultation.state == "in_progress":
        consultation.state = "draft"
    record_tenant(
        session,
        action="consultation.draft",
        actor_id=target.doctor_id,
        target_type="consultation",
        target_id=consultation.id,
        detail={"draft": str(row.id), "kind": draft.kind, "promptVersion": draft.prompt_version},
    )
    return draft_out(row)


# ------------------------------------------------------------------ retention (scheduled worker job)

RETENTION_ACTOR = "consultations.apply_retention"


def apply_retention(session: Session, schema: str, now: datetime | None = None) -> int:
    """In one tenant schema (the caller's session, bound to it): delete the transcripts and drafts
    of consultations that were never signed, once the retention period has passed (the
    hospital's, or each independent doctor's, 30 days by default). Signed notes stay. Returns how
    many consultations were purged. Also gathers the search documents that are behind."""
    at = now or utcnow()
    expired = repository.expired_unsigned(
        session, at, hospital=schema != INDEPENDENT_SCHEMA, default_days=DEFAULT_RETENTION_DAYS
    )
    # Search documents still behind (consultations from before the record, or never searched)
    # are gathered here, so that a doctor's first search does not gather them all.
    repository.refresh_search(session, None)
    return purge_expired(
        session, expired, repository.purge, action="consultation.retention", target_type="consultation"
    )
