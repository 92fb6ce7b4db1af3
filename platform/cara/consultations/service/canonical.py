"""The canonical form of a signed entry, and its SHA-256: the identity every export carries.

The canonical form is JSON with sorted keys, no spaces and UTF-8 text: what was signed (text,
sections), by whom (account id and name), when (UTC), in which consultation, and for a
signature since tenant revision t0009 what its document shows (`shown`). The exports attach it
as it is, so a recipient recomputes the hash from the exported bytes alone (docs/exports.md).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import UTC, datetime
from typing import Any


def canonical_content(
    consultation_id: uuid.UUID,
    number: int,
    kind: str,
    text: str,
    sections: dict[str, Any] | None,
    author_id: uuid.UUID,
    author_name: str,
    at: datetime,
    shown: dict[str, Any] | None = None,
) -> str:
    """A signed entry's canonical JSON.

    Without `shown` (addenda, and signatures made before t0009) it is exactly the form those
    entries were hashed with, so their stored hashes still verify.
    """
    content: dict[str, Any] = {
        "consultation": str(consultation_id),
        "number": number,
        "kind": kind,
        "text": text,
        "sections": sections,
        "author": str(author_id),
        "authorName": author_name,
        "at": at.astimezone(UTC).isoformat(),
    }
    if shown is not None:
        content["shown"] = shown
    return json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def content_hash(
    consultation_id: uuid.UUID,
    number: int,
    kind: str,
    text: str,
    sections: dict[str, Any] | None,
    author_id: uuid.UUID,
    author_name: str,
    at: datetime,
    shown: dict[str, Any] | None = None,
) -> str:
    """SHA-256 (hex) of the entry's canonical JSON in UTF-8."""
    canonical = canonical_content(
        consultation_id, number, kind, text, sections, author_id, author_name, at, shown
    )
    return hashlib.sha256(canonical.encode()).hexdigest()
