"""Certificate files: checked, stored in the doctor's tenant schema, served to those allowed.

The reference product only logged the chosen file; here it is kept. A file is
accepted by what its bytes are (PDF, PNG or JPEG signatures), not by the name
or type the browser claims, and is served back with that type, as an
attachment, never sniffed. Who may read it: the doctor who uploaded it, and
the hospital that doctor belongs to. The session of either is bound to the
tenant holding the file; another tenant's file id is simply not found.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
import uuid
from datetime import timedelta

from sqlalchemy.orm import Session

from cara.audit import service as audit
from cara.auth.principal import Principal
from cara.kit.errors import Conflict, NotFound, PayloadTooLarge, ValidationFailed
from cara.kit.validation import BIDI_CONTROLS
from cara.models import CertificateFile
from cara.models.base import utcnow
from cara.profiles import repository

CERTIFICATE_UPLOAD_PATH = "/api/auth/doctor/certificates"
MAX_CERTIFICATE_BYTES = 5 * 1024 * 1024
# Files a doctor may hold, saved on the profile or uploaded and not yet saved.
MAX_FILES_PER_DOCTOR = 30
ABANDONED_AFTER = timedelta(hours=1)
FILE_NOT_FOUND = "Certificate file not found."
WRONG_TYPE = "Only PDF, PNG or JPEG files can be uploaded."
TOO_LARGE = "The file is larger than 5 MB."

_SIGNATURES = (
    (b"%PDF-", "application/pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
)


def sniff(content: bytes) -> str | None:
    for signature, content_type in _SIGNATURES:
        if content.startswith(signature):
            return content_type
    return None


def safe_file_name(raw: str | None, content_type: str) -> str:
    """A display name without paths, control characters or quotes; an extension that matches."""
    name = unicodedata.normalize("NFC", (raw or "").replace("\\", "/").rsplit("/", 1)[-1])
    name = re.sub(r'[\x00-\x1f\x7f"<>|:*?]', "", name)
    name = BIDI_CONTROLS.sub("", name).strip().strip(".") or "certificate"
    stem = name.rsplit(".", 1)[0] if "." in name else name
    extension = {"application/pdf": "pdf", "image/png": "png", "image/jpeg": "jpg"}[content_type]
    return f"{stem[:200]}.{extension}"


def store(session: Session, principal: Principal, raw_name: str | None, content: bytes) -> CertificateFile:
    if len(content) > MAX_CERTIFICATE_BYTES:
        raise PayloadTooLarge(TOO_LARGE, fields={"file": TOO_LARGE})
    if not content:
        raise ValidationFailed({"file": "The file is empty."})
    content_type = sniff(content)
    if content_type is None:
        raise ValidationFailed({"file": WRONG_TYPE})
    if repository.files_held(session, principal.id) >= MAX_FILES_PER_DOCTOR:
        # Uploads of edits that were cancelled are only removed by the next save: make room
        # from those first (older than an hour, so not the ones of the edit going on now).
        _drop_abandoned(session, principal.id)
    if repository.files_held(session, principal.id) >= MAX_FILES_PER_DOCTOR:
        raise Conflict(
            f"You can keep at most {MAX_FILES_PER_DOCTOR} certificate files. Remove a certification first.",
            fields={"file": "Too many files"},
        )
    record = CertificateFile(
        account_id=principal.id,
        file_name=safe_file_name(raw_name, content_type),
        content_type=content_type,
        size_bytes=len(content),
        sha256=hashlib.sha256(content).hexdigest(),
        content=content,
    )
    repository.add_file(session, record)
    audit.record_tenant(
        session,
        action="certificate.uploaded",
        actor_id=principal.id,
        target_type="certificate_file",
        target_id=record.id,
        detail={"size": record.size_bytes, "contentType": content_type},
    )
    return record


def _drop_abandoned(session: Session, account_id: uuid.UUID) -> None:
    profile = repository.doctor_profile(session, account_id)
    referenced = {
        uuid.UUID(str(c["fileId"]))
        for c in (profile.certifications if profile else [])
        if isinstance(c, dict) and c.get("fileId")
    }
    repository.delete_files(session, account_id, keep=referenced, created_before=utcnow() - ABANDONED_AFTER)


def owned_files(
    session: Session, account_id: uuid.UUID, ids: set[uuid.UUID]
) -> dict[uuid.UUID, CertificateFile]:
    """Which of `ids` are files of this account (metadata only, without the bytes)."""
    return repository.file_metadata(session, account_id, ids)


def remove_unreferenced(session: Session, account_id: uuid.UUID, keep: set[uuid.UUID]) -> int:
    """Delete the account's files that no saved certification points at."""
    return repository.delete_files(session, account_id, keep=keep)


def fetch(session: Session, principal: Principal, file_id: str) -> CertificateFile:
    """The file, if the caller is its doctor or that doctor's hospital; else 404 (never 403,
    which would confirm that the id exists)."""
    if principal.tenant_schema is None:  # files live in tenant schemas only
        raise NotFound(FILE_NOT_FOUND)
    try:
        key = uuid.UUID(file_id)
    except ValueError as exc:
        raise NotFound(FILE_NOT_FOUND) from exc
    found = repository.file_with_hospital(session, key)
    if found is None:
        raise NotFound(FILE_NOT_FOUND)
    record, doctors_hospital = found
    own_hospital = principal.role == "hospital" and principal.hospital_id is not None
    allowed = record.account_id == principal.id or (
        own_hospital and doctors_hospital == principal.hospital_id
    )
    if not allowed:
        raise NotFound(FILE_NOT_FOUND)
    return record
