"""A radiology report's structured sections and their text, in the order a radiologist reads it."""

from __future__ import annotations

from typing import Any

RADIOLOGY_SECTIONS = ("indication", "technique", "findings", "impression", "radsCategory", "recommendation")
HEADINGS = {
    "indication": "Indication",
    "technique": "Technique",
    "findings": "Findings",
    "impression": "Impression",
    "radsCategory": "RADS category",
    "recommendation": "Recommendation",
}


def render_radiology(sections: dict[str, Any]) -> str:
    """The report as text: headed sections, the impression numbered."""
    blocks = []
    for key in RADIOLOGY_SECTIONS:
        value = sections.get(key)
        if key == "impression":
            items = [str(v).strip() for v in value or [] if str(v).strip()]
            body = "\n".join(f"{n}. {item}" for n, item in enumerate(items, 1))
        else:
            body = str(value or "").strip()
        if body:
            blocks.append(f"{HEADINGS[key]}\n{body}")
    return "\n\n".join(blocks)
