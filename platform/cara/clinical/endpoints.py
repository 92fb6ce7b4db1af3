"""/api/plan-reviews and /api/plan-review-files: a radiotherapy plan's DVHs checked against QUANTEC.
Thin routers; rules in cara.clinical.service."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Path, Query, status

from cara.auth.dependencies import DbSession
from cara.auth.principal import AnyPrincipal, DoctorPrincipal
from cara.clinical import service
from cara.clinical.schemas import (
    OrganCatalogue,
    PlanFileKind,
    PlanReviewCreate,
    PlanReviewList,
    PlanReviewOut,
    PlanReviewSettings,
    StructureNames,
)
from cara.kit.openapi import error_responses

PLAN_FILES_PATH = "/api/plan-review-files"

router = APIRouter(prefix="/plan-reviews", tags=["plan reviews"])
files_router = APIRouter(prefix="/plan-review-files", tags=["plan reviews"])


@router.post(
    "",
    operation_id="plan_reviews_create",
    status_code=status.HTTP_201_CREATED,
    response_model=PlanReviewOut,
    responses=error_responses(401, 403, 404, 422),
)
def create_review(body: PlanReviewCreate, principal: DoctorPrincipal, session: DbSession) -> PlanReviewOut:
    """Start a plan review on the radiotherapist's own consultation (radiotherapy console,
    consented, not signed); then upload its files and compute it."""
    out = service.create(session, principal, body)
    session.commit()
    return out


@router.get(
    "",
    operation_id="plan_reviews_list",
    response_model=PlanReviewList,
    responses=error_responses(401, 403, 404, 422),
)
def list_reviews(
    principal: DoctorPrincipal, session: DbSession, consultationId: Annotated[str, Query(max_length=64)]
) -> PlanReviewList:
    """The plan reviews of one of the doctor's consultations, newest first."""
    return service.list_for(session, principal, consultationId)


@router.get(
    "/organs",
    operation_id="plan_reviews_organs",
    response_model=OrganCatalogue,
    responses=error_responses(401),
)
def organs(principal: AnyPrincipal) -> OrganCatalogue:
    """The QUANTEC organs a structure can map to, with their default alpha/beta and metrics."""
    return service.organ_catalogue()


@router.get(
    "/structure-names",
    operation_id="plan_reviews_structure_names",
    response_model=StructureNames,
    responses=error_responses(401, 403),
)
def read_structure_names(principal: AnyPrincipal, session: DbSession) -> StructureNames:
    """The structure names saved for every plan: the hospital's (an independent doctor's own)."""
    return service.read_names(session, principal)


@router.put(
    "/structure-names",
    operation_id="plan_reviews_save_structure_names",
    response_model=StructureNames,
    responses=error_responses(401, 403, 422),
)
def save_structure_names(body: StructureNames, principal: AnyPrincipal, session: DbSession) -> StructureNames:
    """Replace the saved structure names (organKey null: never an organ). A hospital saves them for
    its doctors; an independent doctor for themself."""
    out = service.save_names(session, principal, body)
    session.commit()
    return out


@router.get(
    "/{review_id}",
    operation_id="plan_reviews_read",
    response_model=PlanReviewOut,
    responses=error_responses(401, 403, 404),
)
def read_review(review_id: str, principal: DoctorPrincipal, session: DbSession) -> PlanReviewOut:
    """State (`progress` of `progressTotal` structures while computing), files and, once done, the table."""
    return service.read(session, principal, review_id)


@router.post(
    "/{review_id}/compute",
    operation_id="plan_reviews_compute",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=PlanReviewOut,
    responses=error_responses(401, 403, 404, 409, 422),
)
def compute_review(
    review_id: str, body: PlanReviewSettings, principal: DoctorPrincipal, session: DbSession
) -> PlanReviewOut:
    """Compute the DVHs and the QUANTEC checks (a worker job: state `queued`, then `computing`,
    then `done` or `failed`), with the physicist's fractions, name corrections and alpha/beta."""
    out = service.request_compute(session, principal, review_id, body)
    session.commit()
    return out


@files_router.put(
    "/{review_id}/{kind}",
    operation_id="plan_reviews_put_file",
    response_model=PlanReviewOut,
    responses=error_responses(400, 401, 403, 404, 409, 413, 422),
)
def put_file(
    review_id: str,
    kind: Annotated[PlanFileKind, Path(description="which file of the plan")],
    principal: DoctorPrincipal,
    session: DbSession,
    data: Annotated[bytes, Body(media_type="application/octet-stream")],
    filename: Annotated[
        str | None, Query(max_length=255, description="the file's name, for messages")
    ] = None,
) -> PlanReviewOut:
    """One DICOM file of the plan (RTSTRUCT, RTDOSE or RTPLAN; a second of a kind replaces the
    first). A file that is not DICOM, is truncated or is of another kind is 422 naming it."""
    out = service.store_file(session, principal, review_id, kind, filename, data)
    session.commit()
    return out
