"""Tenant tables: one copy per tenant schema (`hospital_<id>` or `independent`).

They carry no schema here; the session's schema_translate_map supplies it.
Foreign keys go only to this tenant's own tables, never to another schema (the rule
that keeps Citus schema sharding possible); an account is referred to by its id alone
(`account_id_column`).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB, TSVECTOR, UUID
from sqlalchemy.orm import Mapped, MappedColumn, mapped_column

from cara.models.base import TenantBase, created_at, updated_at, uuid_pk

# What a column holding a `platform.accounts` id says in its `info`. There is deliberately no
# FOREIGN KEY across schemas: each would put two triggers per hospital on platform.accounts, and
# deleting one account would then cascade into (and lock) every hospital's tables. An account's
# tenant rows are deleted explicitly, in its own schema, when the account is removed
# (cara.doctors.service.remove_doctor). tenants.citus still reads the reference: the tables a
# tenant table joins with are Citus reference tables.
REFERENCES = "references"
ACCOUNT_ID = "platform.accounts.id"
# Set on the reference of a clinical record the law keeps beyond the account (a consultation:
# a signed note must outlive its signer; ../design/documents.md): removing the account leaves
# these rows, and what hangs off them, to the tenant's retention rule.
OUTLIVES_ACCOUNT = "outlives_account"


def account_id_column(*, outlives_account: bool = False, **kwargs: Any) -> MappedColumn[Any]:
    """A tenant table's reference to an account, without a database-level key (above)."""
    info = {REFERENCES: ACCOUNT_ID, OUTLIVES_ACCOUNT: outlives_account}
    return mapped_column(UUID(as_uuid=True), nullable=False, info=info, **kwargs)


def account_columns(*, removable_only: bool = False) -> list[Column[Any]]:
    """Every tenant column made by `account_id_column`, children's tables before their parents'
    (the order a removal deletes in: a child first never leaves a cascade or SET NULL to do).
    With `removable_only`, those whose rows go with the account (not the clinical record)."""
    return [
        column
        for table in reversed(TenantBase.metadata.sorted_tables)
        for column in table.columns
        if column.info.get(REFERENCES) == ACCOUNT_ID
        and not (removable_only and column.info.get(OUTLIVES_ACCOUNT))
    ]


def default_availability() -> list[dict[str, Any]]:
    """Monday to Friday 09:00-17:00 available; the weekend not (spec §3)."""
    days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    return [
        {"day": d, "startTime": "09:00", "endTime": "17:00", "isAvailable": d not in ("Saturday", "Sunday")}
        for d in days
    ]


class DoctorProfile(TenantBase):
    """A doctor's professional profile; the sign-in identity is platform.accounts."""

    __tablename__ = "doctors"

    id: Mapped[uuid.UUID] = uuid_pk()
    account_id: Mapped[uuid.UUID] = account_id_column(unique=True)
    specialty: Mapped[str] = mapped_column(String(50), nullable=False)
    license_number: Mapped[str] = mapped_column(String(100), nullable=False)
    experience: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    country: Mapped[str] = mapped_column(String(100), nullable=False, default="")
    state: Mapped[str] = mapped_column(String(100), nullable=False, default="")
    profile_picture: Mapped[str | None] = mapped_column(String(500))
    education: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, default=list)
    certifications: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, default=list)
    work_history: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, default=list)
    availability: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, default=default_availability)
    is_hospital_created: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    privacy_policy_accepted: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class TenantAuditEvent(TenantBase):
    """Append-only log of who created, changed or removed what in this tenant.

    A trigger (tenant revision t0003) refuses UPDATE and DELETE on it.
    """

    __tablename__ = "audit_events"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    actor_account_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    action: Mapped[str] = mapped_column(String(100), nullable=False)
    target_type: Mapped[str | None] = mapped_column(String(50))
    target_id: Mapped[str | None] = mapped_column(String(100))
    detail: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, default=dict)
    created_at: Mapped[datetime] = created_at()


class CertificateFile(TenantBase):
    """A certificate a doctor uploaded for their profile, stored in their tenant's schema
    (so a per-tenant backup carries it and a tenant deletion removes it).

    A profile's certification entry points at it by `fileId`; files no saved
    certification points at are removed when the profile is next saved.
    """

    __tablename__ = "certificate_files"
    __table_args__ = (Index("ix_certificate_files_account_id", "account_id"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    account_id: Mapped[uuid.UUID] = account_id_column()
    file_name: Mapped[str] = mapped_column(String(255), nullable=False)
    content_type: Mapped[str] = mapped_column(String(100), nullable=False)
    size_bytes: Mapped[int] = mapped_column(Integer, nullable=False)
    sha256: Mapped[str] = mapped_column(String(64), nullable=False)
    content: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    created_at: Mapped[datetime] = created_at()


# "patient": anyone but the clinician in a consultation recorded offline (there Cara is not in the room).
SPEAKERS = ("user", "assistant", "tool", "patient")
# Where a consultation's transcript came from: the live relay, or a recording processed later.
CONSULTATION_SOURCES = ("live", "recorded")
CONSULTATION_STATES = ("in_progress", "draft", "signed")
CONSENT_BASES = ("doctor_confirmed", "tenant_policy")
DRAFT_KINDS = ("summary", "report", "note")
NOTE_ENTRY_KINDS = ("signature", "addendum")


class Consultation(TenantBase):
    """One live session of a doctor with the assistant; its transcript lines hang off it.

    In the shared `independent` schema several doctors' consultations sit side
    by side: every read is filtered by `doctor_account_id`.
    """

    __tablename__ = "consultations"
    # Named explicitly: a conventional name would embed the schema when tables are copied per tenant.
    __table_args__ = (
        # The doctor's list, newest first, paged by (started_at, id); also every doctor-filtered read.
        Index("ix_consultations_doctor_started", "doctor_account_id", "started_at", "id"),
        CheckConstraint(f"state IN {CONSULTATION_STATES}", name="state"),
        CheckConstraint(f"consent_basis IN {CONSENT_BASES}", name="consent_basis"),
        CheckConstraint(f"source IN {CONSULTATION_SOURCES}", name="source"),
        # Text search over title, patient reference and transcript (cara.consultations).
        Index("ix_consultations_search", "search", postgresql_using="gin"),
        # The consultations whose search document is behind: refreshed before a search.
        Index(
            "ix_consultations_search_stale",
            "doctor_account_id",
            postgresql_where=text(
                "search_indexed_at IS NULL OR ended_at IS NULL OR ended_at > search_indexed_at"
            ),
        ),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    # Kept when the doctor is removed: the record is the tenant's, not the account's.
    doctor_account_id: Mapped[uuid.UUID] = account_id_column(outlives_account=True)
    # The console it ran in (radiologist, cardiologist, ..., generic) and the provider model.
    console: Mapped[str] = mapped_column(String(50), nullable=False)
    model: Mapped[str] = mapped_column(String(200), nullable=False)
    started_at: Mapped[datetime] = created_at()
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Upstream connections after the first (goAway, drops): an operational fact, not clinical data.
    reconnects: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    # The consultation record (cara.consultations): consent before anything is relayed, who it was
    # about (never sent to the AI model), a one-line title and where the note stands.
    consent_basis: Mapped[str | None] = mapped_column(String(32))
    consent_by_account_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    consent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    patient_reference: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    title: Mapped[str | None] = mapped_column(String(200))
    state: Mapped[str] = mapped_column(String(16), nullable=False, default="in_progress")
    signed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The words of title, patient reference and transcript, and when they were last gathered.
    # Deferred: a consultation's document can be large, and only the search's WHERE reads it.
    search: Mapped[str | None] = mapped_column(TSVECTOR, deferred=True)
    search_indexed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    source: Mapped[str] = mapped_column(String(16), nullable=False, default="live", server_default="live")
    # Which engine made a recorded consultation's transcript ("local:faster-whisper/tiny.en", or the
    # provider's model); null for a live one (tenant revision t0013).
    transcript_engine: Mapped[str | None] = mapped_column(String(100))


class TranscriptLine(TenantBase):
    """One utterance (or tool result) of a consultation, stored as it completes."""

    __tablename__ = "transcript_lines"
    __table_args__ = (
        CheckConstraint(f"speaker IN {SPEAKERS}", name="speaker"),
        UniqueConstraint("consultation_id", "seq", name="uq_transcript_lines_consultation_seq"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    consultation_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("consultations.id", ondelete="CASCADE"), nullable=False
    )
    # Order within the consultation (0, 1, 2, ...), assigned by the relay.
    seq: Mapped[int] = mapped_column(Integer, nullable=False)
    speaker: Mapped[str] = mapped_column(String(16), nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)
    # When the line began (its first transcription fragment).
    spoken_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    # A recogniser's words: [{"w": text, "s": start, "e": end (seconds from the recording's
    # start), "p": confidence 0-1}], or null (t0013).
    words: Mapped[list[Any] | None] = mapped_column(JSONB)
    created_at: Mapped[datetime] = created_at()


# ---------------------------------------------------------------- the consultation record


class ConsultationDraft(TenantBase):
    """A summary or report draft generated from a consultation's stored transcript."""

    __tablename__ = "consultation_drafts"
    __table_args__ = (
        CheckConstraint(f"kind IN {DRAFT_KINDS}", name="kind"),
        Index("ix_consultation_drafts_consultation_id", "consultation_id"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    consultation_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("consultations.id", ondelete="CASCADE"), nullable=False
    )
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    focus: Mapped[str | None] = mapped_column(String(200))
    text: Mapped[str] = mapped_column(Text, nullable=False)
    # Radiology report sections (indication, technique, findings, impression, RADS), when structured.
    sections: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # [{"sentence": str, "lineIds": [int, ...]}]: which transcript lines each sentence came from.
    evidence: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, default=list)
    # A note draft's template (`cara.summaries.templates`) and the version it was written in.
    template_id: Mapped[str | None] = mapped_column(String(64))
    template_version: Mapped[int | None] = mapped_column(Integer)
    # [{"code", "title", "lineIds"}]: ICD-10 codes proposed, each checked against the WHO list.
    codes: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, default=list, server_default="[]")
    model: Mapped[str] = mapped_column(String(200), nullable=False)
    prompt_version: Mapped[str] = mapped_column(String(50), nullable=False)
    created_at: Mapped[datetime] = created_at()


class ConsultationNote(TenantBase):
    """The clinician's note of a consultation: edited with optimistic concurrency (`version`),
    then signed. A signed note's text never changes; later additions are addenda."""

    __tablename__ = "consultation_notes"

    id: Mapped[uuid.UUID] = uuid_pk()
    consultation_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("consultations.id", ondelete="CASCADE"), unique=True, nullable=False
    )
    text: Mapped[str] = mapped_column(Text, nullable=False, default="")
    sections: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # The draft it started from, if any (kept when the draft is deleted).
    source_draft_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    # [{"code", "title", "lineIds"}]: the ICD-10 codes the doctor accepted; fixed at signing.
    codes: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, default=list, server_default="[]")
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class ConsultationNoteEntry(TenantBase):
    """An immutable signed version of a note: the signature itself, then any addenda."""

    __tablename__ = "consultation_note_entries"
    __table_args__ = (
        CheckConstraint(f"kind IN {NOTE_ENTRY_KINDS}", name="kind"),
        UniqueConstraint("note_id", "number", name="uq_consultation_note_entries_note_number"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    note_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("consultation_notes.id", ondelete="CASCADE"), nullable=False
    )
    # 1 is the signature; 2, 3, ... the addenda, in order.
    number: Mapped[int] = mapped_column(Integer, nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)
    sections: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    author_account_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    author_name: Mapped[str] = mapped_column(String(200), nullable=False)
    # SHA-256 (hex) of the entry's canonical content: text, sections, author, time (and `shown`).
    content_sha256: Mapped[str] = mapped_column(String(64), nullable=False)
    # The signature only: what the document shows, as it was at signing (title, patient
    # reference, signer's name and licence number, clinic); part of the hash. None on entries
    # signed before tenant revision t0009 and on addenda.
    shown: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    created_at: Mapped[datetime] = created_at()


class RecordSettings(TenantBase):
    """Consultation-record settings: one row for a hospital schema (`owner` = "hospital"), one per
    doctor in the shared independent schema (`owner` = the doctor's account id)."""

    __tablename__ = "record_settings"

    owner: Mapped[str] = mapped_column(String(64), primary_key=True)
    consent_mandatory: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    retention_days: Mapped[int] = mapped_column(Integer, nullable=False, default=30)
    updated_at: Mapped[datetime] = updated_at()


# ---------------------------------------------------------------- recordings processed later

# waiting: the local recogniser cannot do it (a language, a length); it waits for the AI service.
RECORDING_STATES = ("receiving", "processing", "waiting", "done", "failed")


class RecordingUpload(TenantBase):
    """A consultation recorded in the browser while offline, uploaded in chunks (cara.recordings).

    Its audio waits in `recording_parts` until the worker has made a consultation of it, and is
    deleted then: raw audio is never kept once processed.
    """

    __tablename__ = "recording_uploads"
    __table_args__ = (
        CheckConstraint(f"state IN {RECORDING_STATES}", name="state"),
        # The browser names its capture: creating the same upload twice gives the first back.
        UniqueConstraint("doctor_account_id", "client_id", name="uq_recording_uploads_doctor_client"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    doctor_account_id: Mapped[uuid.UUID] = account_id_column()
    client_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), nullable=False)
    console: Mapped[str] = mapped_column(String(50), nullable=False)
    consent_basis: Mapped[str] = mapped_column(String(32), nullable=False)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    mime_type: Mapped[str] = mapped_column(String(100), nullable=False)
    # The language spoken, as the console said (its interface language); null: English (t0013).
    language: Mapped[str | None] = mapped_column(String(16))
    # Who it is about (as a consultation's `patient_reference`); never sent to the AI model.
    patient_reference: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    received_bytes: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    state: Mapped[str] = mapped_column(String(16), nullable=False, default="receiving")
    # Set once the worker made the consultation (a retry after a failed draft does not make another).
    consultation_id: Mapped[uuid.UUID | None] = mapped_column(
        UUID(as_uuid=True), ForeignKey("consultations.id", ondelete="SET NULL")
    )
    error: Mapped[str | None] = mapped_column(String(300))
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class RecordingPart(TenantBase):
    """One received chunk of a recording, at its byte offset in the recording."""

    __tablename__ = "recording_parts"

    upload_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("recording_uploads.id", ondelete="CASCADE"), primary_key=True
    )
    offset: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)


# ---------------------------------------------------------------- imaging (cara.imaging)


class PacsSettings(TenantBase):
    """The hospital's own PACS, reached over DICOMweb (one row, `owner` = "hospital"). Without a
    row the tenant uses the platform's PACS (`PACS_URL`: the embedded Orthanc in development).
    The password is kept encrypted (Fernet) and never returned to a browser."""

    __tablename__ = "pacs_settings"

    owner: Mapped[str] = mapped_column(String(64), primary_key=True)
    base_url: Mapped[str] = mapped_column(String(500), nullable=False)
    username: Mapped[str | None] = mapped_column(String(200))
    password_encrypted: Mapped[str | None] = mapped_column(Text)
    updated_at: Mapped[datetime] = updated_at()


class ImagingStudy(TenantBase):
    """A study brought in through Cara: which doctor of this tenant holds which StudyInstanceUID.

    The PACS holds the images; this row is what lets a doctor see the study at all (a client's
    UID alone is never trusted), so one StudyInstanceUID has one holder per tenant."""

    __tablename__ = "imaging_studies"
    __table_args__ = (
        UniqueConstraint("study_instance_uid", name="uq_imaging_studies_study_instance_uid"),
        Index("ix_imaging_studies_doctor_created", "doctor_account_id", "created_at"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    study_instance_uid: Mapped[str] = mapped_column(String(64), nullable=False)
    doctor_account_id: Mapped[uuid.UUID] = account_id_column(outlives_account=True)
    consultation_id: Mapped[uuid.UUID | None] = mapped_column(
        UUID(as_uuid=True), ForeignKey("consultations.id", ondelete="SET NULL")
    )
    # Which PACS holds it: the platform's shared one ("platform") or the hospital's ("hospital").
    pacs: Mapped[str] = mapped_column(String(16), nullable=False)
    instance_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


PLAN_REVIEW_STATES = ("receiving", "queued", "computing", "done", "failed")
PLAN_FILE_KINDS = ("rtstruct", "rtdose", "rtplan")


class PlanReview(TenantBase):
    """A radiotherapy plan's DVHs checked against QUANTEC, on a consultation (cara.clinical).

    Its RTSTRUCT, RTDOSE and RTPLAN files are in `plan_review_files`; the worker writes the
    computed table into `result` and counts the structures done in `progress`.
    """

    __tablename__ = "plan_reviews"
    __table_args__ = (
        CheckConstraint(f"state IN {PLAN_REVIEW_STATES}", name="state"),
        Index("ix_plan_reviews_consultation", "consultation_id"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    consultation_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("consultations.id", ondelete="CASCADE"), nullable=False
    )
    # Part of the consultation's record: kept when the doctor is removed.
    doctor_account_id: Mapped[uuid.UUID] = account_id_column(outlives_account=True)
    state: Mapped[str] = mapped_column(String(16), nullable=False, default="receiving")
    progress: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    progress_total: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    # The physicist's choices: fractions (when not the RTPLAN's), name corrections, alpha/beta.
    settings: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, default=dict)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    error: Mapped[str | None] = mapped_column(String(1000))
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class PlanReviewFile(TenantBase):
    """One DICOM file of a plan review, one of each kind (a new upload of a kind replaces it)."""

    __tablename__ = "plan_review_files"
    __table_args__ = (CheckConstraint(f"kind IN {PLAN_FILE_KINDS}", name="kind"),)

    review_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("plan_reviews.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    filename: Mapped[str] = mapped_column(String(255), nullable=False)
    size_bytes: Mapped[int] = mapped_column(BigInteger, nullable=False)
    sha256: Mapped[str] = mapped_column(String(64), nullable=False)
    data: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    created_at: Mapped[datetime] = created_at()


class StructureNameMapping(TenantBase):
    """A structure name the hospital maps to a QUANTEC organ (or to none), for every plan.

    `scope` is 'tenant' in a hospital's schema; in the shared independent schema, the doctor's
    own id, so one independent doctor's names are never another's.
    """

    __tablename__ = "structure_name_mappings"

    scope: Mapped[str] = mapped_column(String(64), primary_key=True)
    name_key: Mapped[str] = mapped_column(String(200), primary_key=True)
    organ_key: Mapped[str | None] = mapped_column(String(64))
    saved_by_account_id: Mapped[uuid.UUID] = account_id_column(outlives_account=True)
    updated_at: Mapped[datetime] = updated_at()
