"""The rules of recordings made in the browser and processed later. Services never commit.

When the live link cannot carry a consultation, the console records the microphone (Opus) and
uploads it once the link is back: `create` (after the consent step, checked like a live start),
`append_chunk` at the offset the server expects (a replay of received bytes is answered as
done, a gap or overlap is 409 with the expected offset), `complete` (every byte received)
enqueues `recordings.process`. On the worker (`process`, each step in a transaction the actor
hands over) the audio is transcribed by the provider, the consultation is made with its lines
(source 'recorded'), the raw audio is deleted in that same transaction, and a draft note is
generated from the stored lines like any consultation's. A failure leaves the upload 'failed'
(its audio kept until processed) and `retry` runs it again.
Another doctor's or tenant's upload is 404.

What the worker hands FFmpeg is checked at the edge: the declared type is WebM or Ogg (422
otherwise) and the first chunk starts as that container (415 otherwise); `recordedAt` is within
the API's date range and not more than a day ahead (kit.validation, 422).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from cara.audit.service import purge_expired, record_tenant
from cara.auth.principal import Principal
from cara.config import get_settings
from cara.consultations import service as consultations
from cara.kit import gemini
from cara.kit.db import session_scope, tenant_session
from cara.kit.errors import (
    BadRequest,
    CaraError,
    Conflict,
    NotFound,
    PayloadTooLarge,
    ServiceUnavailable,
    UnsupportedMediaType,
    ValidationFailed,
)
from cara.kit.jobs import enqueue_after_commit
from cara.kit.validation import as_utc, moment_error
from cara.models import RecordingUpload
from cara.models.base import utcnow
from cara.plans.service import REPORT_DRAFTS
from cara.recordings import audio, repository, speech, storage, transcribe
from cara.recordings.schemas import RecordingComplete, RecordingCreate, RecordingList, RecordingOut
from cara.subscriptions import service as subscriptions
from cara.summaries import service as summaries
from tenants.sessions import TenantTransactions

log = logging.getLogger("cara.recordings")

ACTOR = "recordings.process"
# A chunk stays well under the request body cap (MAX_BODY_BYTES, 1 MiB by default).
CHUNK_BYTES = 512 * 1024
# Opus at ~24-32 kb/s: about 4 hours.
MAX_BYTES = 64 * 1024 * 1024
LIST_SIZE = 50
# A job that has not finished in this time (a worker lost) may be run again.
STALE_PROCESSING = timedelta(minutes=15)

NOT_FOUND = "Recording not found."
BAD_MIME = "Recordings are accepted as Opus audio in WebM or Ogg."
NOT_THE_CONTAINER = "The recording is not Opus audio in WebM or Ogg, as its type says."
EMPTY_CHUNK = "The chunk is empty."
CHUNK_TOO_LARGE = f"A chunk may hold at most {CHUNK_BYTES} bytes."
RECORDING_TOO_LARGE = f"A recording may hold at most {MAX_BYTES // (1024 * 1024)} MB."
ALREADY_COMPLETE = "This recording is already complete."
NOT_RETRYABLE = "Only a failed or waiting recording can be processed again."
TRY_AGAIN = "The recording could not be created. Please try again."


class OffsetMismatch(Conflict):
    """409 with the offset the server expects, in `fields.offset`."""

    def __init__(self, expected: int, message: str | None = None) -> None:
        super().__init__(
            message or f"The upload continues at byte {expected}.", fields={"offset": str(expected)}
        )
        self.expected = expected


def parse_id(value: object) -> uuid.UUID:
    try:
        return uuid.UUID(str(value))
    except (TypeError, ValueError, AttributeError) as exc:
        raise NotFound(NOT_FOUND) from exc


def recording_out(upload: RecordingUpload) -> RecordingOut:
    return RecordingOut(
        id=upload.id,
        clientId=upload.client_id,
        console=upload.console,
        state=upload.state,  # type: ignore[arg-type]
        receivedBytes=upload.received_bytes,
        chunkBytes=CHUNK_BYTES,
        minChunkBytes=min(get_settings().recording_min_chunk_bytes, CHUNK_BYTES),
        maxBytes=MAX_BYTES,
        recordedAt=upload.recorded_at,
        durationMs=upload.duration_ms,
        consultationId=upload.consultation_id,
        error=upload.error,
        createdAt=upload.created_at,
    )


def _own(
    session: Session, principal: Principal, upload_id: object, *, for_update: bool = False
) -> RecordingUpload:
    if principal.role != "doctor":
        raise NotFound(NOT_FOUND)
    upload = repository.doctor_upload(session, principal.id, parse_id(upload_id), for_update=for_update)
    if upload is None:
        raise NotFound(NOT_FOUND)
    return upload


def create(session: Session, principal: Principal, body: RecordingCreate) -> tuple[RecordingOut, bool]:
    """A new upload (or the one already made for this capture: `False`)."""
    existing = repository.by_client_id(session, principal.id, body.clientId)
    if existing is not None:
        return recording_out(existing), False
    console, basis = consultations.recording_consent(session, principal, body.console, body.consent)
    if audio.container_of(body.mimeType) is None:
        raise ValidationFailed({"mimeType": BAD_MIME}, message=BAD_MIME)
    storage.check_open_uploads(session, principal)
    now = utcnow()
    # A date the server can work with (kit.validation); a clock running a little ahead is
    # brought back to now.
    problem = moment_error(body.recordedAt, now=now, past_only=True)
    if problem:
        raise ValidationFailed({"recordedAt": problem})
    recorded_at = min(as_utc(body.recordedAt), now)
    upload = repository.add_upload(
        session,
        RecordingUpload(
            doctor_account_id=principal.id,
            client_id=body.clientId,
            console=console,
            consent_basis=basis,
            recorded_at=recorded_at,
            duration_ms=body.durationMs,
            mime_type=body.mimeType.strip()[:100],
            language=body.language.lower() if body.language else None,
            patient_reference=consultations.patient_reference_json(body.patientReference),
            received_bytes=0,
            state="receiving",
            attempts=0,
        ),
    )
    if upload is None:  # a retried create raced the first one
        raced = repository.by_client_id(session, principal.id, body.clientId)
        if raced is None:
            raise Conflict(TRY_AGAIN)
        return recording_out(raced), False
    record_tenant(
        session,
        action="recording.consent",
        actor_id=principal.id,
        target_type="recording",
        target_id=upload.id,
        detail={"basis": basis, "console": console},
    )
    return recording_out(upload), True


def read(session: Session, principal: Principal, upload_id: object) -> RecordingOut:
    return recording_out(_own(session, principal, upload_id))


def list_recent(session: Session, principal: Principal) -> RecordingList:
    return RecordingList(
        items=[recording_out(u) for u in repository.recent(session, principal.id, LIST_SIZE)]
    )


def append_chunk(
    session: Session, principal: Principal, upload_id: object, offset: int, data: bytes
) -> RecordingOut:
    """Store the bytes at `offset`. Bytes already received are acknowledged again (a retried PUT
    whose answer was lost); any other offset than the next one is 409 with the expected one."""
    upload = _own(session, principal, upload_id, for_update=True)
    if not data:
        raise BadRequest(EMPTY_CHUNK)
    if len(data) > CHUNK_BYTES:
        raise PayloadTooLarge(CHUNK_TOO_LARGE)
    if offset < 0:
        raise OffsetMismatch(upload.received_bytes)
    if offset + len(data) <= upload.received_bytes:
        return recording_out(upload)
    if upload.state != "receiving":
        raise OffsetMismatch(upload.received_bytes, ALREADY_COMPLETE)
    if offset != upload.received_bytes:
        raise OffsetMismatch(upload.received_bytes)
    if upload.received_bytes + len(data) > MAX_BYTES:
        raise PayloadTooLarge(RECORDING_TOO_LARGE)
    if offset == 0:
        _check_container(upload, data)
    storage.check_chunk(session, principal, upload, len(data))
    repository.add_part(session, upload.id, offset, data)
    upload.received_bytes += len(data)
    return recording_out(upload)


def _check_container(upload: RecordingUpload, first: bytes) -> None:
    """The first chunk starts as the container the upload declared (the worker decodes only
    that); anything else is 415 before a byte is stored."""
    declared = audio.container_of(upload.mime_type)
    if declared is None:
        raise UnsupportedMediaType(BAD_MIME)
    if audio.sniff(first) != declared:
        raise UnsupportedMediaType(NOT_THE_CONTAINER)


def _enqueue(session: Session, principal: Principal, upload: RecordingUpload) -> None:
    assert principal.tenant_schema is not None  # a doctor always has a tenant
    enqueue_after_commit(
        session,
        ACTOR,
        tenant=principal.tenant_schema,
        schema=principal.tenant_schema,
        upload_id=str(upload.id),
    )


def complete(
    session: Session, principal: Principal, upload_id: object, body: RecordingComplete
) -> RecordingOut:
    """Every byte is here: hand the recording to the worker (once; a repeat answers the state)."""
    upload = _own(session, principal, upload_id, for_update=True)
    if upload.state != "receiving":
        return recording_out(upload)
    if body.totalBytes != upload.received_bytes:
        raise OffsetMismatch(upload.received_bytes)
    _check_engines(principal)
    upload.state = "processing"
    if body.durationMs is not None:
        upload.duration_ms = body.durationMs
    _enqueue(session, principal, upload)
    return recording_out(upload)


def _check_engines(principal: Principal) -> None:
    """Someone can transcribe it: this server (`TRANSCRIBER=local`) or the AI service. When the AI
    service is configured, it drafts the note too, spending from the same allowance as
    /api/summarize (past it: 429, and the upload waits, every byte kept)."""
    if speech.choice() == speech.PROVIDER:
        gemini.require_ai()
    if gemini.ai_configured():
        summaries.spend_draft(principal)


def retry(session: Session, principal: Principal, upload_id: object) -> RecordingOut:
    upload = _own(session, principal, upload_id, for_update=True)
    stale = upload.state == "processing" and upload.updated_at < utcnow() - STALE_PROCESSING
    if upload.state not in ("failed", "waiting") and not stale:
        raise Conflict(NOT_RETRYABLE)
    _check_engines(principal)
    upload.state = "processing"
    upload.error = None
    _enqueue(session, principal, upload)
    return recording_out(upload)


def tenant_storage(schema: str) -> tuple[int, int]:
    """A hospital's recorded audio awaiting processing and its quota (the admin console)."""
    with tenant_session(schema) as session:
        return repository.held_bytes(session), get_settings().recording_tenant_quota_bytes


# ------------------------------------------------------------------ on the worker

UNREADABLE = "The recording could not be read."
NO_TRANSCRIPT = "The AI service returned no usable transcript."


def _failure_text(exc: BaseException, stage: str) -> str:
    if isinstance(exc, audio.AudioUnreadable):
        return UNREADABLE
    if isinstance(exc, transcribe.TranscriptUnusable):
        return NO_TRANSCRIPT
    if isinstance(exc, speech.SpeechFailed):
        return exc.message
    if isinstance(exc, CaraError):
        return exc.message
    return f"The AI service could not {stage}: {gemini.provider_message(exc)}"[:300]


@dataclass(frozen=True)
class Claimed:
    """An upload this delivery of the job took on."""

    doctor_id: uuid.UUID
    console: str
    consultation_id: uuid.UUID | None


def _claim(session: Session, upload_id: uuid.UUID) -> Claimed | None:
    upload = repository.upload_for_update(session, upload_id)
    if upload is None or upload.state != "processing":
        return None  # gone, or already handled by another delivery of the job
    upload.attempts += 1
    return Claimed(upload.doctor_account_id, upload.console, upload.consultation_id)


def _finish(session: Session, upload_id: uuid.UUID, state: str, error: str | None) -> None:
    upload = repository.upload_for_update(session, upload_id)
    if upload is not None:
        upload.state = state
        upload.error = error


def process(transactions: TenantTransactions, upload_id: str) -> None:
    """The job: transcript -> consultation (audio deleted) -> draft. Each step is a transaction
    of its own (`transactions`, the actor's); a failure marks the upload 'failed' and keeps what
    the next attempt needs."""
    uid = uuid.UUID(upload_id)
    claimed = transactions.run(_claim, uid)
    if claimed is None:
        return
    consultation_id = claimed.consultation_id
    stage = "transcribe the recording"
    try:
        if consultation_id is None:
            consultation_id = _transcribe(transactions, uid)
        if not gemini.ai_configured():
            # Transcribed on this server; the note is drafted by the AI service once there is one.
            transactions.run(_finish, uid, "done", None)
            return
        stage = "draft the note"
        target = consultations.DraftTarget(
            schema=transactions.schema,
            doctor_id=claimed.doctor_id,
            consultation_id=consultation_id,
            console=claimed.console,
        )
        # A report draft where the doctor's plan includes them, else a summary (as /api/summarize).
        with session_scope() as platform:
            allowed = subscriptions.account_entitlements(platform, claimed.doctor_id)
        kind = "report" if REPORT_DRAFTS in allowed else "summary"
        summaries.draft_from_record(
            summaries.SummaryJob(kind=kind, focus=None, transcript="", target=target),
            target,
            transactions,
        )
    except speech.Busy:
        raise  # the actor sends the job again later; the upload stays 'processing'
    except speech.SpeechFailed as exc:
        log.warning("local speech recognition did not finish", extra={"waits": exc.waits, "stage": stage})
        transactions.run(_finish, uid, "waiting" if exc.waits else "failed", exc.message)
        return
    except Exception as exc:
        # The type only: a provider's message may quote what it heard.
        log.warning("recording processing failed", extra={"error": type(exc).__name__, "stage": stage})
        transactions.run(_finish, uid, "failed", _failure_text(exc, stage))
        return
    transactions.run(_finish, uid, "done", None)


def _store_transcript(
    session: Session,
    upload_id: uuid.UUID,
    decoded_seconds: float,
    lines: list[consultations.RecordedLine],
    engine: str,
) -> uuid.UUID:
    """The consultation with its lines; the raw audio goes in the same transaction."""
    upload = repository.upload_for_update(session, upload_id)
    if upload is None:
        raise NotFound(NOT_FOUND)
    seconds = upload.duration_ms / 1000 if upload.duration_ms else decoded_seconds
    consultation_id = consultations.add_recorded(
        session,
        doctor_id=upload.doctor_account_id,
        console=upload.console,
        consent_basis=upload.consent_basis,
        consent_at=upload.recorded_at,
        started_at=upload.recorded_at,
        duration_seconds=max(seconds, decoded_seconds),
        model=engine,
        lines=lines,
        patient_reference=upload.patient_reference,
        transcript_engine=engine,
    )
    upload.consultation_id = consultation_id
    repository.delete_parts(session, upload_id)
    return consultation_id


@dataclass(frozen=True)
class _Audio:
    data: bytes
    language: str | None
    seconds: float  # as the browser measured it, else estimated from the size


# Opus at 24 kb/s, as the console records: bytes -> seconds when the browser gave no duration.
_BYTES_PER_SECOND = 3_000


def _audio(session: Session, upload_id: uuid.UUID) -> _Audio:
    upload = repository.upload_for_update(session, upload_id)
    if upload is None:
        raise NotFound(NOT_FOUND)
    data = repository.recording(session, upload_id)
    seconds = upload.duration_ms / 1000 if upload.duration_ms else len(data) / _BYTES_PER_SECOND
    return _Audio(data=data, language=upload.language, seconds=seconds)


def _transcribe(transactions: TenantTransactions, upload_id: uuid.UUID) -> uuid.UUID:
    """Decode, transcribe, and store the consultation with its lines. Recognition (on this
    server, in a process of its own) and the provider call run with no transaction open. What
    the local recogniser cannot handle (a language, a length) goes to the AI service when there
    is one, and otherwise waits for it (speech.SpeechFailed with `waits`)."""
    recorded = transactions.run(_audio, upload_id)
    if speech.choice() == speech.LOCAL:
        try:
            recognised = speech.transcribe(
                recorded.data, language=recorded.language, seconds=recorded.seconds
            )
        except speech.SpeechFailed as exc:
            if not (exc.waits and gemini.ai_configured()):
                raise
        else:
            return transactions.run(
                _store_transcript,
                upload_id,
                recognised.seconds,
                speech.turns(recognised.words),
                recognised.engine,
            )
    if not get_settings().gemini_api_key:
        raise ServiceUnavailable(gemini.AI_NOT_CONFIGURED)
    prepared = audio.prepare(recorded.data)
    lines = transcribe.transcribe(prepared)
    return transactions.run(
        _store_transcript, upload_id, prepared.seconds, lines, get_settings().gemini_text_model
    )


# ------------------------------------------------------------------ abandoned recordings (scheduled)

EXPIRE_ACTOR = "recordings.expire"
# An upload nobody sent a chunk to in this time is deleted with its audio: the browser keeps
# every piece until the upload is complete, and makes the upload again if it comes back later.
ABANDONED_AFTER = timedelta(hours=24)
# A failed (or waiting) recording is the only copy once the browser has let it go: kept this long
# for a retry.
FAILED_KEPT = timedelta(days=30)


def expire_abandoned(session: Session, now: datetime | None = None) -> int:
    """In one tenant schema (the caller's session, bound to it): delete uploads left receiving
    for `ABANDONED_AFTER` or failed for `FAILED_KEPT`, with their audio (raw audio is never kept
    for long). Returns how many."""
    at = now or utcnow()
    expired = repository.abandoned(session, at - ABANDONED_AFTER, at - FAILED_KEPT)
    return purge_expired(
        session, expired, repository.delete_uploads, action="recording.expired", target_type="recording"
    )
