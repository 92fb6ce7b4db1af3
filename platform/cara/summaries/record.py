"""Drafts of a stored consultation: the transcript goes to the model with its line ids, and the
model answers in JSON so that every sentence can point at the lines it came from (evidence).

A radiology report keeps its structured sections (indication, technique, findings, numbered
impression, RADS category and recommendation). An answer that is not the JSON asked for is kept
as plain text without evidence. The patient reference is never part of the prompt.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cara.consultations.service import (
    RADIOLOGY_CONSOLE,
    NoteTemplate,
    SourceLine,
    lookup_code,
    render_radiology,
)

SUMMARY_PROMPT_VERSION = "record-summary-v1"
NOTE_PROMPT_VERSION = "record-note-v1"
REPORT_PROMPT_VERSION = "record-report-v1"
RADIOLOGY_PROMPT_VERSION = "record-radiology-v1"
SPEAKERS = {"user": "Clinician", "assistant": "Cara", "tool": "Dose-constraint tool", "patient": "Patient"}

_SENTENCE = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "lineIds": {"type": "array", "items": {"type": "integer"}},
    },
    "required": ["text"],
}
PROSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sections": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "heading": {"type": "string"},
                    "sentences": {"type": "array", "items": _SENTENCE},
                },
                "required": ["heading", "sentences"],
            },
        }
    },
    "required": ["sections"],
}
RADIOLOGY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "indication": {"type": "array", "items": _SENTENCE},
        "technique": {"type": "array", "items": _SENTENCE},
        "findings": {"type": "array", "items": _SENTENCE},
        "impression": {"type": "array", "items": _SENTENCE},
        "radsCategory": {
            "type": "object",
            "properties": {
                "system": {"type": "string"},
                "category": {"type": "string"},
                "lineIds": {"type": "array", "items": {"type": "integer"}},
            },
        },
        "recommendation": {"type": "array", "items": _SENTENCE},
    },
    "required": ["findings", "impression"],
}
CODES_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "code": {"type": "string"},
            "lineIds": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["code", "lineIds"],
    },
}
CODES_REQUEST = (
    " In `codes`, propose the WHO ICD-10 codes (2019 edition, not ICD-10-CM) of the diagnoses and "
    "problems the clinician states, each with the ids of the transcript lines that support it; "
    "propose none that the transcript does not support."
)


@dataclass(frozen=True)
class RecordDraft:
    text: str
    sections: dict[str, Any] | None
    evidence: list[dict[str, Any]]
    # [{"code", "title", "lineIds", "sentences"}]: WHO ICD-10 codes only, each with its evidence.
    codes: tuple[dict[str, Any], ...] = ()


def is_radiology(console: str, kind: str, template: NoteTemplate | None = None) -> bool:
    if kind == "note":
        return template is not None and template.radiology
    return console == RADIOLOGY_CONSOLE and kind == "report"


def prompt_version(console: str, kind: str, template: NoteTemplate | None = None) -> str:
    if kind == "note":
        return NOTE_PROMPT_VERSION
    if is_radiology(console, kind):
        return RADIOLOGY_PROMPT_VERSION
    return REPORT_PROMPT_VERSION if kind == "report" else SUMMARY_PROMPT_VERSION


def transcript_with_ids(lines: Sequence[SourceLine]) -> str:
    return "\n".join(
        f"[{line.id}] {SPEAKERS.get(line.speaker, line.speaker)}: {line.text.strip()}"
        for line in lines
        if line.text.strip()
    )


_CITE = (
    "Each line of the transcript starts with its id in square brackets. For every sentence you "
    "write, give the ids of the transcript lines it is based on in `lineIds` (an empty list when "
    "it rests on no line). Answer with JSON only."
)


def note_request(template: NoteTemplate) -> str:
    """The note in `template`: its sections in order, each with its instruction."""
    if template.radiology:
        return (
            f"Write the radiology report of {template.modality} from the preceding conversation, as "
            "the radiologist would sign it. Sections: "
            + "; ".join(f"{s.key} ({s.instruction})" for s in template.sections)
            + "; radsCategory only if the transcript supports one. Leave a section empty when the "
            "transcript says nothing for it." + CODES_REQUEST + " " + _CITE
        )
    return (
        f"Write the clinician's note of this visit in the template '{template.title}'. Put each "
        "sentence under its section: "
        + "; ".join(f"{s.key} = {s.heading}: {s.instruction}" for s in template.sections)
        + ". Leave a section empty when the transcript says nothing for it."
        + CODES_REQUEST
        + " "
        + _CITE
    )


def note_schema(template: NoteTemplate) -> dict[str, Any]:
    if template.radiology:
        schema = copy.deepcopy(RADIOLOGY_SCHEMA)
    else:
        schema = {
            "type": "object",
            "properties": {s.key: {"type": "array", "items": _SENTENCE} for s in template.sections},
            "required": [s.key for s in template.sections],
        }
    schema["properties"]["codes"] = CODES_SCHEMA
    return schema


def request_text(console: str, kind: str, focus: str | None, template: NoteTemplate | None = None) -> str:
    cite = _CITE
    if kind == "note":
        assert template is not None
        return note_request(template)
    if is_radiology(console, kind):
        return (
            "Generate a structured radiology report draft from the preceding conversation"
            + (f", focusing on: {focus}" if focus else "")
            + ". Sections: indication, technique, findings (by organ), impression (numbered, most "
            "important first), radsCategory (the reporting system, e.g. BI-RADS, Lung-RADS, LI-RADS, "
            "PI-RADS or TI-RADS, and its category, only if the transcript supports one) and "
            "recommendation. " + cite
        )
    if kind == "report":
        ask = "Generate a report draft based on the preceding conversation" + (
            f" focusing on: {focus}." if focus else "."
        )
    else:
        ask = "Generate a concise summary of the preceding conversation."
    return ask + " Write short headed sections. " + cite


def response_schema(console: str, kind: str, template: NoteTemplate | None = None) -> dict[str, Any]:
    if kind == "note":
        assert template is not None
        return note_schema(template)
    return RADIOLOGY_SCHEMA if is_radiology(console, kind) else PROSE_SCHEMA


def _sentences(value: Any, known: set[int], evidence: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, dict):
            continue
        text = str(item.get("text") or "").strip()
        if not text:
            continue
        ids = [i for i in item.get("lineIds") or [] if isinstance(i, int) and i in known]
        out.append(text)
        # Every sentence is kept with its lines, none included: one resting on no line of this
        # consultation is marked to the doctor before signing.
        evidence.append({"sentence": text, "lineIds": sorted(set(ids))})
    return out


def _strip_fence(answer: str) -> str:
    match = re.fullmatch(r"\s*```(?:json)?\s*(.*?)\s*```\s*", answer, flags=re.S)
    return match.group(1) if match else answer


def _codes(value: Any, known: set[int], evidence: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The proposed codes that are WHO ICD-10 codes and rest on lines of this consultation; an
    unknown, retired or unsupported code is dropped, never shown. Each is linked to the draft's
    sentences that cite the same lines."""
    kept: dict[str, dict[str, Any]] = {}
    for item in value if isinstance(value, list) else []:
        if not isinstance(item, dict):
            continue
        code = lookup_code(item.get("code"))
        ids = sorted({i for i in item.get("lineIds") or [] if isinstance(i, int) and i in known})
        if code is None or not ids or code.code in kept:
            continue
        sentences = [e["sentence"] for e in evidence if set(e["lineIds"]) & set(ids)]
        kept[code.code] = {"code": code.code, "title": code.title, "lineIds": ids, "sentences": sentences}
    return tuple(kept.values())


def parse(
    answer: str, console: str, kind: str, lines: Sequence[SourceLine], template: NoteTemplate | None = None
) -> RecordDraft:
    """The draft from the model's answer; line ids that are not this consultation's are dropped."""
    known = {line.id for line in lines}
    try:
        data = json.loads(_strip_fence(answer))
    except ValueError:
        data = None
    if not isinstance(data, dict):
        text = answer.strip()
        if not text:
            raise ValueError("empty answer")
        return RecordDraft(text=text, sections=None, evidence=[])
    evidence: list[dict[str, Any]] = []
    if kind == "note" and template is not None:
        if template.radiology:
            draft = _radiology(data, known, evidence)
        else:
            draft = _templated(data, template, known, evidence)
        return RecordDraft(draft.text, draft.sections, evidence, _codes(data.get("codes"), known, evidence))
    if is_radiology(console, kind):
        return _radiology(data, known, evidence)
    blocks: list[str] = []
    for section in data.get("sections") or []:
        if not isinstance(section, dict):
            continue
        heading = str(section.get("heading") or "").strip()
        body = " ".join(_sentences(section.get("sentences"), known, evidence))
        if body:
            blocks.append(f"{heading}\n{body}" if heading else body)
    text = "\n\n".join(blocks).strip()
    if not text:
        raise ValueError("empty answer")
    return RecordDraft(text=text, sections=None, evidence=evidence)


def _templated(
    data: dict[str, Any], template: NoteTemplate, known: set[int], evidence: list[dict[str, Any]]
) -> RecordDraft:
    """Headed prose in the template's order; a section the answer left empty is left out."""
    blocks: list[str] = []
    for section in template.sections:
        body = " ".join(_sentences(data.get(section.key), known, evidence))
        if body:
            blocks.append(f"{section.heading}\n{body}")
    text = "\n\n".join(blocks).strip()
    if not text:
        raise ValueError("empty answer")
    return RecordDraft(text=text, sections=None, evidence=evidence)


def _radiology(data: dict[str, Any], known: set[int], evidence: list[dict[str, Any]]) -> RecordDraft:
    sections: dict[str, Any] = {}
    for key in ("indication", "technique", "findings", "recommendation"):
        sections[key] = " ".join(_sentences(data.get(key), known, evidence))
    sections["impression"] = _sentences(data.get("impression"), known, evidence)
    rads = data.get("radsCategory")
    rads_text = ""
    if isinstance(rads, dict):
        rads_text = " ".join(
            str(rads.get(k) or "").strip() for k in ("system", "category") if str(rads.get(k) or "").strip()
        )
        ids = [i for i in rads.get("lineIds") or [] if isinstance(i, int) and i in known]
        if rads_text and ids:
            evidence.append({"sentence": rads_text, "lineIds": sorted(set(ids))})
    elif isinstance(rads, str):
        rads_text = rads.strip()
    sections["radsCategory"] = rads_text
    if not sections["findings"] and not sections["impression"]:
        raise ValueError("empty answer")
    return RecordDraft(text=render_radiology(sections), sections=sections, evidence=evidence)
