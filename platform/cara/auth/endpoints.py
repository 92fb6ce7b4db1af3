"""/api/auth: thin routers; the rules live in cara.auth.service.

Sign-up keeps its URL under /api/auth and is routed here, so that one package serves the
prefix; its rules are cara.registration.service's.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, status

from cara.auth import service
from cara.auth.dependencies import DbSession
from cara.auth.principal import AnyPrincipal, OptionalPrincipal
from cara.auth.schemas import (
    ForgotPasswordRequest,
    LoginRequest,
    LoginResponse,
    MessageResponse,
    ResetPasswordRequest,
    UserOut,
)
from cara.kit.db import platform_session, tenant_session
from cara.kit.openapi import error_responses
from cara.registration import service as registration
from cara.registration.schemas import AuthData, SignupRequest, SignupResponse

router = APIRouter(prefix="/auth", tags=["auth"])


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@router.post(
    "/signup",
    operation_id="auth_signup",
    status_code=status.HTTP_201_CREATED,
    response_model=SignupResponse,
    responses=error_responses(400, 403, 409, 413, 422),
)
def signup(body: SignupRequest, session: DbSession, acting: OptionalPrincipal) -> SignupResponse:
    """Register a doctor, a hospital (its tenant schema is created here) or an invited admin."""
    plan = registration.plan_signup(session, body, acting)
    # The new account's rows go through a session bound to its tenant, in one transaction.
    target = tenant_session(plan.tenant_schema) if plan.tenant_schema else platform_session()
    try:
        token, user = registration.signup(target, body, plan, acting)
        target.commit()
    finally:
        target.close()
    return SignupResponse(message="Registration successful", data=AuthData(token=token, user=user))


@router.post(
    "/login",
    operation_id="auth_login",
    response_model=LoginResponse,
    responses=error_responses(400, 401, 403, 422, 429),
)
def login(body: LoginRequest, request: Request, session: DbSession) -> LoginResponse:
    """Sign in with email, password and role; returns a bearer token and the user."""
    token, user = service.login(session, body, _client(request))
    session.commit()
    return LoginResponse(message="Login successful!", token=token, user=user)


@router.get(
    "/user", operation_id="auth_current_user", response_model=UserOut, responses=error_responses(401, 403)
)
def current_user(principal: AnyPrincipal, session: DbSession) -> UserOut:
    """The signed-in user, read fresh from the database."""
    return service.load_user(session, principal.account)


@router.post(
    "/logout", operation_id="auth_logout", response_model=MessageResponse, responses=error_responses(401)
)
def logout(principal: AnyPrincipal) -> MessageResponse:
    """Revoke the bearer token used for this call."""
    service.logout(principal)
    return MessageResponse(message="Logged out successfully")


@router.post(
    "/forgot-password",
    operation_id="auth_forgot_password",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=MessageResponse,
    responses=error_responses(400, 422),
)
def forgot_password(body: ForgotPasswordRequest, session: DbSession) -> MessageResponse:
    """Email a single-use reset link. The answer is the same whether or not the email is known."""
    service.request_password_reset(session, body.email)
    session.commit()
    return MessageResponse(
        message="If an account exists for this email, a password reset link has been sent."
    )


@router.post(
    "/reset-password",
    operation_id="auth_reset_password",
    response_model=MessageResponse,
    responses=error_responses(400, 422),
)
def reset_password(body: ResetPasswordRequest, session: DbSession) -> MessageResponse:
    """Set a new password with a reset token; signs out every existing session."""
    service.reset_password(session, body.token, body.password)
    session.commit()
    return MessageResponse(message="Your password has been reset. Please log in.")
