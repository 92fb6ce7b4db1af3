"""/api/admin: the admin console's reads and actions, and admin invitations (whose rules
are cara.registration's). Admins only (401/403 otherwise)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Query, Response, status

from cara.admin_console import repository, service
from cara.admin_console.schemas import (
    AiUsageOut,
    AuditEventOut,
    DoctorOut,
    HospitalOut,
    PaymentOut,
    StatsOut,
    SubscriptionAnalyticsOut,
)
from cara.auth import service as auth_service
from cara.auth.dependencies import DbSession
from cara.auth.principal import AdminPrincipal, AsyncAuthenticator, Principal
from cara.kit import listing
from cara.kit.openapi import error_responses
from cara.registration import service as registration
from cara.registration.schemas import InvitationIn, InvitationOut


def _two_factor_on(principal: AdminPrincipal) -> None:
    """Admins use the console only with two-factor sign-in while it is required (403)."""
    auth_service.require_admin_mfa(principal)


router = APIRouter(prefix="/admin", tags=["admin"], dependencies=[Depends(_two_factor_on)])

# The admin, for async handlers that read through the async pool only (no request session).
AsyncAdminPrincipal = Annotated[Principal, Depends(AsyncAuthenticator("admin"))]


async def _two_factor_on_async(principal: AsyncAdminPrincipal) -> None:
    """`_two_factor_on` for the async reads (the same 403, before the handler's own checks)."""
    await service.require_admin_mfa(principal)


# The dashboard's and the lists' reads: async handlers, one round trip each on the
# event loop, without the request session and thread-pool hand-offs of `router`'s handlers.
reads = APIRouter(prefix="/admin", tags=["admin"], dependencies=[Depends(_two_factor_on_async)])

Sort = Annotated[str | None, Query(description='JSON, e.g. ["name","ASC"]')]
Range = Annotated[str | None, Query(alias="range", description="JSON, e.g. [0,24] (inclusive)")]
Filter = Annotated[str | None, Query(alias="filter", description='JSON object, e.g. {"q":"accra"}')]
READ_ERRORS = error_responses(400, 401, 403, 422)
Row = TypeVar("Row")


def _list_query(
    sortable: Mapping[str, Any], default_sort: tuple[str, bool]
) -> Callable[..., Awaitable[listing.ListQuery]]:
    """The dependency reading a list's `sort`, `range` and `filter` (react-admin's conventions)."""

    async def parse(sort: Sort = None, range_: Range = None, filter_: Filter = None) -> listing.ListQuery:
        return listing.parse(sort, range_, filter_, sortable=set(sortable), default_sort=default_sort)

    return parse


def _listed(
    response: Response, resource: str, query: listing.ListQuery, found: tuple[list[Row], int]
) -> list[Row]:
    """The page's rows, the total in `Content-Range` (which react-admin's pager reads)."""
    rows, total = found
    listing.set_content_range(response, resource, query, len(rows), total)
    return rows


HospitalsQuery = Annotated[
    listing.ListQuery, Depends(_list_query(repository.HOSPITAL_SORT, ("createdAt", True)))
]
DoctorsQuery = Annotated[listing.ListQuery, Depends(_list_query(repository.DOCTOR_SORT, ("createdAt", True)))]
PaymentsQuery = Annotated[listing.ListQuery, Depends(_list_query(repository.PAYMENT_SORT, ("date", True)))]
AiUsageQuery = Annotated[listing.ListQuery, Depends(_list_query(service.AI_USAGE_SORT, ("tokens", True)))]
AuditQuery = Annotated[listing.ListQuery, Depends(_list_query(repository.AUDIT_SORT, ("createdAt", True)))]


@router.post(
    "/invitations",
    operation_id="admin_invite",
    status_code=status.HTTP_201_CREATED,
    response_model=InvitationOut,
    responses=error_responses(401, 403, 409, 422),
)
def invite_admin(body: InvitationIn, principal: AdminPrincipal, session: DbSession) -> InvitationOut:
    """Invite someone to become an admin. The link is emailed and also returned to the
    inviting admin, who may prefer to hand it over another way."""
    invitation = registration.invite_admin(session, principal, body.email)
    session.commit()
    return invitation


@reads.get("/stats", operation_id="admin_stats", response_model=StatsOut, responses=READ_ERRORS)
async def stats(
    principal: AsyncAdminPrincipal, timeRange: Annotated[str | None, Query()] = "weekly"
) -> Response:
    """Dashboard cards and charts, from the analytics rollups (never a scan of tenant schemas)."""
    return Response(await service.stats_json(timeRange), media_type="application/json")


@reads.get(
    "/subscription-analytics",
    operation_id="admin_subscription_analytics",
    response_model=SubscriptionAnalyticsOut,
    responses=error_responses(401, 403),
)
async def subscription_analytics(principal: AsyncAdminPrincipal) -> Response:
    """Revenue and subscription trends; zeros and empty values if they cannot be computed."""
    return Response(await service.subscription_analytics_json(), media_type="application/json")


@reads.get(
    "/hospitals", operation_id="admin_list_hospitals", response_model=list[HospitalOut], responses=READ_ERRORS
)
async def list_hospitals(
    principal: AsyncAdminPrincipal, response: Response, query: HospitalsQuery
) -> list[HospitalOut]:
    """Hospitals with their verification, tenant status and doctor count; total in Content-Range."""
    found = await service.list_hospitals_async(
        query,
        listing.text_filter(query.filters),
        listing.bool_filter(query.filters, "isVerified"),
        listing.text_filter(query.filters, "status"),
    )
    return _listed(response, "hospitals", query, found)


@router.get(
    "/hospitals/{hospital_id}",
    operation_id="admin_get_hospital",
    response_model=HospitalOut,
    responses=error_responses(401, 403, 404),
)
def get_hospital(hospital_id: str, principal: AdminPrincipal, session: DbSession) -> HospitalOut:
    return service.get_hospital(session, hospital_id)


@router.post(
    "/hospitals/{hospital_id}/verify",
    operation_id="admin_verify_hospital",
    response_model=HospitalOut,
    responses=error_responses(401, 403, 404),
)
def verify_hospital(hospital_id: str, principal: AdminPrincipal, session: DbSession) -> HospitalOut:
    """Mark a hospital Verified (recorded in the audit log)."""
    out = service.verify_hospital(session, principal, hospital_id)
    session.commit()
    return out


@router.post(
    "/hospitals/{hospital_id}/suspend",
    operation_id="admin_suspend_hospital",
    response_model=HospitalOut,
    responses=error_responses(401, 403, 404, 409),
)
def suspend_hospital(hospital_id: str, principal: AdminPrincipal, session: DbSession) -> HospitalOut:
    """Suspend a hospital tenant: its users are refused until it is reinstated."""
    out = service.set_hospital_status(session, principal, hospital_id, "suspended")
    session.commit()
    return out


@router.post(
    "/hospitals/{hospital_id}/reinstate",
    operation_id="admin_reinstate_hospital",
    response_model=HospitalOut,
    responses=error_responses(401, 403, 404, 409),
)
def reinstate_hospital(hospital_id: str, principal: AdminPrincipal, session: DbSession) -> HospitalOut:
    out = service.set_hospital_status(session, principal, hospital_id, "active")
    session.commit()
    return out


@reads.get(
    "/doctors", operation_id="admin_list_doctors", response_model=list[DoctorOut], responses=READ_ERRORS
)
async def list_doctors(
    principal: AsyncAdminPrincipal, response: Response, query: DoctorsQuery
) -> list[DoctorOut]:
    """Every doctor on the platform (independent and hospital-created); total in Content-Range."""
    found = await service.list_doctors(
        query,
        q=listing.text_filter(query.filters),
        specialty=listing.text_filter(query.filters, "specialization"),
        verified=listing.bool_filter(query.filters, "isVerified"),
    )
    return _listed(response, "doctors", query, found)


@router.get(
    "/doctors/{doctor_id}",
    operation_id="admin_get_doctor",
    response_model=DoctorOut,
    responses=error_responses(401, 403, 404),
)
def get_doctor(doctor_id: str, principal: AdminPrincipal, session: DbSession) -> DoctorOut:
    return service.get_doctor(session, doctor_id)


@router.post(
    "/doctors/{doctor_id}/verify",
    operation_id="admin_verify_doctor",
    response_model=DoctorOut,
    responses=error_responses(401, 403, 404),
)
def verify_doctor(doctor_id: str, principal: AdminPrincipal, session: DbSession) -> DoctorOut:
    out = service.verify_doctor(session, principal, doctor_id)
    session.commit()
    return out


@reads.get(
    "/payment-history",
    operation_id="admin_payment_history",
    response_model=list[PaymentOut],
    responses=READ_ERRORS,
)
async def payment_history(
    principal: AsyncAdminPrincipal, response: Response, query: PaymentsQuery
) -> list[PaymentOut]:
    """Payments (user, plan, amount in dollars, status, date); total in Content-Range."""
    found = await service.list_payments(
        query,
        q=listing.text_filter(query.filters),
        status=listing.text_filter(query.filters, "status"),
    )
    return _listed(response, "payment-history", query, found)


@reads.get("/ai-usage", operation_id="admin_ai_usage", response_model=list[AiUsageOut], responses=READ_ERRORS)
async def ai_usage(
    principal: AsyncAdminPrincipal, response: Response, query: AiUsageQuery
) -> list[AiUsageOut]:
    """AI minutes and tokens of live consultations per hospital (the independent doctors as one
    row) over the last `filter.days` days, 30 by default; most tokens first by default."""
    return _listed(response, "ai-usage", query, await service.ai_usage(query, query.filters.get("days")))


@reads.get(
    "/audit-events",
    operation_id="admin_audit_events",
    response_model=list[AuditEventOut],
    responses=READ_ERRORS,
)
async def audit_events(
    principal: AsyncAdminPrincipal, response: Response, query: AuditQuery
) -> list[AuditEventOut]:
    """The platform audit log, newest first by default."""
    found = await service.list_audit_events(query, action=listing.text_filter(query.filters, "action"))
    return _listed(response, "audit-events", query, found)
