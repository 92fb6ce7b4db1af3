"""The consultation record itself: who may start one, consent, reading and renaming it, the
tenant's record settings. Ids of another tenant or doctor are answered as not found, never as
forbidden. Services never commit: the endpoint or the actor that called them does.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from cara.audit.service import record_tenant
from cara.auth.principal import NO_PERMISSION, Principal
from cara.config import get_settings
from cara.consultations import repository
from cara.consultations import templates as note_templates
from cara.consultations.schemas import (
    CONSOLES,
    CodeOut,
    ConsentOut,
    ConsultationChange,
    ConsultationCreate,
    ConsultationDetail,
    ConsultationOut,
    DraftOut,
    EvidenceOut,
    NoteEntryOut,
    NoteOut,
    PatientReference,
    RecordSettingsIn,
    RecordSettingsOut,
    TranscriptLineOut,
    WordOut,
)
from cara.kit.errors import Conflict, Forbidden, NotFound, ValidationFailed
from cara.models import (
    Consultation,
    ConsultationDraft,
    ConsultationNote,
    RecordSettings,
)
from cara.models.base import utcnow
from cara.subscriptions.service import grants_clinical_access

NOT_FOUND = "Consultation not found."
CONSENT_REQUIRED = "The patient's consent is required before the consultation starts."
UNKNOWN_CONSOLE = "Unknown console."
NEEDS_SUBSCRIPTION = "An active subscription is required to use Cara. Please choose a plan."
BAD_CURSOR = "This page link is no longer valid. Please reload the list."
SIGNED_REFERENCE = "The note is signed: who it is about can no longer change."
SIGNED_TITLE = "The note is signed: its title can no longer change."
SETTINGS_NOT_YOURS = "Only your hospital can change these settings."
PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
MAX_SEARCH_WORDS = 8
NO_LINES = "No conversation recorded yet."
DEFAULT_RETENTION_DAYS = 30


@dataclass(frozen=True)
class RecordPolicy:
    consent_mandatory: bool = True
    retention_days: int = DEFAULT_RETENTION_DAYS


def require_doctor(principal: Principal) -> None:
    if principal.role != "doctor":
        raise Forbidden(NO_PERMISSION)


def _may_start(session: Session, principal: Principal) -> None:
    """Doctors with clinical access (spec §6) start consultations; the live socket checks again.

    Subscriptions are platform rows, read through the request's own session (tenant roles may
    read them): a second session would hold a second pooled connection for the request."""
    require_doctor(principal)
    if not grants_clinical_access(session, principal.account):
        raise Forbidden(NEEDS_SUBSCRIPTION)


def settings_owner(principal: Principal) -> str:
    """Whose settings apply: the hospital's (one row per hospital schema), or the independent
    doctor's own (many doctors share the independent schema)."""
    if principal.tenant_kind == "hospital":
        return "hospital"
    return str(principal.id)


def policy(session: Session, principal: Principal) -> RecordPolicy:
    row = repository.settings_row(session, settings_owner(principal))
    if row is None:
        return RecordPolicy()
    return RecordPolicy(consent_mandatory=row.consent_mandatory, retention_days=row.retention_days)


def parse_id(value: object) -> uuid.UUID:
    """A consultation id from a path or message; anything that is not a UUID is simply not found."""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except (TypeError, ValueError, AttributeError) as exc:
        raise NotFound(NOT_FOUND) from exc


def patient_reference_json(reference: PatientReference | None) -> dict[str, Any] | None:
    if reference is None:
        return None
    data = {k: (v.strip() if isinstance(v, str) else v) for k, v in reference.model_dump().items()}
    data = {k: v for k, v in data.items() if v not in (None, "")}
    return data or None


def start_consultation(session: Session, principal: Principal, body: ConsultationCreate) -> Consultation:
    """Create a consultation after the doctor confirmed the patient's consent (stored and audited).

    Where the tenant made consent not mandatory, a consultation may start without the click;
    its consent is then recorded as the tenant's policy."""
    _may_start(session, principal)
    console = body.console.strip().lower()
    if console not in CONSOLES:
        raise ValidationFailed({"console": UNKNOWN_CONSOLE})
    rules = policy(session, principal)
    if not body.consent and rules.consent_mandatory:
        raise ValidationFailed({"consent": CONSENT_REQUIRED}, message=CONSENT_REQUIRED)
    now = utcnow()
    consultation = repository.add_consultation(
        session,
        Consultation(
            doctor_account_id=principal.id,
            console=console,
            model=get_settings().gemini_live_model,
            started_at=now,
            consent_basis="doctor_confirmed" if body.consent else "tenant_policy",
            consent_by_account_id=principal.id if body.consent else None,
            consent_at=now,
            patient_reference=patient_reference_json(body.patientReference),
            state="in_progress",
        ),
    )
    record_tenant(
        session,
        action="consultation.consent",
        actor_id=principal.id,
        target_type="consultation",
        target_id=consultation.id,
        detail={"basis": consultation.consent_basis, "console": console},
    )
    return consultation


def open_for_live(session: Session, principal: Principal, consultation_id: object) -> Consultation:
    """The consultation the live relay may stream into: this doctor's own (tenant + doctor), with
    consent, not signed. Anything else raises NotFound."""
    if principal.role != "doctor":
        raise NotFound(NOT_FOUND)
    consultation = repository.doctor_consultation(session, principal.id, parse_id(consultation_id))
    if consultation is None or consultation.consent_basis is None or consultation.state == "signed":
        raise NotFound(NOT_FOUND)
    return consultation


def consultation_out(consultation: Consultation, line_count: int = 0) -> ConsultationOut:
    duration = None
    if consultation.ended_at is not None:
        duration = max(0, int((consultation.ended_at - consultation.started_at).total_seconds()))
    reference = consultation.patient_reference
    return ConsultationOut(
        id=consultation.id,
        console=consultation.console,
        state=display_state(consultation.state, consultation.ended_at is not None),  # type: ignore[arg-type]
        title=consultation.title,
        startedAt=consultation.started_at,
        endedAt=consultation.ended_at,
        durationSeconds=duration,
        lineCount=line_count,
        patientReference=PatientReference.model_validate(reference) if reference else None,
        consent=ConsentOut(
            basis=consultation.consent_basis,  # type: ignore[arg-type]
            givenBy=consultation.consent_by_account_id,
            givenAt=consultation.consent_at,
        ),
        source=consultation.source or "live",  # type: ignore[arg-type]
    )


def display_state(state: str, ended: bool) -> str:
    """An ended consultation without a signed note is a draft, whatever was generated."""
    if state == "in_progress" and ended:
        return "draft"
    return state


def own_consultation(
    session: Session, principal: Principal, consultation_id: object, *, for_update: bool = False
) -> Consultation:
    """The caller's own consultation (tenant + doctor), else NotFound."""
    if principal.role != "doctor":
        raise NotFound(NOT_FOUND)
    found = repository.doctor_consultation(
        session, principal.id, parse_id(consultation_id), for_update=for_update
    )
    if found is None:
        raise NotFound(NOT_FOUND)
    return found


def _template_title(template_id: str | None) -> str | None:
    known = note_templates.BY_ID.get(template_id or "")
    return known.title if known else template_id


def draft_out(draft: ConsultationDraft) -> DraftOut:
    return DraftOut(
        id=draft.id,
        kind=draft.kind,  # type: ignore[arg-type]
        focus=draft.focus,
        text=draft.text,
        sections=draft.sections,
        evidence=[EvidenceOut.model_validate(e) for e in draft.evidence or []],
        model=draft.model,
        promptVersion=draft.prompt_version,
        createdAt=draft.created_at,
        templateId=draft.template_id,
        templateVersion=draft.template_version,
        templateTitle=_template_title(draft.template_id),
        codes=[CodeOut.model_validate(c) for c in draft.codes or []],
    )


def note_out(session: Session, note: ConsultationNote | None) -> NoteOut | None:
    if note is None:
        return None
    entries = repository.note_entries(session, note.id)
    return NoteOut(
        text=note.text,
        sections=note.sections,
        codes=[CodeOut.model_validate(c) for c in note.codes or []],
        version=note.version,
        signed=bool(entries),
        sourceDraftId=note.source_draft_id,
        updatedAt=note.updated_at,
        entries=[
            NoteEntryOut(
                number=e.number,
                kind=e.kind,  # type: ignore[arg-type]
                text=e.text,
                sections=e.sections,
                authorName=e.author_name,
                createdAt=e.created_at,
                contentSha256=e.content_sha256,
            )
            for e in entries
        ],
    )


def detail(session: Session, consultation: Consultation, *, with_drafts: bool = True) -> ConsultationDetail:
    lines = repository.lines(session, consultation.id)
    base = consultation_out(consultation, len(lines))
    return ConsultationDetail(
        **base.model_dump(),
        lines=[
            TranscriptLineOut(
                id=line.id,
                seq=line.seq,
                speaker=line.speaker,  # type: ignore[arg-type]
                text=line.text,
                spokenAt=line.spoken_at,
                words=words_out(line.words),
            )
            for line in lines
        ],
        transcriptEngine=consultation.transcript_engine,
        drafts=[draft_out(d) for d in repository.drafts(session, consultation.id)] if with_drafts else [],
        note=note_out(session, repository.note(session, consultation.id)),
    )


# Below this confidence a recognised word is marked as one to check against what was said.
LOW_CONFIDENCE = 0.5


def words_out(stored: list[Any] | None) -> list[WordOut] | None:
    """A line's stored words (JSON written by repository.add_lines), skipping any malformed one."""
    if not stored:
        return None
    out: list[WordOut] = []
    for item in stored:
        try:
            confidence = min(max(float(item["p"]), 0.0), 1.0)
            out.append(
                WordOut(
                    text=str(item["w"]),
                    start=float(item["s"]),
                    end=float(item["e"]),
                    confidence=confidence,
                    lowConfidence=confidence < LOW_CONFIDENCE,
                )
            )
        except (KeyError, TypeError, ValueError):
            continue
    return out


def read_consultation(session: Session, principal: Principal, consultation_id: object) -> ConsultationDetail:
    return detail(session, own_consultation(session, principal, consultation_id))


def change_consultation(
    session: Session, principal: Principal, consultation_id: object, body: ConsultationChange
) -> ConsultationOut:
    """Edit the title or the patient reference (before or after the session; not once signed:
    both are on the signed document)."""
    consultation = own_consultation(session, principal, consultation_id, for_update=True)
    changed: list[str] = []
    if "title" in body.model_fields_set:
        if consultation.state == "signed":
            raise Conflict(SIGNED_TITLE)
        consultation.title = (body.title or "").strip() or None
        changed.append("title")
    if "patientReference" in body.model_fields_set:
        if consultation.state == "signed":
            raise Conflict(SIGNED_REFERENCE)
        consultation.patient_reference = patient_reference_json(body.patientReference)
        changed.append("patientReference")
    if changed:
        consultation.search_indexed_at = None  # the search words are gathered again
        record_tenant(
            session,
            action="consultation.update",
            actor_id=principal.id,
            target_type="consultation",
            target_id=consultation.id,
            detail={"fields": changed},
        )
        session.flush()
    return consultation_out(consultation, repository.line_count(session, consultation.id))


# ------------------------------------------------------------------ settings


def _settings_editable(principal: Principal) -> bool:
    if principal.role == "hospital":
        return principal.tenant_kind == "hospital"
    return principal.role == "doctor" and principal.tenant_kind == "independent"


def read_settings(session: Session, principal: Principal) -> RecordSettingsOut:
    if principal.role not in ("doctor", "hospital") or principal.tenant_schema is None:
        raise Forbidden(NO_PERMISSION)
    rules = policy(session, principal)
    return RecordSettingsOut(
        consentMandatory=rules.consent_mandatory,
        retentionDays=rules.retention_days,
        editable=_settings_editable(principal),
    )


def change_settings(session: Session, principal: Principal, body: RecordSettingsIn) -> RecordSettingsOut:
    """A hospital sets them for its doctors; an independent doctor for themself."""
    if principal.role not in ("doctor", "hospital") or principal.tenant_schema is None:
        raise Forbidden(NO_PERMISSION)
    if not _settings_editable(principal):
        raise Forbidden(SETTINGS_NOT_YOURS)
    owner = settings_owner(principal)
    row = repository.settings_row(session, owner) or RecordSettings(
        owner=owner, consent_mandatory=True, retention_days=DEFAULT_RETENTION_DAYS
    )
    if body.consentMandatory is not None:
        row.consent_mandatory = body.consentMandatory
    if body.retentionDays is not None:
        row.retention_days = body.retentionDays
    repository.save_settings(session, row)
    record_tenant(
        session,
        action="record_settings.update",
        actor_id=principal.id,
        target_type="record_settings",
        target_id=owner,
        detail={"consentMandatory": row.consent_mandatory, "retentionDays": row.retention_days},
    )
    return read_settings(session, principal)


# ------------------------------------------------------------------ consultations recorded offline


def recording_consent(session: Session, principal: Principal, console: str, consent: bool) -> tuple[str, str]:
    """The checks of `start_consultation` for a consultation recorded in the browser while offline
    (clinical access, a known console, consent where mandatory): the console and the consent basis."""
    _may_start(session, principal)
    name = console.strip().lower()
    if name not in CONSOLES:
        raise ValidationFailed({"console": UNKNOWN_CONSOLE})
    if not consent and policy(session, principal).consent_mandatory:
        raise ValidationFailed({"consent": CONSENT_REQUIRED}, message=CONSENT_REQUIRED)
    return name, "doctor_confirmed" if consent else "tenant_policy"
