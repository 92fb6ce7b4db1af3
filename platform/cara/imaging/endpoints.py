"""/api/imaging: the hospital's PACS setting and its test, and the studies doctors bring in.
Thin routers; rules in cara.imaging.service."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, status
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException

from cara.auth.dependencies import DbSession
from cara.auth.principal import DoctorPrincipal, HospitalPrincipal
from cara.config import get_settings
from cara.imaging import service
from cara.imaging.schemas import (
    PacsSettingsIn,
    PacsSettingsOut,
    PacsTestIn,
    PacsTestOut,
    StudyList,
    StudyUploadOut,
)
from cara.kit.errors import BadRequest, UnsupportedMediaType
from cara.kit.openapi import error_responses

router = APIRouter(prefix="/imaging", tags=["imaging"])

STUDIES_PATH = "/api/imaging/studies"

_UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["consultationId", "files"],
                    "properties": {
                        "consultationId": {"type": "string", "format": "uuid"},
                        "files": {
                            "type": "array",
                            "items": {"type": "string", "format": "binary"},
                            "description": "DICOM files (Part 10), or zips of them",
                        },
                    },
                }
            }
        },
    }
}


@dataclass
class UploadForm:
    consultation_id: str
    files: list[tuple[str, bytes]]


async def _upload_form(request: Request) -> AsyncIterator[UploadForm]:
    """The multipart form, parsed with the upload's file limit (one past it is refused by name)."""
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise UnsupportedMediaType("Send the files as multipart/form-data (fields consultationId and files).")
    limit = get_settings().imaging_max_files
    try:
        form = await request.form(max_files=limit, max_fields=8)
    except HTTPException as exc:  # the multipart parser's refusal, e.g. past the file count
        if "Too many files" in str(exc.detail):
            raise service.too_large("files") from None
        raise BadRequest(f"The upload could not be read as a form: {exc.detail}") from None
    try:
        consultation_id = form.get("consultationId")
        if not isinstance(consultation_id, str):
            raise BadRequest("consultationId is missing", fields={"consultationId": "Required"})
        files: list[tuple[str, bytes]] = []
        for item in form.getlist("files"):
            if isinstance(item, UploadFile):
                files.append((item.filename or f"file {len(files) + 1}", await item.read()))
        yield UploadForm(consultation_id, files)
    finally:
        await form.close()


@router.get(
    "/pacs",
    operation_id="imaging_pacs_read",
    response_model=PacsSettingsOut,
    responses=error_responses(401, 403),
)
def read_pacs(principal: HospitalPrincipal, session: DbSession) -> PacsSettingsOut:
    """The hospital's PACS: its own (address and username; the password is never returned) or
    the platform's."""
    return service.read_pacs_settings(session, principal)


@router.put(
    "/pacs",
    operation_id="imaging_pacs_update",
    response_model=PacsSettingsOut,
    responses=error_responses(401, 403, 422),
)
def update_pacs(body: PacsSettingsIn, principal: HospitalPrincipal, session: DbSession) -> PacsSettingsOut:
    """Point the hospital's studies at its own PACS over DICOMweb, or (`baseUrl` null) back at
    the platform's."""
    out = service.change_pacs_settings(session, principal, body)
    session.commit()
    return out


@router.post(
    "/pacs/test",
    operation_id="imaging_pacs_test",
    response_model=PacsTestOut,
    responses=error_responses(401, 403, 422),
)
def test_pacs(body: PacsTestIn, principal: HospitalPrincipal, session: DbSession) -> PacsTestOut:
    """Try a PACS (the settings given, else the one in use) with a DICOMweb search: ok,
    unauthorized (401/403), timeout, unreachable, or not DICOMweb."""
    return service.test_pacs(session, principal, body)


@router.post(
    "/studies",
    operation_id="imaging_studies_upload",
    status_code=status.HTTP_201_CREATED,
    response_model=StudyUploadOut,
    responses=error_responses(400, 401, 403, 404, 409, 413, 415, 422, 424),
    openapi_extra=_UPLOAD_BODY,
)
def upload_studies(
    # The caller is checked before the form is read: the principal comes first.
    principal: DoctorPrincipal,
    session: DbSession,
    form: Annotated[UploadForm, Depends(_upload_form)],
) -> StudyUploadOut:
    """Bring DICOM files (or zips of them) into the tenant's PACS (STOW-RS), attached to one of
    the doctor's consultations. Every file is checked first: a bad one (not DICOM, cut short,
    a zip bomb, too many files) stores nothing and is named in the answer."""
    out = service.upload_studies(session, principal, form.consultation_id, form.files)
    session.commit()
    return out


@router.get(
    "/studies",
    operation_id="imaging_studies_list",
    response_model=StudyList,
    responses=error_responses(401, 403, 404, 422, 424),
)
def list_studies(
    principal: DoctorPrincipal,
    session: DbSession,
    patient: Annotated[str | None, Query(max_length=64, description="part of the patient's name")] = None,
    patientId: Annotated[str | None, Query(max_length=64)] = None,
    accession: Annotated[str | None, Query(max_length=16)] = None,
    dateFrom: date | None = None,
    dateTo: date | None = None,
    modality: Annotated[str | None, Query(max_length=4, description="CT, MR, US, CR, ...")] = None,
    consultationId: uuid.UUID | None = None,
) -> StudyList:
    """The doctor's studies, found on the tenant's PACS (QIDO-RS) by patient, accession number,
    study date and modality."""
    return service.search_studies(
        session,
        principal,
        patient=patient,
        patient_id=patientId,
        accession=accession,
        date_from=dateFrom,
        date_to=dateTo,
        modality=modality,
        consultation_id=consultationId,
    )
