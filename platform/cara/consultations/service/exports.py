"""A signed note leaves Cara as FHIR (a document Bundle or a DocumentReference) or PDF; every
export is audited.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from cara.audit.service import record_tenant
from cara.auth.principal import Principal
from cara.consultations import export, renditions, repository
from cara.consultations.service.canonical import canonical_content
from cara.consultations.service.record import own_consultation
from cara.kit.errors import Conflict
from cara.models import Consultation, ConsultationNoteEntry

# ------------------------------------------------------------------ exports

NOT_SIGNED = "Only a signed note can be exported. Sign the note first."
INDEPENDENT_PRACTICE = "Independent practice"


@dataclass(frozen=True)
class ExportFile:
    content: bytes
    media_type: str
    filename: str


def signed_note(session: Session, consultation: Consultation) -> export.SignedNote:
    """The signed note of a consultation with its addenda, for export; 409 if it is not signed.

    Title, patient reference, signer, licence number and clinic are those kept with the signature
    (what the document showed when signed); only a note signed before they were kept shows
    today's values, and no licence number."""
    note = repository.note(session, consultation.id)
    entries = repository.note_entries(session, note.id) if note is not None else []
    if not entries:
        raise Conflict(NOT_SIGNED)
    shown = entries[0].shown
    letterhead: dict[str, Any] = shown or {}
    if shown is not None:
        title, patient = shown["title"], shown["patientReference"]
        doctor_name, clinic_name = shown["signerName"], shown["clinicName"]
        license_number = shown["licenseNumber"]
    else:  # signed before what the document shows was kept with the signature: today's values
        doctor = repository.account(session, consultation.doctor_account_id)
        clinic = (
            repository.hospital_name(session, doctor.hospital_id) if doctor and doctor.hospital_id else None
        )
        title, patient = consultation.title, consultation.patient_reference
        doctor_name = doctor.name if doctor else entries[0].author_name
        clinic_name, license_number = clinic or INDEPENDENT_PRACTICE, None
    return export.SignedNote(
        consultation_id=consultation.id,
        console=consultation.console,
        title=title,
        started_at=consultation.started_at,
        patient=patient,
        doctor_name=doctor_name,
        clinic_name=clinic_name,
        license_number=license_number,
        # Kept with signatures made since the letterhead was: older notes show none, in UTC.
        clinic_address=letterhead.get("clinicAddress"),
        clinic_contact=letterhead.get("clinicContact"),
        time_zone=letterhead.get("timeZone"),
        codes=tuple(letterhead.get("codes") or ()),
        template=letterhead.get("template"),
        entries=[
            export.Entry(
                number=e.number,
                kind=e.kind,
                text=e.text,
                author_name=e.author_name,
                at=e.created_at,
                sha256=e.content_sha256,
                canonical=_verifiable(consultation, e),
            )
            for e in entries
        ],
    )


def _verifiable(consultation: Consultation, entry: ConsultationNoteEntry) -> str | None:
    """The entry's canonical JSON when it still hashes to the stored SHA-256 (always, unless the
    author's id was cleared since), so a recipient can recompute the identifier from the export."""
    if entry.author_account_id is None:
        return None
    canonical = canonical_content(
        consultation.id,
        entry.number,
        entry.kind,
        entry.text,
        entry.sections,
        entry.author_account_id,
        entry.author_name,
        entry.created_at,
        entry.shown,
    )
    return canonical if hashlib.sha256(canonical.encode()).hexdigest() == entry.content_sha256 else None


def export_file(
    session: Session,
    principal: Principal,
    consultation: Consultation,
    kind: str,
    resource: str = "bundle",
    audit: dict[str, Any] | None = None,
) -> ExportFile:
    note = signed_note(session, consultation)
    stem = f"consultation-{consultation.started_at.strftime('%Y%m%d')}-{str(consultation.id)[:8]}"
    assert principal.tenant_schema is not None  # doctors and hospitals always have a tenant
    content = renditions.file_bytes(principal.tenant_schema, note, kind, resource)
    if kind == "pdf":
        out = ExportFile(content, "application/pdf", f"{stem}.pdf")
    else:
        out = ExportFile(content, export.FHIR_MEDIA_TYPE, f"{stem}.fhir.json")
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
    return export_file(
        session, principal, own_consultation(session, principal, consultation_id), kind, resource
    )
