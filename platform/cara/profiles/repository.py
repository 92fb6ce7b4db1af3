"""The queries of the profiles domain: a doctor's profile row and their certificate files."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from cara.models import Account, CertificateFile, DoctorProfile


def doctor_profile(session: Session, account_id: uuid.UUID) -> DoctorProfile | None:
    return session.scalar(select(DoctorProfile).where(DoctorProfile.account_id == account_id))


def add_file(session: Session, record: CertificateFile) -> CertificateFile:
    session.add(record)
    session.flush()
    return record


def files_held(session: Session, account_id: uuid.UUID) -> int:
    count = session.scalar(
        select(func.count()).select_from(CertificateFile).where(CertificateFile.account_id == account_id)
    )
    return int(count or 0)


def delete_files(
    session: Session,
    account_id: uuid.UUID,
    *,
    keep: set[uuid.UUID] | None = None,
    created_before: datetime | None = None,
) -> int:
    """Delete the account's files except those in `keep` (and, if given, only older ones)."""
    query = delete(CertificateFile).where(CertificateFile.account_id == account_id)
    if created_before is not None:
        query = query.where(CertificateFile.created_at < created_before)
    if keep:
        query = query.where(CertificateFile.id.not_in(keep))
    result = session.execute(query)
    return int(getattr(result, "rowcount", 0) or 0)


def file_metadata(
    session: Session, account_id: uuid.UUID, ids: set[uuid.UUID]
) -> dict[uuid.UUID, CertificateFile]:
    """Which of `ids` are files of this account (metadata only, without the bytes)."""
    if not ids:
        return {}
    rows = session.execute(
        select(
            CertificateFile.id,
            CertificateFile.file_name,
            CertificateFile.content_type,
            CertificateFile.size_bytes,
        ).where(CertificateFile.account_id == account_id, CertificateFile.id.in_(ids))
    ).all()
    return {
        row.id: CertificateFile(
            id=row.id, file_name=row.file_name, content_type=row.content_type, size_bytes=row.size_bytes
        )
        for row in rows
    }


def file_with_hospital(
    session: Session, file_id: uuid.UUID
) -> tuple[CertificateFile, uuid.UUID | None] | None:
    """A file and the hospital id of the doctor who holds it."""
    row = session.execute(
        select(CertificateFile, Account.hospital_id)
        .join(Account, Account.id == CertificateFile.account_id)
        .where(CertificateFile.id == file_id)
    ).first()
    return None if row is None else (row[0], row[1])
