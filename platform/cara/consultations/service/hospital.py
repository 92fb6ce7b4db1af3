"""The hospital's view: the signed notes of its doctors, read-only and audited; never a draft."""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from cara.audit.service import record_tenant
from cara.auth.principal import NO_PERMISSION, Principal
from cara.consultations import repository
from cara.consultations import templates as note_templates
from cara.consultations.schemas import (
    DraftChangeOut,
    PatientReference,
    SignedNoteDetail,
    SignedNoteItem,
    SignedNotePage,
)
from cara.consultations.service.exports import ExportFile, export_file
from cara.consultations.service.listing import decode_cursor, encode_cursor
from cara.consultations.service.record import PAGE_SIZE, note_out, parse_id
from cara.kit.errors import Conflict, Forbidden, NotFound
from cara.models import (
    Account,
    Consultation,
)

# ------------------------------------------------------------------ the hospital's view

NOTE_NOT_FOUND = "Signed note not found."


def _hospital(principal: Principal) -> uuid.UUID:
    if principal.role != "hospital" or principal.hospital_id is None:
        raise Forbidden(NO_PERMISSION)
    return principal.hospital_id


def _signed_item(
    consultation: Consultation, doctor: Account | None, signature: repository.Signature | None
) -> SignedNoteItem:
    """The item as signed: title, patient reference and signer's name are those kept with the
    signature (`shown`); a note signed before they were kept shows today's, or, where the doctor
    has since been removed (no account), the name the note was signed under."""
    shown = signature.shown if signature is not None else None
    reference = shown["patientReference"] if shown is not None else consultation.patient_reference
    if shown is not None:
        name = shown["signerName"]
    elif doctor is not None:
        name = doctor.name
    else:
        name = signature.author_name if signature is not None else ""
    return SignedNoteItem(
        id=consultation.id,
        doctorId=consultation.doctor_account_id,
        doctorName=name,
        doctorRemoved=doctor is None,
        console=consultation.console,
        title=shown["title"] if shown is not None else consultation.title,
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
    signed = repository.signatures(session, [c.id for c, _ in rows])
    return SignedNotePage(
        items=[_signed_item(c, a, signed.get(c.id)) for c, a in rows],
        nextCursor=encode_cursor(rows[-1][0].started_at, rows[-1][0].id) if more and rows else None,
    )


def _hospital_signed(
    session: Session, principal: Principal, consultation_id: object
) -> tuple[Consultation, Account | None]:
    """A signed consultation of this hospital's doctors with its doctor (None once removed),
    else NotFound."""
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
        detail={"doctor": str(consultation.doctor_account_id)},
    )
    # The signed text only: what it was drafted from stays the doctor's.
    note = note.model_copy(update={"sourceDraftId": None})
    signature = repository.signatures(session, [consultation.id]).get(consultation.id)
    return SignedNoteDetail(**_signed_item(consultation, doctor, signature).model_dump(), note=note)


def hospital_export_note(
    session: Session, principal: Principal, consultation_id: object, kind: str, resource: str = "bundle"
) -> ExportFile:
    """A signed note of this hospital's doctors as FHIR or PDF, as the doctor downloads it; each
    download is audited (never a draft: an unsigned consultation is not found here)."""
    consultation, _doctor = _hospital_signed(session, principal, consultation_id)
    try:
        return export_file(
            session,
            principal,
            consultation,
            kind,
            resource,
            audit={"doctor": str(consultation.doctor_account_id)},
        )
    except Conflict as exc:  # signed, but no signature entry: not a note the hospital can see
        raise NotFound(NOTE_NOT_FOUND) from exc


def draft_changes(session: Session, principal: Principal) -> list[DraftChangeOut]:
    """How much the hospital's doctors change drafts before signing, per template: a template
    whose drafts are rewritten is one that works badly."""
    _hospital(principal)
    out = []
    for row in repository.draft_changes(session):
        known = note_templates.BY_ID.get(row.template or "")
        out.append(
            DraftChangeOut(
                template=row.template,
                templateTitle=known.title if known else None,
                draftKind=row.draft_kind,
                signed=row.signed,
                meanChanged=row.mean,
                medianChanged=row.median,
            )
        )
    return out
