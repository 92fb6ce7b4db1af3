"""/api/consultations: the consultation record. Thin routers; rules in cara.consultations.service."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Header, Query, Response, status

from cara.auth.dependencies import DbSession
from cara.auth.principal import AnyPrincipal, AsyncDoctorPrincipal, DoctorPrincipal, HospitalPrincipal
from cara.consultations import service
from cara.consultations.schemas import (
    AddendumIn,
    ConsultationChange,
    ConsultationCreate,
    ConsultationDetail,
    ConsultationOut,
    ConsultationPage,
    DraftChangeOut,
    NoteOut,
    NoteSave,
    NoteSign,
    RecordSettingsIn,
    RecordSettingsOut,
    SignedNoteDetail,
    SignedNotePage,
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
async def list_consultations(
    principal: AsyncDoctorPrincipal,
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
) -> Response:
    """The signed-in doctor's consultations, newest first, a page at a time (keyset)."""
    # async: one read on the event loop (no request session, no thread-pool hand-off); the
    # JSON is written once by the service (ConsultationPage's shape).
    page = await service.list_consultations(
        principal,
        q=q,
        started_from=started_from,
        started_to=started_to,
        state=state,
        cursor=cursor,
        limit=limit,
    )
    return Response(page, media_type="application/json")


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
    "/draft-changes",
    operation_id="consultations_hospital_draft_changes",
    response_model=list[DraftChangeOut],
    responses=error_responses(401, 403),
)
def hospital_draft_changes(principal: HospitalPrincipal, session: DbSession) -> list[DraftChangeOut]:
    """How much the hospital's doctors change drafts before signing, per template and kind."""
    return service.draft_changes(session, principal)


@router.get(
    "/signed",
    operation_id="consultations_hospital_signed",
    response_model=SignedNotePage,
    responses=error_responses(400, 401, 403, 404, 422),
)
def hospital_signed_notes(
    principal: HospitalPrincipal,
    session: DbSession,
    doctor_id: Annotated[str | None, Query(alias="doctorId", max_length=64)] = None,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=service.MAX_PAGE_SIZE)] = service.PAGE_SIZE,
) -> SignedNotePage:
    """The hospital's view: its own doctors' signed notes, newest first (never drafts)."""
    return service.hospital_signed_notes(session, principal, doctor_id=doctor_id, cursor=cursor, limit=limit)


@router.get(
    "/signed/{consultation_id}",
    operation_id="consultations_hospital_signed_read",
    response_model=SignedNoteDetail,
    responses=error_responses(401, 403, 404),
)
def hospital_read_note(
    consultation_id: str, principal: HospitalPrincipal, session: DbSession
) -> SignedNoteDetail:
    """One signed note of the hospital's doctors, read-only; every view is in the audit log."""
    out = service.hospital_read_note(session, principal, consultation_id)
    session.commit()
    return out


@router.get(
    "/signed/{consultation_id}/export/fhir",
    operation_id="consultations_hospital_export_fhir",
    response_class=Response,
    responses={
        200: {"content": {"application/fhir+json": {}}, "description": "a FHIR R4 document"},
        **error_responses(401, 403, 404, 422),
    },
)
def hospital_export_fhir(
    consultation_id: str,
    principal: HospitalPrincipal,
    session: DbSession,
    resource: Literal["bundle", "document-reference"] = "bundle",
) -> Response:
    """A signed note of the hospital's doctors as FHIR, as the doctor exports it. Audited."""
    out = service.hospital_export_note(session, principal, consultation_id, "fhir", resource)
    session.commit()
    return _file(out)


@router.get(
    "/signed/{consultation_id}/export/pdf",
    operation_id="consultations_hospital_export_pdf",
    response_class=Response,
    responses={
        200: {"content": {"application/pdf": {}}, "description": "the printable note"},
        **error_responses(401, 403, 404),
    },
)
def hospital_export_pdf(consultation_id: str, principal: HospitalPrincipal, session: DbSession) -> Response:
    """A signed note of the hospital's doctors as a printable PDF. Audited."""
    out = service.hospital_export_note(session, principal, consultation_id, "pdf")
    session.commit()
    return _file(out)


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


def _note_response(note: NoteOut, response: Response) -> NoteOut:
    response.headers["ETag"] = f'"{note.version}"'
    return note


@router.put(
    "/{consultation_id}/note",
    operation_id="consultations_note_save",
    response_model=NoteOut,
    responses=error_responses(400, 401, 403, 404, 409, 413, 422),
)
def save_note(
    consultation_id: str,
    body: NoteSave,
    principal: DoctorPrincipal,
    session: DbSession,
    response: Response,
    if_match: Annotated[str | None, Header(max_length=40)] = None,
) -> NoteOut:
    """Save the note edited from `version` (or `If-Match`); if it was saved since, 409 and nothing
    is overwritten. A signed note is 409. The first save may start from a draft (`fromDraftId`)."""
    note = service.save_note(session, principal, consultation_id, body, if_match)
    session.commit()
    return _note_response(note, response)


@router.post(
    "/{consultation_id}/note/sign",
    operation_id="consultations_note_sign",
    response_model=NoteOut,
    responses=error_responses(400, 401, 403, 404, 409, 422),
)
def sign_note(
    consultation_id: str,
    principal: DoctorPrincipal,
    session: DbSession,
    response: Response,
    body: Annotated[NoteSign | None, Body()] = None,
    if_match: Annotated[str | None, Header(max_length=40)] = None,
) -> NoteOut:
    """Sign the note: that version becomes immutable, with the doctor's name, the time and a
    SHA-256 content hash. An empty note is 422; an already signed one 409."""
    note = service.sign_note(session, principal, consultation_id, body or NoteSign(), if_match)
    session.commit()
    return _note_response(note, response)


@router.post(
    "/{consultation_id}/note/addenda",
    operation_id="consultations_note_addendum",
    status_code=status.HTTP_201_CREATED,
    response_model=NoteOut,
    responses=error_responses(400, 401, 403, 404, 409, 413, 422),
)
def add_addendum(
    consultation_id: str, body: AddendumIn, principal: DoctorPrincipal, session: DbSession, response: Response
) -> NoteOut:
    """Add an addendum to a signed note (signed in turn); the note itself never changes."""
    note = service.add_addendum(session, principal, consultation_id, body)
    session.commit()
    return _note_response(note, response)


def _file(out: service.ExportFile) -> Response:
    return Response(
        out.content,
        media_type=out.media_type,
        headers={
            "Content-Disposition": f'attachment; filename="{out.filename}"',
            "Cache-Control": "private, no-store",
        },
    )


@router.get(
    "/{consultation_id}/export/fhir",
    operation_id="consultations_export_fhir",
    response_class=Response,
    responses={
        200: {"content": {"application/fhir+json": {}}, "description": "a FHIR R4 document"},
        **error_responses(401, 403, 404, 409, 422),
    },
)
def export_fhir(
    consultation_id: str,
    principal: DoctorPrincipal,
    session: DbSession,
    resource: Literal["bundle", "document-reference"] = "bundle",
) -> Response:
    """The signed note as FHIR: a document Bundle (Composition first, with the DocumentReference,
    LOINC 11488-4 or 18748-4 for radiology), or the DocumentReference alone. Unsigned: 409. Audited."""
    out = service.export_note(session, principal, consultation_id, "fhir", resource)
    session.commit()
    return _file(out)


@router.get(
    "/{consultation_id}/export/pdf",
    operation_id="consultations_export_pdf",
    response_class=Response,
    responses={
        200: {"content": {"application/pdf": {}}, "description": "the printable note"},
        **error_responses(401, 403, 404, 409),
    },
)
def export_pdf(consultation_id: str, principal: DoctorPrincipal, session: DbSession) -> Response:
    """The signed note as a printable PDF (clinic, doctor, date, AI-assistance statement). Audited."""
    out = service.export_note(session, principal, consultation_id, "pdf")
    session.commit()
    return _file(out)
