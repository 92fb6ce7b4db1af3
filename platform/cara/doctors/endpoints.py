"""/api/doctors: a hospital's own doctors (spec §7), and a hospital-created doctor's view of its
hospital's subscription. Thin routers; rules in cara.doctors.service and cara.subscriptions.service."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import APIRouter, Body, Depends, Query, Request, Response, status

from cara.audit import service as audit
from cara.audit.schemas import AuditGroup, AuditPage
from cara.auth import service as auth_service
from cara.auth.dependencies import DbSession
from cara.auth.principal import AsyncAuthenticator, DoctorPrincipal, HospitalPrincipal, Principal
from cara.doctors import service
from cara.doctors.schemas import (
    DoctorCreate,
    DoctorPage,
    DoctorRemove,
    DoctorRemoved,
    DoctorSort,
    DoctorUpdate,
    HospitalDoctorOut,
)
from cara.kit import listing
from cara.kit.openapi import error_responses
from cara.subscriptions import service as subscriptions
from cara.subscriptions.schemas import HospitalSubscriptionStatus

# The hospital, for async handlers that read through the async pool only (no request session).
AsyncHospitalPrincipal = Annotated[Principal, Depends(AsyncAuthenticator("hospital"))]

# Tags per route: the subscription status is listed under "subscriptions" in the API docs.
router = APIRouter(prefix="/doctors")


@router.get(
    "",
    operation_id="doctors_list",
    tags=["doctors"],
    response_model=list[HospitalDoctorOut],
    responses=error_responses(401, 403, 404),
)
def list_doctors(
    request: Request,
    principal: HospitalPrincipal,
    session: DbSession,
    hospital_id: Annotated[
        str | None, Query(alias="hospitalId", max_length=64, description="the caller's own hospital")
    ] = None,
    hospital_created: Annotated[bool | None, Query(alias="isHospitalCreated")] = None,
) -> Response:
    """The signed-in hospital's doctors, by name. Another hospital's id is 404 'Hospital not found.'
    Sends an ETag; `If-None-Match` with it answers 304 while the list is unchanged."""
    encoded = service.list_doctors(session, principal, hospital_id, hospital_created)
    headers = {
        "ETag": encoded.etag,
        # The browser keeps it but asks each time; shared caches never keep it.
        "Cache-Control": "private, no-cache",
        "Vary": "Authorization, Accept-Encoding",
    }
    if encoded.etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    if "gzip" in request.headers.get("accept-encoding", "").lower():
        headers["Content-Encoding"] = "gzip"
        return Response(encoded.compressed, media_type="application/json", headers=headers)
    return Response(encoded.plain, media_type="application/json", headers=headers)


@router.get(
    "/page",
    operation_id="doctors_page",
    tags=["doctors"],
    response_model=DoctorPage,
    responses=error_responses(400, 401, 403, 404, 422),
)
async def list_doctors_page(
    principal: AsyncHospitalPrincipal,
    hospital_id: Annotated[
        str | None, Query(alias="hospitalId", max_length=64, description="the caller's own hospital")
    ] = None,
    hospital_created: Annotated[bool | None, Query(alias="isHospitalCreated")] = None,
    q: Annotated[
        str | None, Query(max_length=200, description="part of the name, email or licence number")
    ] = None,
    specialty: Annotated[str | None, Query(max_length=50)] = None,
    state: Annotated[str | None, Query(max_length=100, description="state/province, any case")] = None,
    is_active: Annotated[bool | None, Query(alias="isActive")] = None,
    sort: Annotated[
        DoctorSort, Query(description="`name` or `createdAt`; `-` first for descending")
    ] = "name",
    cursor: Annotated[
        str | None, Query(max_length=listing.MAX_CURSOR, description="`nextCursor` of the page before")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=service.MAX_PAGE_SIZE)] = service.PAGE_SIZE,
) -> Response:
    """The signed-in hospital's doctors a page at a time (keyset: a deep page costs what the first
    does), with search, filters and order on the server. Rows leave out the profile's lists;
    `GET /api/doctors` still answers the whole list."""
    # async: one read on the event loop (no request session, no thread-pool hand-off).
    page = await service.list_page(
        principal,
        hospital_id,
        hospital_created=hospital_created,
        q=q,
        specialty=specialty,
        state=state,
        active=is_active,
        sort=sort,
        cursor=cursor,
        limit=limit,
    )
    # Encoded by the service (DoctorPage's shape); compressed by the app's GZipMiddleware.
    return Response(page, media_type="application/json", headers={"Cache-Control": "private, no-cache"})


@router.post(
    "/new-doctor",
    operation_id="doctors_add",
    tags=["doctors"],
    status_code=status.HTTP_201_CREATED,
    response_model=HospitalDoctorOut,
    responses=error_responses(401, 403, 404, 409, 422),
)
def add_doctor(body: DoctorCreate, principal: HospitalPrincipal, session: DbSession) -> HospitalDoctorOut:
    """Create a doctor's login account in the hospital's tenant. Refused (403, the message
    names the subscription) without an active plan or at the plan's `maxDoctors`."""
    auth_service.require_verified_email(principal.account)
    doctor = service.add_doctor(session, principal, body)
    session.commit()
    return doctor


@router.put(
    "/{doctor_id}",
    operation_id="doctors_update",
    tags=["doctors"],
    response_model=HospitalDoctorOut,
    responses=error_responses(400, 401, 403, 404, 409, 422),
)
def update_doctor(
    doctor_id: str, body: DoctorUpdate, principal: HospitalPrincipal, session: DbSession
) -> HospitalDoctorOut:
    """Change a doctor's details, or only `isActive` (a deactivated doctor cannot sign in)."""
    doctor = service.update_doctor(session, principal, doctor_id, body)
    session.commit()
    return doctor


@router.delete(
    "/{doctor_id}",
    operation_id="doctors_remove",
    tags=["doctors"],
    response_model=DoctorRemoved,
    responses=error_responses(401, 403, 404),
)
def remove_doctor(
    doctor_id: str,
    principal: HospitalPrincipal,
    session: DbSession,
    body: Annotated[DoctorRemove | None, Body()] = None,
) -> DoctorRemoved:
    """Remove a doctor: account, profile and certificate files are deleted; the audit log keeps the fact."""
    removed = service.remove_doctor(session, principal, doctor_id, body.hospitalId if body else None)
    session.commit()
    return DoctorRemoved(message="Doctor removed successfully", id=removed)


@router.get(
    "/hospital-subscription-status",
    operation_id="doctors_hospital_subscription_status",
    tags=["subscriptions"],
    response_model=HospitalSubscriptionStatus,
    responses=error_responses(401, 403),
)
def hospital_subscription_status(
    principal: DoctorPrincipal, session: DbSession
) -> HospitalSubscriptionStatus:
    """Whether the signed-in hospital-created doctor's hospital has an active subscription."""
    return subscriptions.hospital_status(session, principal.account)


@router.get(
    "/audit-events",
    operation_id="doctors_audit_events",
    tags=["doctors"],
    response_model=AuditPage,
    responses=error_responses(400, 401, 403, 404, 422),
)
def audit_events(
    principal: HospitalPrincipal,
    session: DbSession,
    group: Annotated[
        AuditGroup | None, Query(description="the kind of entry: the action's first part")
    ] = None,
    actor: Annotated[str | None, Query(max_length=64, description="account id of who did it")] = None,
    since: Annotated[date | None, Query(alias="from", description="first day, inclusive")] = None,
    until: Annotated[date | None, Query(alias="to", description="last day, inclusive")] = None,
    cursor: Annotated[
        str | None, Query(max_length=listing.MAX_CURSOR, description="`nextCursor` of the page before")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=audit.MAX_PAGE_SIZE)] = audit.PAGE_SIZE,
) -> AuditPage:
    """The hospital's own audit log (its security page), newest first, filterable, a page at a
    time (keyset): who added, edited or deactivated doctors, viewed or exported notes, changed
    the record settings."""
    return audit.hospital_log(
        session,
        principal.account.tenant_id,
        group=group,
        actor=actor,
        since=since,
        until=until,
        cursor=cursor,
        limit=limit,
    )
