"""Exports of a signed note: a FHIR R4 document (R4B models of `fhir.resources`) and a printable PDF.

The FHIR document is a `Bundle` of type document whose first entry is the `Composition`; it
carries the `DocumentReference` (LOINC 11488-4 consult note, or 18748-4 diagnostic imaging report
for radiology) whose attachment is the signed note, and the patient (the consultation's patient
reference as the subject), the doctor and the clinic. Entry ids are derived from the consultation,
and every time in either format is one of the note's own (the PDF's creation date is the signing
time), so exporting twice gives the same bytes.

The DocumentReference exported alone carries its patient, author and clinic as contained
resources, so it loses nothing without the Bundle. Each version (the signature, then each
addendum) has its own master identifier, the SHA-256 of its last signed entry, and replaces the
one before it (`relatesTo`). Every signed entry's canonical JSON is attached as it was hashed,
so a recipient recomputes the note's identifier from the exported bytes (docs/exports.md).

The PDF is the clinic's letter: letterhead (facility, address, contact), the doctor's name and
licence number, a signature line, times in the signer's time zone with the zone named, and
right-to-left text (Arabic) shaped and set right-aligned.
"""

from __future__ import annotations

import base64
import hashlib
import html
import importlib.util
import unicodedata
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

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
LOINC_TYPES = {
    "11488-4": "Consult note",
    "11506-3": "Progress note",
    "34117-2": "History and physical note",
    "18748-4": "Diagnostic imaging study",
}
ICD10_SYSTEM = "http://hl7.org/fhir/sid/icd-10"
PATIENT_ID_SYSTEM = "urn:cara:patient-reference"
NOTE_HASH_SYSTEM = "urn:cara:note-sha256"
# A version of the note: the SHA-256 of its last signed entry (the signature, or an addendum).
NOTE_VERSION_SYSTEM = "urn:cara:note-version-sha256"
SIGNED_ENTRY_FORMAT = {"system": "urn:cara:format", "code": "signed-entry-canonical-json"}
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
    # The JSON the SHA-256 was computed over (None where it can no longer be rebuilt).
    canonical: str | None = None


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
    clinic_address: str | None = None
    clinic_contact: str | None = None
    time_zone: str | None = None
    # Accepted WHO ICD-10 codes [{"code", "title"}] and the template {"id", "version", "title",
    # "loinc"} fixed at signing.
    codes: tuple[dict[str, Any], ...] = ()
    template: dict[str, Any] | None = None

    @property
    def signature(self) -> Entry:
        return self.entries[0]

    @property
    def radiology(self) -> bool:
        return self.console == "radiologist"

    @property
    def loinc(self) -> tuple[str, str]:
        code = (self.template or {}).get("loinc")
        if code in LOINC_TYPES:
            return code, LOINC_TYPES[code]
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


def _organization(note: SignedNote) -> dict[str, Any]:
    organization: dict[str, Any] = {"resourceType": "Organization", "name": note.clinic_name}
    if note.clinic_address:
        organization["address"] = [{"text": note.clinic_address}]
    return organization


def _patient_display(note: SignedNote) -> str | None:
    ref = note.patient or {}
    if ref.get("name"):
        return str(ref["name"])
    if ref.get("recordNumber"):
        return f"Record {ref['recordNumber']}"
    return None


def _subject(note: SignedNote, reference: str) -> dict[str, Any]:
    """The patient as a reference that also names them: the record number and a display."""
    subject: dict[str, Any] = {"reference": reference}
    ref = note.patient or {}
    if ref.get("recordNumber"):
        subject["identifier"] = {"system": PATIENT_ID_SYSTEM, "value": ref["recordNumber"]}
    display = _patient_display(note)
    if display:
        subject["display"] = display
    return subject


def _attachment(data: bytes, content_type: str, title: str, creation: datetime) -> dict[str, Any]:
    return {
        "contentType": content_type,
        "data": base64.b64encode(data).decode(),
        "size": len(data),
        # FHIR's attachment hash is the base64 of the SHA-1 of the data.
        "hash": base64.b64encode(hashlib.sha1(data, usedforsecurity=False).digest()).decode(),
        "title": title,
        "creation": _instant(creation),
    }


def document_reference(note: SignedNote, *, standalone: bool = True) -> dict[str, Any]:
    """The DocumentReference whose attachment is the signed note (with its addenda).

    Alone (`standalone`), its patient, author and clinic are contained in it; inside the
    document Bundle it refers to the Bundle's own entries instead."""
    body = note_text(note).encode()
    signed, last = note.signature, note.entries[-1]

    def ref(role: str) -> str:
        return f"#{role}" if standalone else _urn(note, role)

    content: list[dict[str, Any]] = [
        {"attachment": _attachment(body, "text/plain; charset=utf-8", note.document_title, signed.at)}
    ]
    for entry in note.entries:
        if entry.canonical is None:
            continue
        content.append(
            {
                "attachment": _attachment(
                    entry.canonical.encode(),
                    "application/json; charset=utf-8",
                    f"Signed entry {entry.number}: canonical JSON, SHA-256 {entry.sha256}",
                    entry.at,
                ),
                "format": SIGNED_ENTRY_FORMAT,
            }
        )
    resource: dict[str, Any] = {
        "resourceType": "DocumentReference",
        "masterIdentifier": {"system": NOTE_VERSION_SYSTEM, "value": last.sha256},
        "identifier": [{"system": NOTE_HASH_SYSTEM, "value": signed.sha256}],
        "status": "current",
        "docStatus": "amended" if len(note.entries) > 1 else "final",
        "type": _type(note),
        "date": _instant(last.at),
        "author": [{"reference": ref("practitioner"), "display": note.doctor_name}],
        "authenticator": {"reference": ref("practitioner"), "display": signed.author_name},
        "custodian": {"reference": ref("organization"), "display": note.clinic_name},
        "description": note.document_title,
        "content": content,
        "context": {"period": {"start": _instant(note.started_at)}},
    }
    if len(note.entries) > 1:
        previous = note.entries[-2]
        resource["relatesTo"] = [
            {
                "code": "replaces",
                "target": {
                    "identifier": {"system": NOTE_VERSION_SYSTEM, "value": previous.sha256},
                    "display": "The note as signed"
                    if previous.number == 1
                    else f"Addendum {previous.number - 1}",
                },
            }
        ]
    patient = _patient(note)
    if patient is not None:
        resource["subject"] = _subject(note, ref("patient"))
    if standalone:
        contained = [
            dict(_practitioner(note), id="practitioner"),
            dict(_organization(note), id="organization"),
        ]
        if patient is not None:
            contained.insert(0, dict(patient, id="patient"))
        resource["contained"] = contained
    return DocumentReference.model_validate(resource).model_dump(
        mode="json", by_alias=True, exclude_none=True
    )


def _code_line(code: dict[str, Any]) -> str:
    return f"{code['code']} {code['title']}"


def _condition(note: SignedNote, code: dict[str, Any]) -> dict[str, Any]:
    """A diagnosis the doctor accepted and signed: a confirmed encounter diagnosis."""
    condition: dict[str, Any] = {
        "resourceType": "Condition",
        "clinicalStatus": {
            "coding": [
                {"system": "http://terminology.hl7.org/CodeSystem/condition-clinical", "code": "active"}
            ]
        },
        "verificationStatus": {
            "coding": [
                {"system": "http://terminology.hl7.org/CodeSystem/condition-ver-status", "code": "confirmed"}
            ]
        },
        "category": [
            {
                "coding": [
                    {
                        "system": "http://terminology.hl7.org/CodeSystem/condition-category",
                        "code": "encounter-diagnosis",
                    }
                ]
            }
        ],
        "code": {
            "coding": [{"system": ICD10_SYSTEM, "code": code["code"], "display": code["title"]}],
            "text": code["title"],
        },
        "recordedDate": _instant(note.signature.at),
        "recorder": {"reference": _urn(note, "practitioner"), "display": note.doctor_name},
    }
    if note.patient:
        condition["subject"] = _subject(note, _urn(note, "patient"))
    else:  # Condition.subject is required: the patient as the note shows them (no reference)
        condition["subject"] = {"display": "Patient not identified on the note"}
    return condition


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
    if note.codes:
        sections.append(
            {
                "title": "Diagnoses (ICD-10)",
                "entry": [{"reference": _urn(note, f"condition:{c['code']}")} for c in note.codes],
                "text": {"status": "generated", "div": _div("\n".join(_code_line(c) for c in note.codes))},
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
        composition["subject"] = _subject(note, _urn(note, "patient"))
    entries = [
        {"fullUrl": _urn(note, "composition"), "resource": composition},
        {"fullUrl": _urn(note, "practitioner"), "resource": _practitioner(note)},
        {"fullUrl": _urn(note, "organization"), "resource": _organization(note)},
        {
            "fullUrl": _urn(note, "document-reference"),
            "resource": document_reference(note, standalone=False),
        },
    ]
    for code in note.codes:
        entries.append(
            {"fullUrl": _urn(note, f"condition:{code['code']}"), "resource": _condition(note, code)}
        )
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

# fpdf2 shapes and orders right-to-left text only with HarfBuzz (uharfbuzz, a requirement);
# without it Arabic would print unjoined, so it is looked for rather than assumed.
_SHAPING = importlib.util.find_spec("uharfbuzz") is not None


def local_time(at: datetime, zone: str | None) -> str:
    """A time as the signer read it: their zone's wall clock, with the zone named."""
    if not zone:
        return f"{at.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
    local = at.astimezone(ZoneInfo(zone))
    offset = local.strftime("%z")
    return f"{local:%Y-%m-%d %H:%M} {local.tzname()} (UTC{offset[:3]}:{offset[3:]}, {zone})"


def _right_to_left(text: str) -> bool:
    """Whether a paragraph reads right to left: its first strong character decides (Unicode bidi)."""
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            return True
        if kind == "L":
            return False
    return False


def _needs_shaping(text: str) -> bool:
    return any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for c in text)


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
            self.t(f"{self.note.clinic_name} · {self.note.document_title} · page {self.page_no()}/{{nb}}"),
            align="C",
        )

    def write_paragraphs(self, text: str, *, size: int = 10, style: str = "", height: float = 5) -> None:
        """Each paragraph in its own direction; only text that needs it goes through HarfBuzz
        (shaping every line of a long Latin note costs seconds)."""
        self.set_font(self.family, style, size)
        self.set_text_color(0)
        for paragraph in text.split("\n"):
            shaped = self.unicode and _SHAPING and _needs_shaping(paragraph)
            self.set_text_shaping(shaped)
            align = "R" if _right_to_left(paragraph) else "L"
            self.multi_cell(0, height, self.t(paragraph) or " ", align=align, new_x="LMARGIN", new_y="NEXT")
        self.set_text_shaping(False)

    def heading(self, text: str, size: int = 11) -> None:
        self.ln(1)
        self.write_paragraphs(text, size=size, style="B", height=6)

    def body(self, text: str, size: int = 10) -> None:
        self.write_paragraphs(text, size=size)
        self.ln(2)

    def rule(self) -> None:
        self.set_draw_color(120)
        self.line(self.l_margin, self.get_y() + 1, self.w - self.r_margin, self.get_y() + 1)
        self.ln(4)

    def signature_block(self, note: SignedNote) -> None:
        signed = note.signature
        self.ln(8)
        self.set_draw_color(0)
        self.line(self.l_margin, self.get_y(), self.l_margin + 70, self.get_y())
        self.ln(2)
        self.write_paragraphs(signed.author_name, size=10, style="B")
        lines = []
        if note.license_number:
            lines.append(f"Licence number {note.license_number}")
        lines.append(f"Signed electronically on {local_time(signed.at, note.time_zone)}")
        self.write_paragraphs("\n".join(lines), size=9)
        self.ln(3)


def pdf(note: SignedNote) -> bytes:
    """The signed note on paper: letterhead, patient, doctor, the note, signature line, addenda,
    the AI-assistance statement and the content hash."""
    signed = note.signature
    zone = note.time_zone
    doc = _NotePdf(note)
    doc.add_page()
    doc.write_paragraphs(note.clinic_name, size=15, style="B", height=7)
    letterhead = "\n".join(v for v in (note.clinic_address, note.clinic_contact) if v)
    if letterhead:
        doc.write_paragraphs(letterhead, size=9, height=4.5)
    doc.rule()
    doc.heading(note.document_title, 13)
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
        f"Consultation: {local_time(note.started_at, zone)}",
        f"Signed: {local_time(signed.at, zone)} by {signed.author_name}",
    ]
    if patient:
        lines.insert(0, f"Patient: {patient}")
    doc.body("\n".join(lines), 9)
    template = note.template or {}
    doc.heading(f"Note ({template['title']})" if template.get("title") else "Note")
    doc.body(signed.text)
    if note.codes:
        doc.heading("Diagnoses (ICD-10)", 10)
        doc.body("\n".join(_code_line(c) for c in note.codes))
    doc.signature_block(note)
    for entry in note.entries[1:]:
        doc.heading(f"Addendum {entry.number - 1} — {entry.author_name}, {local_time(entry.at, zone)}")
        doc.body(entry.text)
    doc.heading("AI assistance", 9)
    doc.body(AI_STATEMENT, 9)
    doc.body(f"Content hash (SHA-256): {signed.sha256}", 7)
    return bytes(doc.output())
