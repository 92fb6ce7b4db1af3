"""The note: saved with optimistic concurrency, signed (that version becomes immutable: name,
time, SHA-256 of what was signed), then only added to by signed addenda.

At signing the signature entry also keeps what the document shows (`shown`: title, patient
reference, signer's name and licence number, clinic name), so a later rename of the doctor, of
the clinic or of their licence changes new documents only; the exports read it from there.
"""

from __future__ import annotations

import difflib
import uuid
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.orm import Session

from cara.audit.service import record_tenant
from cara.auth.principal import Principal
from cara.consultations import repository
from cara.consultations import templates as note_templates
from cara.consultations.icd10 import lookup as lookup_code
from cara.consultations.radiology import render_radiology
from cara.consultations.schemas import (
    MAX_ADDENDA,
    MAX_NOTE_CHARS,
    AddendumIn,
    NoteOut,
    NoteSave,
    NoteSign,
)
from cara.consultations.service.canonical import content_hash
from cara.consultations.service.exports import INDEPENDENT_PRACTICE
from cara.consultations.service.record import note_out, own_consultation
from cara.kit.errors import BadRequest, Conflict, NotFound, PayloadTooLarge, ValidationFailed
from cara.models import (
    Consultation,
    ConsultationDraft,
    ConsultationNote,
    ConsultationNoteEntry,
)
from cara.models.base import utcnow

# ------------------------------------------------------------------ the note: edit, sign, addenda

NOTE_SIGNED = "This note is signed and can no longer be changed. Add an addendum instead."
NOTE_CHANGED = (
    "This note was saved elsewhere (another tab or device) since you opened it. "
    "Your text is still here: reload the note, then save your changes again."
)
NOTE_EMPTY = "An empty note cannot be signed."
ADDENDUM_EMPTY = "An addendum cannot be empty."
ADDENDUM_UNSIGNED = "Only a signed note takes addenda; edit the note instead."
ADDENDA_FULL = (
    f"This note already has {MAX_ADDENDA} addenda, the most one note takes. "
    "Record further findings in a new consultation."
)
NOTE_TOO_LONG = (
    f"The note is too long: at most {MAX_NOTE_CHARS:,} characters, sections included. Shorten it, "
    "or split it over two consultations."
)
NOTE_MISSING = "There is no note to sign yet."
TIME_ZONE_UNKNOWN = "Unknown time zone: give an IANA name such as Africa/Accra."
CODE_UNKNOWN = "{code} is not a WHO ICD-10 code (2019 edition)."
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
    if len(text) > MAX_NOTE_CHARS:  # each section fits, but the note they make does not
        raise PayloadTooLarge(NOTE_TOO_LONG)
    codes = _accepted_codes(session, consultation, body.codes) if body.codes is not None else None
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
                codes=codes or [],
                version=1,
            ),
        )
    else:
        if expected != note.version:
            raise Conflict(NOTE_CHANGED)
        note.text, note.sections = text, sections
        if codes is not None:
            note.codes = codes
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


def _accepted_codes(session: Session, consultation: Consultation, raw: list[str]) -> list[dict[str, Any]]:
    """The codes the doctor accepted, each a WHO ICD-10 code (else 422 naming it). A code one of
    the consultation's drafts proposed keeps that draft's evidence; one the doctor added has none."""
    proposed: dict[str, dict[str, Any]] = {}
    for draft in repository.drafts(session, consultation.id):
        for item in draft.codes or []:
            proposed.setdefault(item["code"], item)
    accepted: dict[str, dict[str, Any]] = {}
    for value in raw:
        code = lookup_code(value)
        if code is None:
            message = CODE_UNKNOWN.format(code=value.strip()[:16])
            raise ValidationFailed({"codes": message}, message=message)
        evidence = proposed.get(code.code, {})
        accepted[code.code] = {
            "code": code.code,
            "title": code.title,
            "lineIds": list(evidence.get("lineIds") or []),
            "sentences": list(evidence.get("sentences") or []),
        }
    return list(accepted.values())


def parse_draft_id(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError as exc:
        raise NotFound(DRAFT_NOT_FOUND) from exc


def _entry(
    session: Session,
    principal: Principal,
    consultation: Consultation,
    note: ConsultationNote,
    kind: str,
    text: str,
    sections: dict[str, Any] | None,
    number: int,
    shown: dict[str, Any] | None = None,
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
                consultation.id, number, kind, text, sections, principal.id, name, at, shown
            ),
            shown=shown,
            created_at=at,
        ),
    )


def _time_zone(raw: str | None) -> str | None:
    """The signer's IANA time zone, checked against the zone database; None when not given."""
    if raw is None or not raw.strip():
        return None
    name = raw.strip()
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValidationFailed({"timeZone": TIME_ZONE_UNKNOWN}, message=TIME_ZONE_UNKNOWN) from exc
    return name


def _joined(*parts: str | None) -> str:
    return ", ".join(p.strip() for p in parts if p and p.strip())


def _shown(
    session: Session,
    principal: Principal,
    consultation: Consultation,
    note: ConsultationNote,
    time_zone: str | None,
) -> dict[str, Any]:
    """What the signed document shows, as it is now: fixed with the signature.

    The letterhead is the hospital's (address, telephone, email); an independent doctor's is
    their own practice: their region and country and their telephone and email."""
    account = principal.account
    hospital = repository.hospital(session, account.hospital_id) if account.hospital_id else None
    profile = repository.doctor_profile(session, account.id)
    if hospital is not None:
        clinic, address = hospital.name, _joined(hospital.address, hospital.state, hospital.country)
        contact = " · ".join(v for v in (hospital.phone_number, hospital.email, hospital.website) if v)
    else:
        clinic = INDEPENDENT_PRACTICE
        address = _joined(profile.state, profile.country) if profile else ""
        contact = " · ".join(v for v in (account.phone_number, account.email) if v)
    shown: dict[str, Any] = {
        "title": consultation.title,
        "patientReference": consultation.patient_reference,
        "signerName": account.name,
        "licenseNumber": (profile.license_number if profile else None) or None,
        "clinicName": clinic,
        "clinicAddress": address or None,
        "clinicContact": contact or None,
        "timeZone": time_zone,
        "codes": [{"code": c["code"], "title": c["title"]} for c in note.codes or []],
        "template": _template_of(session, consultation, note),
    }
    return shown


def changed_share(draft_text: str, signed_text: str) -> float:
    """How much of the draft the doctor changed before signing: 1 - the similarity of the two
    texts as word sequences (0 = signed as drafted, 1 = nothing of the draft kept)."""
    matcher = difflib.SequenceMatcher(None, draft_text.split(), signed_text.split(), autojunk=False)
    return round(1.0 - matcher.ratio(), 4)


def _draft_change(session: Session, consultation: Consultation, note: ConsultationNote) -> dict[str, Any]:
    """For the audit entry of a signature from a draft: which kind and template it was and how
    much of it changed (numbers and ids only, never text)."""
    if note.source_draft_id is None:
        return {}
    draft = repository.draft(session, consultation.id, note.source_draft_id)
    if draft is None:
        return {}
    return {
        "draftKind": draft.kind,
        "template": draft.template_id,
        "draftChange": changed_share(draft.text, note.text),
    }


def _template_of(
    session: Session, consultation: Consultation, note: ConsultationNote
) -> dict[str, Any] | None:
    """The template (id, version, title, LOINC type) of the note draft the note started from."""
    if note.source_draft_id is None:
        return None
    draft = repository.draft(session, consultation.id, note.source_draft_id)
    if draft is None or draft.template_id is None:
        return None
    known = note_templates.BY_ID.get(draft.template_id)
    return {
        "id": draft.template_id,
        "version": draft.template_version,
        "title": known.title if known else draft.template_id,
        "loinc": known.loinc if known else None,
    }


def sign_note(
    session: Session, principal: Principal, consultation_id: object, body: NoteSign, if_match: str | None
) -> NoteOut:
    """Sign the note as it is at `version`: that version becomes immutable (name, time, hash)."""
    time_zone = _time_zone(body.timeZone)
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
    entry = _entry(
        session,
        principal,
        consultation,
        note,
        "signature",
        note.text,
        note.sections,
        1,
        shown=_shown(session, principal, consultation, note, time_zone),
    )
    consultation.state = "signed"
    consultation.signed_at = entry.created_at
    return _noted(
        session,
        principal,
        consultation,
        note,
        "consultation.note.sign",
        {
            "version": note.version,
            "sha256": entry.content_sha256,
            **_draft_change(session, consultation, note),
        },
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
    if len(entries) > MAX_ADDENDA:  # the signature is the first entry
        raise PayloadTooLarge(ADDENDA_FULL)
    entry = _entry(session, principal, consultation, note, "addendum", text, None, entries[-1].number + 1)
    return _noted(
        session,
        principal,
        consultation,
        note,
        "consultation.note.addendum",
        {"number": entry.number, "sha256": entry.content_sha256},
    )
