"""POST /api/auth/signup: a thin router; the rules live in cara.registration.service.

The URL is the spec's (§7) and stays under /api/auth, but the route is registered from this
package rather than from `cara.auth.endpoints`: registration builds on auth (passwords,
tokens, the principal), so routing sign-up from auth would make the two packages import each
other. /api/auth is therefore served by three packages, each for its own paths: `auth`
(sign-in, current user, logout, password reset), `registration` (sign-up) and `profiles`
(the doctor's profile and certificate files). Admin invitations are routed with the rest of
/api/admin from `cara.admin_console.endpoints`, as a thin call into this domain's service.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status

from cara.auth import service as auth_service
from cara.auth.dependencies import DbSession
from cara.auth.principal import OptionalPrincipal
from cara.config import get_settings
from cara.kit import throttle
from cara.kit.client import client_address
from cara.kit.db import platform_session, tenant_session
from cara.kit.openapi import error_responses
from cara.models.base import utcnow
from cara.registration import service
from cara.registration.schemas import (
    AuthData,
    CompleteSignupIn,
    SignupPending,
    SignupRequest,
    SignupResponse,
)

router = APIRouter(prefix="/auth", tags=["auth"])


@router.post(
    "/signup",
    operation_id="auth_signup",
    status_code=status.HTTP_201_CREATED,
    response_model=SignupResponse | SignupPending,
    # 202: a doctor or hospital signing themselves up; the account is made by the mailed link
    # (POST /api/auth/complete-signup), and the answer is the same when the email is taken.
    # 401: a bearer token was sent (a hospital or an admin registering someone) but it no
    # longer signs anyone in, e.g. after a password change or a new two-factor rule.
    responses={
        202: {"model": SignupPending, "description": "Link mailed (or the address's owner told)"},
        **error_responses(400, 401, 403, 409, 413, 422, 429),
    },
)
def signup(
    body: SignupRequest,
    request: Request,
    response: Response,
    session: DbSession,
    acting: OptionalPrincipal,
) -> SignupResponse | SignupPending:
    """Register a doctor, a hospital (its tenant schema is created when its link is followed), or
    an invited admin; a hospital registering its own doctor creates the account at once."""
    plan = service.plan_signup(session, body, acting)
    if acting is not None and plan.role == "doctor":
        auth_service.require_verified_email(acting.account)  # a hospital registering its doctor
    service.limit_signup(plan, acting, client_address(request))
    if service.is_confirmed_by_mail(plan, acting):
        pending = service.start_signup(session, body, plan)
        session.commit()
        response.status_code = status.HTTP_202_ACCEPTED
        return pending
    # The new account's rows go through a session bound to its tenant, in one transaction.
    target = tenant_session(plan.tenant_schema) if plan.tenant_schema else platform_session()
    try:
        token, user = service.signup(target, body, plan, acting)
        target.commit()
    finally:
        target.close()
    if acting is None and plan.role != "hospital":
        # An invited admin, signed in from the browser app: its session cookie, as at login.
        token = auth_service.start_browser_session(session, request, response, token)
        session.commit()
    return SignupResponse(message="Registration successful", data=AuthData(token=token, user=user))


@router.post(
    "/complete-signup",
    operation_id="auth_complete_signup",
    status_code=status.HTTP_201_CREATED,
    response_model=SignupResponse,
    responses=error_responses(400, 409, 413, 422, 429),
)
def complete_signup(
    body: CompleteSignupIn, request: Request, response: Response, session: DbSession
) -> SignupResponse:
    """Follow a sign-up's mailed link: the account is created, once. A doctor is signed in (with
    the browser session cookie, as at login); a hospital signs in from its login page."""
    throttle.hit("signup-link-address", get_settings().rate_limit_signup_address, client_address(request))
    pending, form, plan = service.take_pending_signup(session, body.token)
    target = tenant_session(plan.tenant_schema) if plan.tenant_schema else platform_session()
    try:
        token, user = service.signup(target, form, plan, None, confirmed=pending)
        target.commit()
    finally:
        target.close()
    pending.used_at = utcnow()
    session.commit()
    if plan.role != "hospital":
        token = auth_service.start_browser_session(session, request, response, token)
        session.commit()
    return SignupResponse(message="Registration successful", data=AuthData(token=token, user=user))
