"""/api/recordings: consultations recorded in the browser, uploaded in resumable chunks and
processed by a worker. Thin routers; rules in cara.recordings.service."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query, Response, status

from cara.auth.dependencies import DbSession
from cara.auth.principal import AnyPrincipal, DoctorPrincipal
from cara.kit.errors import Forbidden
from cara.kit.openapi import error_responses
from cara.recordings import service, storage
from cara.recordings.schemas import (
    RecordingComplete,
    RecordingCreate,
    RecordingList,
    RecordingOut,
    RecordingStorageOut,
)

router = APIRouter(prefix="/recordings", tags=["recordings"])

STORAGE_ROLES = "Recording storage is shown to hospitals and doctors."


@router.post(
    "",
    operation_id="recordings_create",
    status_code=status.HTTP_201_CREATED,
    response_model=RecordingOut,
    responses=error_responses(400, 401, 403, 422, 429),
)
def create_recording(
    body: RecordingCreate, principal: DoctorPrincipal, session: DbSession, response: Response
) -> RecordingOut:
    """Start the upload of a recording made after the consent step (checked as for a live start).
    The same `clientId` again returns the upload already made (200), so a retried call is safe."""
    out, created = service.create(session, principal, body)
    if not created:
        response.status_code = status.HTTP_200_OK
    session.commit()
    return out


@router.get(
    "",
    operation_id="recordings_list",
    response_model=RecordingList,
    responses=error_responses(401, 403),
)
def list_recordings(principal: DoctorPrincipal, session: DbSession) -> RecordingList:
    """The doctor's latest recordings with their state, newest first."""
    return service.list_recent(session, principal)


@router.get(
    "/storage",
    operation_id="recordings_storage",
    response_model=RecordingStorageOut,
    responses=error_responses(401, 403),
)
def recording_storage(principal: AnyPrincipal, session: DbSession) -> RecordingStorageOut:
    """Recorded audio waiting to be processed against its limits: a hospital's for all its
    doctors, a doctor's as counted for them."""
    if principal.role not in ("doctor", "hospital"):
        raise Forbidden(STORAGE_ROLES)
    return storage.usage(session, principal)


@router.get(
    "/{recording_id}",
    operation_id="recordings_read",
    response_model=RecordingOut,
    responses=error_responses(401, 403, 404),
)
def read_recording(recording_id: str, principal: DoctorPrincipal, session: DbSession) -> RecordingOut:
    """State and received bytes (the offset to resume from)."""
    return service.read(session, principal, recording_id)


@router.put(
    "/{recording_id}/chunks",
    operation_id="recordings_chunk",
    response_model=RecordingOut,
    responses=error_responses(400, 401, 403, 404, 409, 413, 415, 422, 429, 507),
)
def put_chunk(
    recording_id: str,
    principal: DoctorPrincipal,
    session: DbSession,
    offset: Annotated[int, Query(ge=0, description="where these bytes start in the recording")],
    data: Annotated[bytes, Body(media_type="application/octet-stream")],
) -> RecordingOut:
    """Bytes of the recording at `offset` (at most `chunkBytes`). Bytes already received are
    acknowledged again; another offset than `receivedBytes` is 409 with `fields.offset`. The
    first chunk must start as the declared container (WebM or Ogg), or it is 415. Past the
    doctor's daily bytes it is 429, past the storage quota 507 (cara.recordings.storage); a
    chunk after one smaller than `minChunkBytes` is 422."""
    out = service.append_chunk(session, principal, recording_id, offset, data)
    session.commit()
    return out


@router.post(
    "/{recording_id}/complete",
    operation_id="recordings_complete",
    response_model=RecordingOut,
    responses=error_responses(400, 401, 403, 404, 409, 422, 429, 503),
)
def complete_recording(
    recording_id: str, body: RecordingComplete, principal: DoctorPrincipal, session: DbSession
) -> RecordingOut:
    """Every byte was sent: the worker transcribes it and drafts the note (state `processing`)."""
    out = service.complete(session, principal, recording_id, body)
    session.commit()
    return out


@router.post(
    "/{recording_id}/retry",
    operation_id="recordings_retry",
    response_model=RecordingOut,
    responses=error_responses(401, 403, 404, 409, 429, 503),
)
def retry_recording(recording_id: str, principal: DoctorPrincipal, session: DbSession) -> RecordingOut:
    """Process a failed recording again (its audio was kept)."""
    out = service.retry(session, principal, recording_id)
    session.commit()
    return out
