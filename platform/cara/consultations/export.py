"""Exports of a signed note: a FHIR R4 document (R4B models of `fhir.resources`) and a printable PDF.

The FHIR document is a `Bundle` of type document whose first entry is the `Composition`; it
carries the `DocumentReference` (LOINC 11488-4 consult note, or 18748-4 diagnostic imaging report
for radiology) whose attachment is the signed note, and the patient (the consultation's patient
reference as the subject), the doctor and the clinic. Entry ids are derived from the consultation,
and every time in either format is one of the note's own (the PDF's creation date is the signing
time), so exporting twice gives the same bytes.
"""

from __future__ import annotations

import base64
import hashlib
import html
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from fhir.resources.R4B.bundle import Bundle
from fhir.resources.R4B.documentreference import DocumentReference
from fpdf import FPDF

AI_STATEMENT = (
    "Drafted with AI assistance (Cara) from the recorded consultation, then reviewed, edited and "
    "signed by the clinician named above. Decision support, not a diagnosis."
)
LOINC = "http://loinc.org"
CONSULT_NOTE = ("11488-4", "Consult note")
IMAGING_REPORT = ("18748-4", "Diagnostic imaging study")
PATIENT_ID_SYSTEM = "urn:cara:patient-reference"
NOTE_HASH_SYSTEM = "urn:cara:note-sha256"
LICENSE_SYSTEM = "urn:cara:license-number"
FHIR_MEDIA_TYPE = "application/fhir+json"
_NS = uuid.UUID("6f1f3c52-3d0e-4f0b-9a55-2f6c1f0f6a11")
_FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")


@dataclass(frozen=True)
class Entry:
    number: int
    kind: str
    text: str
    author_name: str
    at: datetime
    sha256: str


@dataclass(frozen=True)
class SignedNote:
    consultation_id: uuid.UUID
    console: str
    title: str | None
    started_at: datetime
    patient: dict[str, Any] | None
    doctor_name: str
    clinic_name: str
    entries: list[Entry]
    license_number: str | None = None

    @property
    def signature(self) -> Entry:
        return self.entries[0]

    @property
    def radiology(self) -> bool:
        return self.console == "radiologist"

    @property
    def loinc(self) -> tuple[str, str]:
        return IMAGING_REPORT if self.radiology else CONSULT_NOTE

    @property
    def document_title(self) -> str:
        return self.title or ("Radiology report" if self.radiology else "Consultation note")


def _urn(note: SignedNote, role: str) -> str:
    return f"urn:uuid:{uuid.uuid5(_NS, f'{note.consultation_id}:{role}')}"


def _instant(at: datetime) -> str:
    return at.isoformat(timespec="seconds")


def _type(note: SignedNote) -> dict[str, Any]:
    code, display = note.loinc
    return {"coding": [{"system": LOINC, "code": code, "display": display}], "text": display}


def note_text(note: SignedNote) -> str:
    """The signed note and its addenda as one plain text, as attached to the DocumentReference."""
    parts = [note.signature.text.strip()]
    for entry in note.entries[1:]:
        parts.append(
            f"Addendum {entry.number - 1} ({entry.author_name}, {_instant(entry.at)}):\n{entry.text.strip()}"
        )
    return "\n\n".join(parts)


def _div(text: str) -> str:
    paragraphs = "".join(
        f"<p>{html.escape(p).replace(chr(10), '<br/>')}</p>" for p in text.split("\n\n") if p.strip()
    )
    return f'<div xmlns="http://www.w3.org/1999/xhtml">{paragraphs or "<p/>"}</div>'


def _patient(note: SignedNote) -> dict[str, Any] | None:
    ref = note.patient or {}
    if not ref:
        return None
    patient: dict[str, Any] = {"resourceType": "Patient"}
    if ref.get("recordNumber"):
        patient["identifier"] = [{"system": PATIENT_ID_SYSTEM, "value": ref["recordNumber"]}]
    if ref.get("name"):
        patient["name"] = [{"text": ref["name"]}]
    if ref.get("sex") in ("female", "male", "other", "unknown"):
        patient["gender"] = ref["sex"]
    if ref.get("age") is not None:
        patient["text"] = {"status": "generated", "div": _div(f"Age {ref['age']} at the consultation")}
    return patient


def _practitioner(note: SignedNote) -> dict[str, Any]:
    practitioner: dict[str, Any] = {"resourceType": "Practitioner", "name": [{"text": note.doctor_name}]}
    if note.license_number:
        practitioner["identifier"] = [{"system": LICENSE_SYSTEM, "value": note.license_number}]
    return practitioner


def document_reference(note: SignedNote) -> dict[str, Any]:
    """The DocumentReference whose attachment is the signed note (with its addenda)."""
    body = note_text(note).encode()
    signed = note.signature
    resource: dict[str, Any] = {
        "resourceType": "DocumentReference",
        "identifier": [{"system": NOTE_HASH_SYSTEM, "value": signed.sha256}],
        "status": "current",
        "docStatus": "amended" if len(note.entries) > 1 else "final",
        "type": _type(note),
        "date": _instant(signed.at),
        "author": [{"reference": _urn(note, "practitioner"), "display": note.doctor_name}],
        "authenticator": {"reference": _urn(note, "practitioner"), "display": signed.author_name},
        "custodian": {"reference": _urn(note, "organization"), "display": note.clinic_name},
        "description": note.document_title,
        "content": [
            {
                "attachment": {
                    "contentType": "text/plain; charset=utf-8",
                    "data": base64.b64encode(body).decode(),
                    "size": len(body),
                    # FHIR's attachment hash is the base64 of the SHA-1 of the data.
                    "hash": base64.b64encode(hashlib.sha1(body, usedforsecurity=False).digest()).decode(),
                    "title": note.document_title,
                    "creation": _instant(signed.at),
                }
            }
        ],
        "context": {"period": {"start": _instant(note.started_at)}},
    }
    if note.patient:
        resource["subject"] = {"reference": _urn(note, "patient")}
    return DocumentReference.model_validate(resource).model_dump(
        mode="json", by_alias=True, exclude_none=True
    )


def document_bundle(note: SignedNote) -> dict[str, Any]:
    """The FHIR document: Composition first, then what it references."""
    signed = note.signature
    practitioner = {"reference": _urn(note, "practitioner"), "display": note.doctor_name}
    sections: list[dict[str, Any]] = [
        {"title": note.document_title, "text": {"status": "generated", "div": _div(signed.text)}}
    ]
    for entry in note.entries[1:]:
        sections.append(
            {
                "title": f"Addendum {entry.number - 1} — {entry.author_name}, {_instant(entry.at)}",
                "text": {"status": "generated", "div": _div(entry.text)},
            }
        )
    sections.append({"title": "AI assistance", "text": {"status": "generated", "div": _div(AI_STATEMENT)}})
    sections.append(
        {
            "title": "Signed note",
            "entry": [{"reference": _urn(note, "document-reference")}],
            "text": {"status": "generated", "div": _div(f"SHA-256 {signed.sha256}")},
        }
    )
    composition: dict[str, Any] = {
        "resourceType": "Composition",
        "identifier": {"system": NOTE_HASH_SYSTEM, "value": signed.sha256},
        "status": "amended" if len(note.entries) > 1 else "final",
        "type": _type(note),
        "date": _instant(note.entries[-1].at),
        "author": [practitioner],
        "title": note.document_title,
        "attester": [{"mode": "legal", "time": _instant(signed.at), "party": practitioner}],
        "custodian": {"reference": _urn(note, "organization"), "display": note.clinic_name},
        "section": sections,
    }
    patient = _patient(note)
    if patient is not None:
        composition["subject"] = {"reference": _urn(note, "patient")}
    entries = [
        {"fullUrl": _urn(note, "composition"), "resource": composition},
        {"fullUrl": _urn(note, "practitioner"), "resource": _practitioner(note)},
        {
            "fullUrl": _urn(note, "organization"),
            "resource": {"resourceType": "Organization", "name": note.clinic_name},
        },
        {"fullUrl": _urn(note, "document-reference"), "resource": document_reference(note)},
    ]
    if patient is not None:
        entries.insert(1, {"fullUrl": _urn(note, "patient"), "resource": patient})
    bundle = {
        "resourceType": "Bundle",
        "identifier": {"system": "urn:ietf:rfc:3986", "value": _urn(note, f"bundle:{len(note.entries)}")},
        "type": "document",
        "timestamp": _instant(note.entries[-1].at),
        "entry": entries,
    }
    return Bundle.model_validate(bundle).model_dump(mode="json", by_alias=True, exclude_none=True)


# ------------------------------------------------------------------ PDF


class _NotePdf(FPDF):
    def __init__(self, note: SignedNote) -> None:
        super().__init__(format="A4")
        self.note = note
        self.unicode = (_FONT_DIR / "DejaVuSans.ttf").exists() and (
            _FONT_DIR / "DejaVuSans-Bold.ttf"
        ).exists()
        if self.unicode:
            self.add_font("body", "", str(_FONT_DIR / "DejaVuSans.ttf"))
            self.add_font("body", "B", str(_FONT_DIR / "DejaVuSans-Bold.ttf"))
            self.family = "body"
        else:  # no Unicode font installed: the core font, characters outside Latin-1 replaced
            self.family = "helvetica"
        self.set_title(note.document_title)
        self.set_author(note.doctor_name)
        self.set_creator("Cara")
        # The document's own time, not the download's: every download gives the same bytes.
        self.set_creation_date(note.signature.at)
        self.set_auto_page_break(auto=True, margin=18)

    def t(self, text: str) -> str:
        return text if self.unicode else text.encode("latin-1", "replace").decode("latin-1")

    def footer(self) -> None:
        self.set_y(-14)
        self.set_font(self.family, "", 8)
        self.set_text_color(90)
        self.cell(
            0,
            5,
            self.t(f"{self.note.clinic_name} · {self.note.document_title} · page {self.page_no()}"),
            align="C",
        )

    def heading(self, text: str, size: int = 11) -> None:
        self.set_font(self.family, "B", size)
        self.set_text_color(0)
        self.multi_cell(0, 6, self.t(text), new_x="LMARGIN", new_y="NEXT")

    def body(self, text: str, size: int = 10) -> None:
        self.set_font(self.family, "", size)
        self.set_text_color(0)
        self.multi_cell(0, 5, self.t(text), new_x="LMARGIN", new_y="NEXT")
        self.ln(2)


def pdf(note: SignedNote) -> bytes:
    """The signed note on paper: clinic, doctor, date, the note, addenda, the AI-assistance statement."""
    signed = note.signature
    doc = _NotePdf(note)
    doc.add_page()
    doc.heading(note.clinic_name, 14)
    doc.heading(note.document_title, 12)
    ref = note.patient or {}
    patient = ", ".join(
        str(v)
        for v in (
            ref.get("name"),
            f"record {ref['recordNumber']}" if ref.get("recordNumber") else None,
            f"age {ref['age']}" if ref.get("age") is not None else None,
            ref.get("sex"),
        )
        if v
    )
    lines = [
        f"Doctor: {note.doctor_name}" + (f", licence {note.license_number}" if note.license_number else ""),
        f"Consultation: {note.started_at.strftime('%Y-%m-%d %H:%M')} UTC",
        f"Signed: {signed.at.strftime('%Y-%m-%d %H:%M')} UTC by {signed.author_name}",
    ]
    if patient:
        lines.insert(0, f"Patient: {patient}")
    doc.body("\n".join(lines), 9)
    doc.heading("Note")
    doc.body(signed.text)
    for entry in note.entries[1:]:
        doc.heading(
            f"Addendum {entry.number - 1} — {entry.author_name}, {entry.at.strftime('%Y-%m-%d %H:%M')} UTC"
        )
        doc.body(entry.text)
    doc.heading("AI assistance", 9)
    doc.body(AI_STATEMENT, 9)
    doc.body(f"Content hash (SHA-256): {signed.sha256}", 7)
    return bytes(doc.output())
