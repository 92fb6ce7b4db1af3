"""The rules of the consultation record. Services never commit: the endpoint does.

A consultation starts with the patient's consent (`start_consultation`); the live relay then
opens it by id (`open_for_live`) and stores its transcript lines against it. Ids of another
tenant or doctor are answered as not found, never as forbidden.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import pydantic_core
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from cara.audit.service import record_tenant
from cara.auth.principal import NO_PERMISSION, Principal, tenant_role
from cara.config import get_settings
from cara.consultations import export, repository
from cara.consultations.radiology import render_radiology as render_radiology
from cara.consultations.schemas import (
    CONSOLES,
    AddendumIn,
    ConsentOut,
    ConsultationChange,
    ConsultationCreate,
    ConsultationDetail,
    ConsultationOut,
    DraftOut,
    EvidenceOut,
    NoteEntryOut,
    NoteOut,
    NoteSave,
    NoteSign,
    PatientReference,
    RecordSettingsIn,
    RecordSettingsOut,
    SignedNoteDetail,
    SignedNoteItem,
    SignedNotePage,
    TranscriptLineOut,
)
from cara.kit.db import get_engine, restrict_to_tenant_role, tenant_session
from cara.kit.errors import BadRequest, Conflict, Forbidden, NotFound, ValidationFailed
from cara.models import (
    Account,
    Consultation,
    ConsultationDraft,
    ConsultationNote,
    ConsultationNoteEntry,
    RecordSettings,
    TranscriptLine,
)
from cara.models.base import utcnow
from cara.subscriptions.service import grants_clinical_access
from tenants.naming import INDEPENDENT_SCHEMA
from tenants.roles import role_for

NOT_FOUND = "Consultation not found."
CONSENT_REQUIRED = "The patient's consent is required before the consultation starts."
UNKNOWN_CONSOLE = "Unknown console."
NEEDS_SUBSCRIPTION = "An active subscription is required to use Cara. Please choose a plan."
BAD_CURSOR = "This page link is no longer valid. Please reload the list."
SIGNED_REFERENCE = "The note is signed: who it is about can no longer change."
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


def _doctor(principal: Principal) -> None:
    if principal.role != "doctor":
        raise Forbidden(NO_PERMISSION)


def _may_start(session: Session, principal: Principal) -> None:
    """Doctors with clinical access (spec §6) start consultations; the live socket checks again.

    Subscriptions are platform rows, read through the request's own session (tenant roles may
    read them): a second session would hold a second pooled connection for the request."""
    _doctor(principal)
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


# ------------------------------------------------------------------ list and read


def encode_cursor(started_at: datetime, consultation_id: uuid.UUID) -> str:
    raw = json.dumps([started_at.isoformat(), str(consultation_id)], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, uuid.UUID]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        started, ident = json.loads(raw)
        at = datetime.fromisoformat(started)
        if at.tzinfo is None:
            raise ValueError("naive time")
        return at, uuid.UUID(ident)
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError) as exc:
        raise BadRequest(BAD_CURSOR) from exc


def search_words(q: str | None) -> list[str]:
    """Letters and digits of the query, lower case; each matches as a word prefix."""
    words = re.findall(r"[^\W_]+", (q or "").lower())
    return [w[:64] for w in words[:MAX_SEARCH_WORDS]]


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


async def list_consultations(
    principal: Principal,
    *,
    q: str | None = None,
    started_from: date | None = None,
    started_to: date | None = None,
    state: str | None = None,
    cursor: str | None = None,
    limit: int = PAGE_SIZE,
) -> bytes:
    """The doctor's consultations, newest first (ConsultationPage, encoded as JSON); text search
    over title, patient reference and transcript; `started_from` / `started_to` are whole days
    (UTC), both included. One read on the event loop, under the tenant's database role."""
    _doctor(principal)
    schema = principal.tenant_schema
    if schema is None:  # a doctor always has a tenant; the principal check made sure
        raise NotFound(NOT_FOUND)
    words = search_words(q)
    where = repository.ListFilter(
        doctor_id=principal.id,
        words=words,
        started_from=_day_start(started_from) if started_from else None,
        started_before=_day_start(started_to) + timedelta(days=1) if started_to else None,
        state=state,
    )
    after = decode_cursor(cursor) if cursor else None
    role = tenant_role(schema)
    listed = await repository.list_page_async(schema, role, where, after=after, limit=limit + 1)
    if listed.stale:
        # Rare: the live relay gathers a consultation's words as it stores lines and when it
        # ends. Documents written otherwise (an import, a restore) are gathered here, once, in a
        # transaction of their own, and the page read again.
        await run_in_threadpool(_refresh_search, schema, role, principal.id)
        listed = await repository.list_page_async(schema, role, where, after=after, limit=limit + 1)
    rows = listed.rows[:limit]
    more = len(listed.rows) > limit
    next_cursor = encode_cursor(rows[-1][4], rows[-1][0]) if more and rows else None
    # Encoded straight from the rows by pydantic's own serializer (the bytes FastAPI writes for
    # `response_model=ConsultationPage`, a test holds them equal): building and validating 20
    # models, then dumping them, cost a tenth of the request's CPU.
    return pydantic_core.to_json({"items": [_listed_json(row) for row in rows], "nextCursor": next_cursor})


_REFERENCE_KEYS = tuple(PatientReference.model_fields)


def _listed_json(row: tuple[Any, ...]) -> dict[str, Any]:
    """ConsultationOut's fields, in its order, from a row of repository.list_page_async (values
    as stored: the patient reference was validated when written)."""
    (
        ident,
        console,
        state,
        title,
        started_at,
        ended_at,
        reference,
        basis,
        given_by,
        given_at,
        source,
        lines,
    ) = row
    return {
        "id": ident,
        "console": console,
        "state": display_state(state, ended_at is not None),
        "title": title,
        "startedAt": started_at,
        "endedAt": ended_at,
        "durationSeconds": None if ended_at is None else max(0, int((ended_at - started_at).total_seconds())),
        "lineCount": int(lines),
        "patientReference": {key: reference.get(key) for key in _REFERENCE_KEYS} if reference else None,
        "consent": {"basis": basis, "givenBy": given_by, "givenAt": given_at},
        "source": source or "live",
    }


def _refresh_search(schema: str, role: str, doctor_id: uuid.UUID) -> None:
    """Gather the doctor's search documents that are behind (repository.refresh_search)."""
    session = tenant_session(schema)
    try:
        restrict_to_tenant_role(session, role)
        repository.refresh_search(session, doctor_id)
        session.commit()
    finally:
        session.close()


def add_assistant_lines(
    session: Session, principal: Principal, consultation_id: object, lines: list[tuple[str, str]]
) -> None:
    """Keep an exchange with the assistant outside the live socket (the radiotherapy chat: the
    question, the dose-constraint tool's results, the answer) in the consultation's transcript.
    Only the doctor's own consultation with consent and not signed; anything else is NotFound."""
    consultation = open_for_live(session, principal, consultation_id)
    repository.doctor_consultation(session, principal.id, consultation.id, for_update=True)
    repository.append_lines(session, consultation.id, lines)
    index_for_search(session, consultation.id)


def index_for_search(session: Session, consultation_id: uuid.UUID) -> None:
    """Gather a consultation's search words now, as its lines are stored and when it ends (the live
    relay calls this in its own transaction), so that a search never has to gather them."""
    repository.index_consultation(session, consultation_id)


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
    )


def note_out(session: Session, note: ConsultationNote | None) -> NoteOut | None:
    if note is None:
        return None
    entries = repository.note_entries(session, note.id)
    return NoteOut(
        text=note.text,
        sections=note.sections,
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
            )
            for line in lines
        ],
        drafts=[draft_out(d) for d in repository.drafts(session, consultation.id)] if with_drafts else [],
        note=note_out(session, repository.note(session, consultation.id)),
    )


def read_consultation(session: Session, principal: Principal, consultation_id: object) -> ConsultationDetail:
    return detail(session, own_consultation(session, principal, consultation_id))


def change_consultation(
    session: Session, principal: Principal, consultation_id: object, body: ConsultationChange
) -> ConsultationOut:
    """Edit the title or the patient reference (before or after the session; not once signed)."""
    consultation = own_consultation(session, principal, consultation_id, for_update=True)
    changed: list[str] = []
    if "title" in body.model_fields_set:
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


def _worker_session(schema: str) -> Session:
    session = tenant_session(schema)
    restrict_to_tenant_role(session, role_for(str(get_engine().url.database), schema))
    return session


def draft_source(target: DraftTarget) -> list[SourceLine]:
    """The consultation's stored transcript lines, read on the worker (empty if it is gone)."""
    with _worker_session(target.schema) as session:
        consultation = repository.doctor_consultation(session, target.doctor_id, target.consultation_id)
        if consultation is None:
            return []
        return [
            SourceLine(id=line.id, speaker=line.speaker, text=line.text)
            for line in repository.lines(session, consultation.id)
        ]


def store_draft(target: DraftTarget, draft: NewDraft) -> DraftOut:
    """Keep a generated draft on its consultation (its own transaction, on the worker). A signed
    note is never touched; an unsigned consultation becomes a draft."""
    with _worker_session(target.schema) as session:
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
        out = draft_out(row)
        session.commit()
        return out


# ------------------------------------------------------------------ the note: edit, sign, addenda

NOTE_SIGNED = "This note is signed and can no longer be changed. Add an addendum instead."
NOTE_CHANGED = (
    "This note was saved elsewhere (another tab or device) since you opened it. "
    "Your text is still here: reload the note, then save your changes again."
)
NOTE_EMPTY = "An empty note cannot be signed."
ADDENDUM_EMPTY = "An addendum cannot be empty."
ADDENDUM_UNSIGNED = "Only a signed note takes addenda; edit the note instead."
NOTE_MISSING = "There is no note to sign yet."
DRAFT_NOT_FOUND = "Draft not found."
BAD_VERSION = "The If-Match header must be the note's version."


def _noted(
    session: Session,
    principal: Principal,
    consultation: Consultation,
    note: ConsultationNote,
    action: str,
    detail: dict[str, Any],
) -> NoteOut:
    """Audit a change of the note (save, sign, addendum) and answer the note as it now is."""
    record_tenant(
        session,
        action=action,
        actor_id=principal.id,
        target_type="consultation",
        target_id=consultation.id,
        detail=detail,
    )
    session.flush()
    out = note_out(session, note)
    assert out is not None
    return out


def parse_version(if_match: str | None, body_version: int | None) -> int | None:
    """The version the client edited: `If-Match` ("3", "\\"3\\"" or W/"3") or the body's `version`."""
    if if_match is None or not if_match.strip():
        return body_version
    raw = if_match.strip().removeprefix("W/").strip('"')
    if not raw.isdigit():
        raise BadRequest(BAD_VERSION)
    return int(raw)


def _note_content(body: NoteSave, draft: ConsultationDraft | None) -> tuple[str, dict[str, Any] | None]:
    if body.sections is not None:
        sections = body.sections.model_dump()
        sections["impression"] = [i.strip() for i in sections["impression"] if i.strip()]
        return render_radiology(sections), sections
    if body.text is not None:
        return body.text, None
    if draft is not None:
        return draft.text, draft.sections
    return "", None


def save_note(
    session: Session, principal: Principal, consultation_id: object, body: NoteSave, if_match: str | None
) -> NoteOut:
    """Save the note if nobody saved it since `version` (optimistic concurrency); a signed note
    never changes. The first save may start from one of the consultation's drafts."""
    consultation = own_consultation(session, principal, consultation_id, for_update=True)
    expected = parse_version(if_match, body.version)
    note = repository.note(session, consultation.id, for_update=True)
    if note is not None and repository.note_entries(session, note.id):
        raise Conflict(NOTE_SIGNED)
    if consultation.state == "signed":
        raise Conflict(NOTE_SIGNED)
    draft = None
    if body.fromDraftId is not None:
        draft = repository.draft(session, consultation.id, parse_draft_id(body.fromDraftId))
        if draft is None:
            raise NotFound(DRAFT_NOT_FOUND)
    text, sections = _note_content(body, draft)
    if note is None:
        if expected not in (None, 0):
            raise Conflict(NOTE_CHANGED)
        note = repository.add_note(
            session,
            ConsultationNote(
                consultation_id=consultation.id,
                text=text,
                sections=sections,
                source_draft_id=draft.id if draft else None,
                version=1,
            ),
        )
    else:
        if expected != note.version:
            raise Conflict(NOTE_CHANGED)
        note.text, note.sections = text, sections
        if draft is not None:
            note.source_draft_id = draft.id
        note.version += 1
        note.updated_at = utcnow()
    if consultation.state == "in_progress":
        consultation.state = "draft"
    return _noted(
        session,
        principal,
        consultation,
        note,
        "consultation.note.save",
        {"version": note.version, **({"fromDraft": str(draft.id)} if draft else {})},
    )


def parse_draft_id(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError as exc:
        raise NotFound(DRAFT_NOT_FOUND) from exc


def content_hash(
    consultation_id: uuid.UUID,
    number: int,
    kind: str,
    text: str,
    sections: dict[str, Any] | None,
    author_id: uuid.UUID,
    author_name: str,
    at: datetime,
) -> str:
    """SHA-256 of a signed entry's canonical JSON: what was signed, by whom, when."""
    canonical = json.dumps(
        {
            "consultation": str(consultation_id),
            "number": number,
            "kind": kind,
            "text": text,
            "sections": sections,
            "author": str(author_id),
            "authorName": author_name,
            "at": at.astimezone(UTC).isoformat(),
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def _entry(
    session: Session,
    principal: Principal,
    consultation: Consultation,
    note: ConsultationNote,
    kind: str,
    text: str,
    sections: dict[str, Any] | None,
    number: int,
) -> ConsultationNoteEntry:
    at = utcnow()
    name = principal.account.name
    return repository.add_entry(
        session,
        ConsultationNoteEntry(
            note_id=note.id,
            number=number,
            kind=kind,
            text=text,
            sections=sections,
            author_account_id=principal.id,
            author_name=name,
            content_sha256=content_hash(
                consultation.id, number, kind, text, sections, principal.id, name, at
            ),
            created_at=at,
        ),
    )


def sign_note(
    session: Session, principal: Principal, consultation_id: object, body: NoteSign, if_match: str | None
) -> NoteOut:
    """Sign the note as it is at `version`: that version becomes immutable (name, time, hash)."""
    consultation = own_consultation(session, principal, consultation_id, for_update=True)
    note = repository.note(session, consultation.id, for_update=True)
    if note is None:
        raise ValidationFailed({"text": NOTE_EMPTY}, message=NOTE_EMPTY)
    if repository.note_entries(session, note.id):
        raise Conflict(NOTE_SIGNED)
    expected = parse_version(if_match, body.version)
    if expected is not None and expected != note.version:
        raise Conflict(NOTE_CHANGED)
    if not note.text.strip():
        raise ValidationFailed({"text": NOTE_EMPTY}, message=NOTE_EMPTY)
    entry = _entry(session, principal, consultation, note, "signature", note.text, note.sections, 1)
    consultation.state = "signed"
    consultation.signed_at = entry.created_at
    return _noted(
        session,
        principal,
        consultation,
        note,
        "consultation.note.sign",
        {"version": note.version, "sha256": entry.content_sha256},
    )


def add_addendum(
    session: Session, principal: Principal, consultation_id: object, body: AddendumIn
) -> NoteOut:
    """Add to a signed note without changing it: a new signed entry."""
    consultation = own_consultation(session, principal, consultation_id, for_update=True)
    note = repository.note(session, consultation.id, for_update=True)
    entries = repository.note_entries(session, note.id) if note is not None else []
    if note is None or not entries:
        raise Conflict(ADDENDUM_UNSIGNED)
    text = body.text.strip()
    if not text:
        raise ValidationFailed({"text": ADDENDUM_EMPTY}, message=ADDENDUM_EMPTY)
    entry = _entry(session, principal, consultation, note, "addendum", text, None, entries[-1].number + 1)
    return _noted(
        session,
        principal,
        consultation,
        note,
        "consultation.note.addendum",
        {"number": entry.number, "sha256": entry.content_sha256},
    )


# ------------------------------------------------------------------ exports

NOT_SIGNED = "Only a signed note can be exported. Sign the note first."
INDEPENDENT_PRACTICE = "Independent practice"


@dataclass(frozen=True)
class ExportFile:
    content: bytes
    media_type: str
    filename: str


def signed_note(session: Session, consultation: Consultation) -> export.SignedNote:
    """The signed note of a consultation with its addenda, for export; 409 if it is not signed."""
    note = repository.note(session, consultation.id)
    entries = repository.note_entries(session, note.id) if note is not None else []
    if not entries:
        raise Conflict(NOT_SIGNED)
    doctor = repository.account(session, consultation.doctor_account_id)
    clinic = repository.hospital_name(session, doctor.hospital_id) if doctor and doctor.hospital_id else None
    return export.SignedNote(
        consultation_id=consultation.id,
        console=consultation.console,
        title=consultation.title,
        started_at=consultation.started_at,
        patient=consultation.patient_reference,
        doctor_name=doctor.name if doctor else entries[0].author_name,
        clinic_name=clinic or INDEPENDENT_PRACTICE,
        entries=[
            export.Entry(
                number=e.number,
                kind=e.kind,
                text=e.text,
                author_name=e.author_name,
                at=e.created_at,
                sha256=e.content_sha256,
            )
            for e in entries
        ],
    )


def _export(
    session: Session,
    principal: Principal,
    consultation: Consultation,
    kind: str,
    resource: str = "bundle",
    audit: dict[str, Any] | None = None,
) -> ExportFile:
    note = signed_note(session, consultation)
    stem = f"consultation-{consultation.started_at.strftime('%Y%m%d')}-{str(consultation.id)[:8]}"
    if kind == "pdf":
        out = ExportFile(export.pdf(note), "application/pdf", f"{stem}.pdf")
    else:
        document = (
            export.document_reference(note)
            if resource == "document-reference"
            else export.document_bundle(note)
        )
        out = ExportFile(
            json.dumps(document, ensure_ascii=False, indent=2).encode(),
            export.FHIR_MEDIA_TYPE,
            f"{stem}.fhir.json",
        )
    record_tenant(
        session,
        action="consultation.export",
        actor_id=principal.id,
        target_type="consultation",
        target_id=consultation.id,
        detail={"format": kind, **({"resource": resource} if kind == "fhir" else {}), **(audit or {})},
    )
    return out


def export_note(
    session: Session, principal: Principal, consultation_id: object, kind: str, resource: str = "bundle"
) -> ExportFile:
    """The doctor's signed note as FHIR (`bundle` or `document-reference`) or PDF; audited."""
    return _export(session, principal, own_consultation(session, principal, consultation_id), kind, resource)


# ------------------------------------------------------------------ the hospital's view

NOTE_NOT_FOUND = "Signed note not found."


def _hospital(principal: Principal) -> uuid.UUID:
    if principal.role != "hospital" or principal.hospital_id is None:
        raise Forbidden(NO_PERMISSION)
    return principal.hospital_id


def _signed_item(consultation: Consultation, doctor: Account) -> SignedNoteItem:
    reference = consultation.patient_reference
    return SignedNoteItem(
        id=consultation.id,
        doctorId=doctor.id,
        doctorName=doctor.name,
        console=consultation.console,
        title=consultation.title,
        startedAt=consultation.started_at,
        signedAt=consultation.signed_at,
        patientReference=PatientReference.model_validate(reference) if reference else None,
    )


def hospital_signed_notes(
    session: Session,
    principal: Principal,
    *,
    doctor_id: str | None = None,
    cursor: str | None = None,
    limit: int = PAGE_SIZE,
) -> SignedNotePage:
    """The signed notes of this hospital's doctors (one doctor's with `doctor_id`), newest first."""
    hospital_id = _hospital(principal)
    doctor = None
    if doctor_id is not None:
        try:
            doctor = uuid.UUID(doctor_id)
        except ValueError as exc:
            raise NotFound("Doctor not found.") from exc
    after = decode_cursor(cursor) if cursor else None
    rows = repository.hospital_signed_page(
        session, hospital_id, doctor_id=doctor, after=after, limit=limit + 1
    )
    more = len(rows) > limit
    rows = rows[:limit]
    return SignedNotePage(
        items=[_signed_item(c, a) for c, a in rows],
        nextCursor=encode_cursor(rows[-1][0].started_at, rows[-1][0].id) if more and rows else None,
    )


def _hospital_signed(
    session: Session, principal: Principal, consultation_id: object
) -> tuple[Consultation, Account]:
    """A signed consultation of this hospital's doctors with its doctor, else NotFound."""
    found = repository.hospital_signed(session, _hospital(principal), parse_id(consultation_id))
    if found is None:
        raise NotFound(NOTE_NOT_FOUND)
    return found


def hospital_read_note(session: Session, principal: Principal, consultation_id: object) -> SignedNoteDetail:
    """One signed note of this hospital's doctors, read-only; each view is audited."""
    consultation, doctor = _hospital_signed(session, principal, consultation_id)
    note = note_out(session, repository.note(session, consultation.id))
    if note is None or not note.entries:
        raise NotFound(NOTE_NOT_FOUND)
    record_tenant(
        session,
        action="consultation.hospital_view",
        actor_id=principal.id,
        target_type="consultation",
        target_id=consultation.id,
        detail={"doctor": str(doctor.id)},
    )
    # The signed text only: what it was drafted from stays the doctor's.
    note = note.model_copy(update={"sourceDraftId": None})
    return SignedNoteDetail(**_signed_item(consultation, doctor).model_dump(), note=note)


def hospital_export_note(
    session: Session, principal: Principal, consultation_id: object, kind: str, resource: str = "bundle"
) -> ExportFile:
    """A signed note of this hospital's doctors as FHIR or PDF, as the doctor downloads it; each
    download is audited (never a draft: an unsigned consultation is not found here)."""
    consultation, doctor = _hospital_signed(session, principal, consultation_id)
    try:
        return _export(session, principal, consultation, kind, resource, audit={"doctor": str(doctor.id)})
    except Conflict as exc:  # signed, but no signature entry: not a note the hospital can see
        raise NotFound(NOTE_NOT_FOUND) from exc


# ------------------------------------------------------------------ retention (scheduled worker job)

RETENTION_ACTOR = "consultations.apply_retention"


def apply_retention(schema: str, now: datetime | None = None) -> int:
    """In one tenant schema: delete the transcripts and drafts of consultations that were never
    signed, once the retention period has passed (the hospital's, or each independent doctor's,
    30 days by default). Signed notes stay. Returns how many consultations were purged.
    Also gathers the search documents that are behind."""
    at = now or utcnow()
    with _worker_session(schema) as session:
        expired = repository.expired_unsigned(
            session, at, hospital=schema != INDEPENDENT_SCHEMA, default_days=DEFAULT_RETENTION_DAYS
        )
        # Search documents still behind (consultations from before the record, or never searched)
        # are gathered here, so that a doctor's first search does not gather them all.
        repository.refresh_search(session, None)
        if expired:
            repository.purge(session, expired)
            record_tenant(
                session,
                action="consultation.retention",
                actor_id=None,
                target_type="consultation",
                detail={"consultations": len(expired)},
            )
        session.commit()
        return len(expired)


# ------------------------------------------------------------------ consultations recorded offline


@dataclass(frozen=True)
class RecordedLine:
    """A line of a recording's transcript: `user` (the clinician) or `patient` (anyone else)."""

    speaker: str
    text: str
    offset_seconds: float


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
        ),
    )
    repository.add_lines(
        session,
        [
            TranscriptLine(
                consultation_id=consultation.id,
                seq=seq,
                speaker=line.speaker,
                text=line.text,
                spoken_at=started_at + timedelta(seconds=max(0.0, line.offset_seconds)),
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
        detail={"basis": consent_basis, "console": console, "lines": len(lines)},
    )
    index_for_search(session, consultation.id)
    return consultation.id
