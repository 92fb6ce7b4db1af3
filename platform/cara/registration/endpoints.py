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
from cara.kit.client import client_address
from cara.kit.db import platform_session, tenant_session
from cara.kit.openapi import error_responses
from cara.registration import service
from cara.registration.schemas import AuthData, SignupRequest, SignupResponse

router = APIRouter(prefix="/auth", tags=["auth"])


@router.post(
    "/signup",
    operation_id="auth_signup",
    status_code=status.HTTP_201_CREATED,
    response_model=SignupResponse,
    # 401: a bearer token was sent (a hospital or an admin registering someone) but it no
    # longer signs anyone in, e.g. after a password change or a new two-factor rule.
    responses=error_responses(400, 401, 403, 409, 413, 422, 429),
)
def signup(
    body: SignupRequest,
    request: Request,
    response: Response,
    session: DbSession,
    acting: OptionalPrincipal,
) -> SignupResponse:
    """Register a doctor, a hospital (its tenant schema is created here) or an invited admin."""
    plan = service.plan_signup(session, body, acting)
    if acting is not None and plan.role == "doctor":
        auth_service.require_verified_email(acting.account)  # a hospital registering its doctor
    service.limit_signup(plan, acting, client_address(request))
    # The new account's rows go through a session bound to its tenant, in one transaction.
    target = tenant_session(plan.tenant_schema) if plan.tenant_schema else platform_session()
    try:
        token, user = service.signup(target, body, plan, acting)
        target.commit()
    finally:
        target.close()
    if acting is None and plan.role != "hospital":
        # Signed in from a browser app: its session cookie, as at login. A new hospital signs
        # in afterwards (spec: registration goes on to /hospital-login), so it gets no session.
        token = auth_service.start_browser_session(session, request, response, token)
        session.commit()
    return SignupResponse(message="Registration successful", data=AuthData(token=token, user=user))
