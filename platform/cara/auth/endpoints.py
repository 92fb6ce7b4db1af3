"""/api/auth: thin routers; the rules live in cara.auth.service.

POST /api/auth/signup is routed from cara.registration.endpoints (see there why).
"""

from __future__ import annotations

import time
from typing import Literal

from fastapi import APIRouter, Request, Response, status
from fastapi.responses import JSONResponse

from cara.auth import ratelimit, service, sessions, stepup, users
from cara.auth.dependencies import DbSession
from cara.auth.principal import AnyPrincipal, AsyncAnyPrincipal, HospitalPrincipal
from cara.auth.schemas import (
    ChangeEmailRequest,
    ChangePasswordRequest,
    EmailLinkRequest,
    ForgotPasswordRequest,
    LoginRequest,
    LoginResponse,
    MessageResponse,
    MfaChallengeRequest,
    MfaChallengeResponse,
    MfaCodeRequest,
    MfaDisableRequest,
    MfaEnabledResponse,
    MfaEnableRequest,
    MfaEnrolledLoginResponse,
    MfaPolicyRequest,
    MfaPolicyResponse,
    MfaSetupResponse,
    MfaStatusResponse,
    ResetPasswordRequest,
    SessionRenewedResponse,
    StepUpResponse,
    UserOut,
)
from cara.kit.client import client_address
from cara.kit.openapi import error_responses

router = APIRouter(prefix="/auth", tags=["auth"])


def _client(request: Request) -> str:
    return client_address(request)


@router.post(
    "/login",
    operation_id="auth_login",
    response_model=LoginResponse | MfaChallengeResponse,
    responses={
        202: {"model": StepUpResponse, "description": "A sign-in link was mailed if the password was right"},
        **error_responses(400, 401, 403, 422, 429),
    },
)
def login(
    body: LoginRequest, request: Request, response: Response, session: DbSession
) -> LoginResponse | MfaChallengeResponse | Response:
    """Sign in with email, password and role; returns a bearer token and the user.

    From a browser app (`X-Requested-With` sent) the token is a short-lived access token and
    an HttpOnly cookie holds the refresh token that renews it (`POST /api/auth/refresh`).
    An account with two-factor sign-in gets a challenge instead (`mfaRequired: "code"`: finish
    at `POST /api/auth/login/mfa`), and one that must enrol first an enrolment challenge
    (`mfaRequired: "enroll"`: `POST /api/auth/login/mfa/setup`, then `/login/mfa/enable`).

    Only this address's own failures on this email refuse (429). Past the account's limit of
    failures from every address, or this address's on every account, a right password goes in
    only from an address the account signed in from or with its device cookie (`cara_device`);
    from elsewhere the answer is 202 whatever the password, and a right one mails a sign-in
    link (`POST /api/auth/login/unlock`)."""
    outcome = service.login(session, body, _client(request), stepup.device_cookie(request))
    if isinstance(outcome, service.StepUp):
        session.commit()  # the link's mail job, and nothing else
        # Not through the 200 response model: its own shape, declared as the 202 above.
        answer = StepUpResponse(message=outcome.message, stepUp="email")
        return JSONResponse(answer.model_dump(), status_code=status.HTTP_202_ACCEPTED)
    return _login_answer(outcome, request, response, session)


@router.post(
    "/login/unlock",
    operation_id="auth_login_unlock",
    response_model=LoginResponse | MfaChallengeResponse,
    responses=error_responses(400, 403, 422, 429),
)
def login_unlock(
    body: EmailLinkRequest, request: Request, response: Response, session: DbSession
) -> LoginResponse | MfaChallengeResponse:
    """The sign-in link mailed after a right password from a new place (see `POST
    /api/auth/login`): signs in as that password would have (the two-factor step follows for
    an account that has it), once, and makes this place known to the account."""
    ratelimit.reset_password(_client(request))
    outcome = service.unlock_login(session, body.token)
    return _login_answer(outcome, request, response, session)


def _login_answer(
    outcome: tuple[str, UserOut] | service.MfaStep, request: Request, response: Response, session: DbSession
) -> LoginResponse | MfaChallengeResponse:
    if isinstance(outcome, service.MfaStep):
        session.commit()
        message = service.MFA_CODE_MESSAGE if outcome.kind == "code" else service.MFA_ENROLL_MESSAGE
        return MfaChallengeResponse(message=message, mfaRequired=outcome.kind, challenge=outcome.challenge)
    token, user = outcome
    token = _browser_session(request, response, session, token)
    session.commit()
    return LoginResponse(message="Login successful!", token=token, user=user)


@router.post(
    "/login/mfa",
    operation_id="auth_login_mfa",
    response_model=LoginResponse,
    responses=error_responses(401, 403, 422, 429),
)
def login_mfa(
    body: MfaCodeRequest, request: Request, response: Response, session: DbSession
) -> LoginResponse:
    """A sign-in's second step: the challenge from `POST /api/auth/login` and a 6-digit code
    from the authenticator app, or a recovery code (each works once). Issues what login does."""
    try:
        token, user = service.login_with_code(session, body.challenge, body.code)
    except Exception:
        session.commit()  # a recovery code or a counted failure stays recorded
        raise
    token = _browser_session(request, response, session, token)
    session.commit()
    return LoginResponse(message="Login successful!", token=token, user=user)


@router.post(
    "/login/mfa/setup",
    operation_id="auth_login_mfa_setup",
    response_model=MfaSetupResponse,
    responses=error_responses(400, 401, 403, 422),
)
def login_mfa_setup(body: MfaChallengeRequest, session: DbSession) -> MfaSetupResponse:
    """Forced enrolment (an `enroll` challenge): a secret for the authenticator app, with its
    URI and QR code. Nothing else can be done until `POST /api/auth/login/mfa/enable`."""
    setup = service.enrolment_setup(session, body.challenge)
    session.commit()
    return MfaSetupResponse(secret=setup.secret, otpauthUri=setup.otpauth_uri, qrCode=setup.qr_code)


@router.post(
    "/login/mfa/enable",
    operation_id="auth_login_mfa_enable",
    response_model=MfaEnrolledLoginResponse,
    responses=error_responses(400, 401, 403, 422, 429),
)
def login_mfa_enable(
    body: MfaCodeRequest, request: Request, response: Response, session: DbSession
) -> MfaEnrolledLoginResponse:
    """Forced enrolment confirmed with a first code: two-factor is on, the caller is signed in
    as by login, and the ten recovery codes are answered this once."""
    token, user, codes = service.enrolment_enable(session, body.challenge, body.code)
    token = _browser_session(request, response, session, token)
    session.commit()
    return MfaEnrolledLoginResponse(
        message="Two-factor sign-in is on.", token=token, user=user, recoveryCodes=codes
    )


@router.get(
    "/mfa",
    operation_id="auth_mfa_status",
    response_model=MfaStatusResponse,
    responses=error_responses(401, 403),
)
def mfa_status(principal: AnyPrincipal, session: DbSession) -> MfaStatusResponse:
    """Whether the caller has two-factor sign-in, must have it, and recovery codes left."""
    state = service.mfa_status(session, principal)
    return MfaStatusResponse(
        enabled=state.enabled, required=state.required, recoveryCodesLeft=state.recovery_codes_left
    )


@router.post(
    "/mfa/setup",
    operation_id="auth_mfa_setup",
    response_model=MfaSetupResponse,
    responses=error_responses(400, 401, 403),
)
def mfa_setup(principal: AnyPrincipal, session: DbSession) -> MfaSetupResponse:
    """Start enrolling an authenticator app: a new secret, its URI and QR code (pending until
    a first code confirms it at `POST /api/auth/mfa/enable`)."""
    setup = service.mfa_setup(session, principal)
    session.commit()
    return MfaSetupResponse(secret=setup.secret, otpauthUri=setup.otpauth_uri, qrCode=setup.qr_code)


@router.post(
    "/mfa/enable",
    operation_id="auth_mfa_enable",
    response_model=MfaEnabledResponse,
    responses=error_responses(400, 401, 403, 422, 429),
)
def mfa_enable(body: MfaEnableRequest, principal: AnyPrincipal, session: DbSession) -> MfaEnabledResponse:
    """Confirm the enrolment with a first code: two-factor is on, and the ten recovery codes
    are answered this once (only their hashes are kept)."""
    codes = service.mfa_enable(session, principal, body.code)
    session.commit()
    return MfaEnabledResponse(message="Two-factor sign-in is on.", recoveryCodes=codes)


@router.post(
    "/mfa/disable",
    operation_id="auth_mfa_disable",
    response_model=MessageResponse,
    responses=error_responses(400, 401, 403, 422, 429),
)
def mfa_disable(body: MfaDisableRequest, principal: AnyPrincipal, session: DbSession) -> MessageResponse:
    """Turn two-factor off with the current password and a code; refused (403) while it is
    required of the account. The account's address is told."""
    try:
        service.mfa_disable(session, principal, body.currentPassword, body.code)
    except Exception:
        session.commit()  # a recovery code used stays used
        raise
    session.commit()
    return MessageResponse(message="Two-factor sign-in is off.")


@router.get(
    "/mfa/policy",
    operation_id="auth_mfa_policy",
    response_model=MfaPolicyResponse,
    responses=error_responses(401, 403),
)
def mfa_policy(principal: HospitalPrincipal, session: DbSession) -> MfaPolicyResponse:
    """A hospital's rule for its doctors' two-factor sign-in."""
    return MfaPolicyResponse(requireForDoctors=service.hospital_mfa_policy(session, principal))


@router.put(
    "/mfa/policy",
    operation_id="auth_mfa_set_policy",
    response_model=MfaPolicyResponse,
    responses=error_responses(401, 403, 422),
)
def set_mfa_policy(
    body: MfaPolicyRequest, principal: HospitalPrincipal, session: DbSession
) -> MfaPolicyResponse:
    """Require two-factor sign-in of the hospital's doctors (each enrols at its next sign-in),
    or make it optional again. Audited in the hospital's log."""
    required = service.set_hospital_mfa_policy(session, principal, body.requireForDoctors)
    session.commit()
    return MfaPolicyResponse(requireForDoctors=required)


def _browser_session(request: Request, response: Response, session: DbSession, token: str) -> str:
    """A new session family for a browser app's sign-in: its access token, the cookie set.
    The place signed in from becomes known to the account (`cara.auth.stepup`)."""
    service.remember_sign_in_place(request, response, token, _client(request))
    return service.start_browser_session(session, request, response, token)


@router.post(
    "/refresh",
    operation_id="auth_refresh",
    response_model=LoginResponse,
    responses={
        204: {"description": "No session cookie: nobody to sign back in"},
        **error_responses(401, 403, 422),
    },
)
def refresh(
    request: Request, response: Response, session: DbSession, app: Literal["web", "admin"] = "web"
) -> LoginResponse | Response:
    """A browser app's session renewed from its refresh cookie (`cara_session`, or
    `cara_admin_session` with `app=admin`): a new access token, the cookie rotated. Needs the
    `X-Requested-With` header; a refresh token used twice ends its whole session."""
    sessions.check_csrf(request)
    if sessions.cookie_value(request, app) is None:
        # A signed-out visitor's page load: not an error.
        return Response(status_code=status.HTTP_204_NO_CONTENT)
    try:
        renewal = sessions.refresh(session, sessions.cookie_value(request, app), app)
    except Exception:
        session.commit()  # a revoked family stays revoked
        raise
    if renewal.refresh_token is not None:
        max_age = renewal.expires_at_s - int(time.time())
        sessions.set_cookie(response, request, app, renewal.refresh_token, max_age=max_age)
    session.commit()
    return LoginResponse(message="Session renewed", token=renewal.access_token, user=renewal.user)


@router.get(
    "/user", operation_id="auth_current_user", response_model=UserOut, responses=error_responses(401, 403)
)
async def current_user(principal: AsyncAnyPrincipal) -> Response:
    """The signed-in user, read fresh from the database."""
    # async: one read on the event loop, with the tenant's role in the same round trip.
    # The JSON is written once from the validated user: returned as a model, it would be
    # dumped, validated again against `response_model` and encoded (the same bytes).
    user = await users.signed_in_user(principal)
    return Response(user.model_dump_json(by_alias=True), media_type="application/json")


@router.post(
    "/logout", operation_id="auth_logout", response_model=MessageResponse, responses=error_responses(401)
)
def logout(
    principal: AnyPrincipal, request: Request, response: Response, session: DbSession
) -> MessageResponse:
    """Revoke the bearer token used for this call, and its browser session with its cookie."""
    service.logout(principal)
    app = sessions.end(session, principal.claims)
    session.commit()
    if app is not None:
        sessions.clear_cookie(response, request, app)
    return MessageResponse(message="Logged out successfully")


@router.post(
    "/forgot-password",
    operation_id="auth_forgot_password",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=MessageResponse,
    responses=error_responses(400, 422, 429),
)
def forgot_password(body: ForgotPasswordRequest, request: Request, session: DbSession) -> MessageResponse:
    """Email a single-use reset link. The answer is the same whether or not the email is known."""
    service.request_password_reset(session, body.email, _client(request))
    session.commit()
    return MessageResponse(
        message="If an account exists for this email, a password reset link has been sent."
    )


@router.post(
    "/reset-password",
    operation_id="auth_reset_password",
    response_model=MessageResponse,
    responses=error_responses(400, 422, 429),
)
def reset_password(body: ResetPasswordRequest, request: Request, session: DbSession) -> MessageResponse:
    """Set a new password with a reset token; signs out every existing session."""
    ratelimit.reset_password(_client(request))
    service.reset_password(session, body.token, body.password)
    session.commit()
    return MessageResponse(message="Your password has been reset. Please log in.")


@router.post(
    "/change-password",
    operation_id="auth_change_password",
    response_model=SessionRenewedResponse,
    responses=error_responses(400, 401, 403, 422, 429),
)
def change_password(
    body: ChangePasswordRequest,
    request: Request,
    response: Response,
    principal: AnyPrincipal,
    session: DbSession,
) -> SessionRenewedResponse:
    """A new password, given the current one. Every other session is signed out and the
    account's address is told; this session goes on with the returned token."""
    token, user = service.change_password(
        session, principal, body.currentPassword, body.newPassword, _client(request)
    )
    token = _renewed_browser_session(request, response, session, principal, token)
    session.commit()
    return SessionRenewedResponse(message="Your password has been changed.", token=token, user=user)


@router.post(
    "/change-email",
    operation_id="auth_change_email",
    response_model=SessionRenewedResponse,
    responses=error_responses(400, 401, 403, 409, 422, 429),
)
def change_email(
    body: ChangeEmailRequest,
    request: Request,
    response: Response,
    principal: AnyPrincipal,
    session: DbSession,
) -> SessionRenewedResponse:
    """A new sign-in email, given the current password. The old address gets a notice with a
    link that undoes the change for 72 hours; every other session is signed out."""
    token, user = service.change_email(session, principal, body.currentPassword, body.email, _client(request))
    token = _renewed_browser_session(request, response, session, principal, token)
    session.commit()
    return SessionRenewedResponse(message="Your sign-in email has been changed.", token=token, user=user)


def _renewed_browser_session(
    request: Request, response: Response, session: DbSession, principal: AnyPrincipal, token: str
) -> str:
    """After an account change every session family is revoked; a browser session goes on in
    a new one (a new cookie), an API client with the returned bearer token."""
    if sessions.family_app(session, principal.claims) is None:
        return token
    return _browser_session(request, response, session, token)


@router.post(
    "/undo-email-change",
    operation_id="auth_undo_email_change",
    response_model=MessageResponse,
    responses=error_responses(400, 409, 422, 429),
)
def undo_email_change(body: EmailLinkRequest, request: Request, session: DbSession) -> MessageResponse:
    """The link mailed to the old address: the old email back, every session signed out."""
    ratelimit.reset_password(_client(request))
    service.undo_email_change(session, body.token)
    session.commit()
    return MessageResponse(
        message="The email change has been undone and every session signed out. "
        "If you did not ask for the change, reset your password now."
    )


@router.post(
    "/confirm-email-change",
    operation_id="auth_confirm_email_change",
    response_model=MessageResponse,
    responses=error_responses(400, 409, 422, 429),
)
def confirm_email_change(body: EmailLinkRequest, request: Request, session: DbSession) -> MessageResponse:
    """The link mailed to a new address a hospital gave its doctor: it becomes the sign-in email."""
    ratelimit.reset_password(_client(request))
    service.confirm_email_change(session, body.token)
    session.commit()
    return MessageResponse(message="Your sign-in email has been changed. Please log in.")


@router.post(
    "/verify-email",
    operation_id="auth_verify_email",
    response_model=MessageResponse,
    responses=error_responses(400, 422, 429),
)
def verify_email(body: EmailLinkRequest, request: Request, session: DbSession) -> MessageResponse:
    """The link mailed to a new hospital's address: the email is verified."""
    ratelimit.reset_password(_client(request))
    service.verify_email(session, body.token)
    session.commit()
    return MessageResponse(message="Your email address is verified.")


@router.post(
    "/resend-verification",
    operation_id="auth_resend_verification",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=MessageResponse,
    responses=error_responses(401, 403, 429),
)
def resend_verification(request: Request, principal: AnyPrincipal, session: DbSession) -> MessageResponse:
    """Mail the verification link again (nothing to do once the email is verified)."""
    service.resend_email_verification(session, principal, _client(request))
    session.commit()
    return MessageResponse(message="We have sent you a new verification link.")
