"""/api/consultations: the consultation record. Thin routers; rules in cara.consultations.service."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from fastapi import APIRouter, Query, status

from cara.auth.dependencies import DbSession
from cara.auth.principal import AnyPrincipal, DoctorPrincipal
from cara.consultations import service
from cara.consultations.schemas import (
    ConsultationChange,
    ConsultationCreate,
    ConsultationDetail,
    ConsultationOut,
    ConsultationPage,
    RecordSettingsIn,
    RecordSettingsOut,
)
from cara.kit.openapi import error_responses

router = APIRouter(prefix="/consultations", tags=["consultations"])


@router.post(
    "",
    operation_id="consultations_start",
    status_code=status.HTTP_201_CREATED,
    response_model=ConsultationOut,
    responses=error_responses(400, 401, 403, 413, 422),
)
def start_consultation(
    body: ConsultationCreate, principal: DoctorPrincipal, session: DbSession
) -> ConsultationOut:
    """Start a consultation after the doctor confirmed the patient's consent (stored with who and
    when, and audited). The live socket then names it by `id` in its first message."""
    consultation = service.start_consultation(session, principal, body)
    out = service.consultation_out(consultation)
    session.commit()
    return out


@router.get(
    "",
    operation_id="consultations_list",
    response_model=ConsultationPage,
    responses=error_responses(400, 401, 403, 422),
)
def list_consultations(
    principal: DoctorPrincipal,
    session: DbSession,
    q: Annotated[
        str | None, Query(max_length=200, description="words of title, patient or transcript")
    ] = None,
    started_from: Annotated[date | None, Query(alias="from", description="first day (UTC), included")] = None,
    started_to: Annotated[date | None, Query(alias="to", description="last day (UTC), included")] = None,
    state: Literal["in_progress", "draft", "signed"] | None = None,
    cursor: Annotated[
        str | None, Query(max_length=200, description="`nextCursor` of the page before")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=service.MAX_PAGE_SIZE)] = service.PAGE_SIZE,
) -> ConsultationPage:
    """The signed-in doctor's consultations, newest first, a page at a time (keyset)."""
    page = service.list_consultations(
        session,
        principal,
        q=q,
        started_from=started_from,
        started_to=started_to,
        state=state,
        cursor=cursor,
        limit=limit,
    )
    # The search words of changed consultations were gathered on the way.
    session.commit()
    return page


@router.get(
    "/settings",
    operation_id="consultations_settings",
    response_model=RecordSettingsOut,
    responses=error_responses(401, 403),
)
def read_settings(principal: AnyPrincipal, session: DbSession) -> RecordSettingsOut:
    """Whether consent is mandatory and how long unsigned transcripts and drafts are kept."""
    return service.read_settings(session, principal)


@router.put(
    "/settings",
    operation_id="consultations_settings_update",
    response_model=RecordSettingsOut,
    responses=error_responses(400, 401, 403, 422),
)
def change_settings(body: RecordSettingsIn, principal: AnyPrincipal, session: DbSession) -> RecordSettingsOut:
    """A hospital sets them for its doctors, an independent doctor for themself (audited)."""
    out = service.change_settings(session, principal, body)
    session.commit()
    return out


@router.get(
    "/{consultation_id}",
    operation_id="consultations_read",
    response_model=ConsultationDetail,
    responses=error_responses(401, 403, 404),
)
def read_consultation(
    consultation_id: str, principal: DoctorPrincipal, session: DbSession
) -> ConsultationDetail:
    """One consultation of the signed-in doctor: transcript, drafts and note. Others' ids are 404."""
    return service.read_consultation(session, principal, consultation_id)


@router.patch(
    "/{consultation_id}",
    operation_id="consultations_update",
    response_model=ConsultationOut,
    responses=error_responses(400, 401, 403, 404, 409, 422),
)
def change_consultation(
    consultation_id: str, body: ConsultationChange, principal: DoctorPrincipal, session: DbSession
) -> ConsultationOut:
    """Change the title or the patient reference (never sent to the AI model)."""
    out = service.change_consultation(session, principal, consultation_id, body)
    session.commit()
    return out
