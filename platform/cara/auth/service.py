"""Rules of sign-in, the current user and password reset. Services never commit.

Sign-up and admin invitations are `cara.registration`'s. Validation texts are the spec's
(§5); the web app shows them next to fields.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from starlette.requests import Request
from starlette.responses import Response

from cara.audit import service as audit
from cara.auth import mfa, passwords, ratelimit, repository, sessions, stepup, tokens
from cara.auth.principal import Principal
from cara.auth.schemas import LoginRequest, UserOut

# Re-exported: the user object is cara.auth.users', and other domains ask this module for it.
from cara.auth.users import load_user as load_user
from cara.auth.users import load_user_of_tenant
from cara.auth.users import user_out as user_out
from cara.config import get_settings
from cara.kit.errors import BadRequest, Conflict, Forbidden, Unauthorized, ValidationFailed
from cara.kit.jobs import enqueue_after_commit
from cara.kit.validation import FieldErrors, blank, email_error, normalise_email
from cara.models import Account, EmailChange, PasswordReset
from cara.models.base import utcnow

ROLES = ("doctor", "hospital", "admin")
EMAIL_TAKEN = "An account with this email already exists."
BAD_CREDENTIALS = "Invalid email or password"


def _sha256(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


# ---------------------------------------------------------------- sign-in


def email_taken(session: Session, email: str) -> bool:
    """Whether an account already uses this (normalised) email, on any role."""
    return repository.email_taken(session, email)


def account_with_email(session: Session, email: str) -> Account | None:
    """The account that uses this (normalised) email, on any role."""
    return repository.account_by_email(session, email)


def validate_login(req: LoginRequest) -> tuple[str, str, str]:
    errors = FieldErrors()
    errors.add("email", email_error(req.email))
    role = (req.role or "").strip().lower()
    if blank(req.role):
        errors.add("role", "Role is required")
    elif role not in ROLES:
        errors.add("role", "Invalid role")
    has_password = errors.require("password", req.password, "Password is required")
    if has_password and role in ("hospital", "admin") and len(req.password or "") < 8:
        errors.add("password", "Password must be at least 8 characters long")
    if errors:
        raise ValidationFailed(dict(errors))
    return normalise_email(req.email or ""), req.password or "", role


@dataclass(frozen=True)
class MfaStep:
    """A right password for an account with two-factor sign-in (`kind` "code") or one that
    must enrol first ("enroll"): the challenge for the second call, no session yet."""

    kind: mfa.ChallengeKind
    challenge: str


MFA_CODE_MESSAGE = "Enter the code from your authenticator app"
MFA_ENROLL_MESSAGE = "Two-factor sign-in is required for your account: set it up to continue"


@dataclass(frozen=True)
class StepUp:
    """Past the account's or the address's sign-in limit, from a place the account has not
    signed in from: the same answer for a right and a wrong password (202); a right one has
    mailed a sign-in link."""

    message: str


STEP_UP_MESSAGE = (
    "For your security we sent a sign-in link to your email. "
    "If no email arrives, check your password and try again."
)
UNLOCK_INVALID = "This sign-in link is invalid, has expired or was already used. Please log in again."


def login(
    session: Session, req: LoginRequest, client: str, device_cookie: str | None = None
) -> tuple[str, UserOut] | MfaStep | StepUp:
    email, password, role = validate_login(req)
    ratelimit.check(email, client)
    account = repository.account_by_email(session, email)
    ok = passwords.verify_password(account.password_hash if account else None, password)
    right = account is not None and ok and account.role == role
    if ratelimit.guarded(email, client) and not (
        account is not None and stepup.is_known(account.id, client, device_cookie)
    ):
        # Others' failures ran the account's or this address's count up, and this place is
        # new to the account. Refusing would hand the lockout to whoever failed; admitting
        # would let guessing go on from fresh addresses. So: one answer whatever the password
        # (no oracle), counted as a failure either way (a right password must not change what
        # this address sees next), and a right password mails its owner a sign-in link.
        ratelimit.record_failure(email, client)
        if right and account is not None and account.is_active and ratelimit.unlock_mail(account.id):
            token = stepup.issue_unlock(account)
            enqueue_after_commit(session, "mail.login_unlock", account_id=str(account.id), token=token)
        return StepUp(message=STEP_UP_MESSAGE)
    if account is None or not right:
        ratelimit.record_failure(email, client)
        raise Unauthorized(BAD_CREDENTIALS)
    ratelimit.clear(email, client)
    if passwords.needs_rehash(account.password_hash):
        account.password_hash = passwords.hash_password(password)
    return _after_password(session, account)


def unlock_login(session: Session, token: str | None) -> tuple[str, UserOut] | MfaStep:
    """The emailed sign-in link: what a right password would have given (the two-factor step
    still follows for an account that has it). Works once; the account's count starts again."""
    unlock = stepup.take_unlock(token or "")
    account = repository.account_for_update(session, unlock.account_id) if unlock else None
    if unlock is None or account is None or not stepup.unlock_matches(unlock, account):
        raise BadRequest(UNLOCK_INVALID)
    ratelimit.clear_account(account.email)
    return _after_password(session, account)


def account_for_unlock_mail(session: Session, account_id: uuid.UUID, token: str) -> Account | None:
    """For the mail job: the link's account, while the link is still unused and unexpired."""
    unlock = stepup.pending_unlock(token)
    account = session.get(Account, account_id)
    if unlock is None or account is None or not stepup.unlock_matches(unlock, account):
        return None
    return account


def _after_password(session: Session, account: Account) -> tuple[str, UserOut] | MfaStep:
    schema = _sign_in_allowed(session, account)
    if mfa.is_enabled(account):
        return MfaStep(kind="code", challenge=mfa.issue_challenge(account, "code"))
    if mfa.is_required(session, account):
        return MfaStep(kind="enroll", challenge=mfa.issue_challenge(account, "enroll"))
    return _signed_in(session, account, schema)


def remember_sign_in_place(request: Request, response: Response, token: str, client: str) -> None:
    """A full sign-in: its address and browser become the account's known places; a browser
    app gets (or keeps) its device cookie."""
    claims = tokens.decode(token)
    if claims is None:
        return
    device = stepup.remember(claims.account_id, client, stepup.device_cookie(request))
    if sessions.wants_browser_session(request):
        stepup.set_device_cookie(response, request, device)


def _sign_in_allowed(session: Session, account: Account) -> str | None:
    """403 for a deactivated account or a suspended tenant; the account's tenant schema."""
    if not account.is_active:
        raise Forbidden("Your account has been deactivated. Please contact your administrator.")
    tenant = repository.tenant_of(session, account)
    if tenant is not None and tenant.status != "active":
        raise Forbidden("Access for your organisation is suspended. Please contact support.")
    return tenant.schema_name if tenant else None


def _signed_in(session: Session, account: Account, schema: str | None) -> tuple[str, UserOut]:
    """What a sign-in issues: a bearer token and the user."""
    account.last_login_at = utcnow()
    token = tokens.issue(account_id=account.id, role=account.role, tenant_schema=schema)
    # The login request is not bound to a tenant yet; read the profile from the account's own.
    return token, load_user_of_tenant(session, account, schema)


def login_with_code(session: Session, challenge: str | None, code: str | None) -> tuple[str, UserOut]:
    """A sign-in's second step: the challenge of a right password and a TOTP or recovery code."""
    _, account = mfa.read_challenge(session, challenge, "code")
    if not mfa.is_enabled(account):
        raise Unauthorized(mfa.CHALLENGE_INVALID)
    schema = _sign_in_allowed(session, account)
    mfa.verify_code(session, account, code)
    return _signed_in(session, account, schema)


def enrolment_setup(session: Session, challenge: str | None) -> mfa.Setup:
    """A forced enrolment (an enrolment challenge): the secret to enrol."""
    _, account = mfa.read_challenge(session, challenge, "enroll")
    _sign_in_allowed(session, account)
    return mfa.setup(account)


def enrolment_enable(
    session: Session, challenge: str | None, code: str | None
) -> tuple[str, UserOut, list[str]]:
    """A forced enrolment confirmed with its first code: signed in, and the recovery codes."""
    _, account = mfa.read_challenge(session, challenge, "enroll")
    schema = _sign_in_allowed(session, account)
    codes = mfa.enable(session, account, code)
    token, user = _signed_in(session, account, schema)
    return token, user, codes


def mfa_account(session: Session, principal: Principal) -> Account:
    """The signed-in account, locked for a change of its two-factor settings."""
    account = repository.account_for_update(session, principal.id)
    if account is None:
        raise Unauthorized("Authentication failed. Please log in again.")
    return account


def mfa_status(session: Session, principal: Principal) -> mfa.Status:
    return mfa.status(session, principal.account)


def mfa_setup(session: Session, principal: Principal) -> mfa.Setup:
    return mfa.setup(mfa_account(session, principal))


def mfa_enable(session: Session, principal: Principal, code: str | None) -> list[str]:
    return mfa.enable(session, mfa_account(session, principal), code)


def mfa_disable(session: Session, principal: Principal, password: str | None, code: str | None) -> None:
    account = mfa_account(session, principal)
    mfa.disable(session, account, password, code)
    enqueue_after_commit(session, "mail.mfa_disabled", email=account.email)


def hospital_mfa_policy(session: Session, principal: Principal) -> bool:
    hospital = repository.hospital(session, principal.hospital_id) if principal.hospital_id else None
    if hospital is None:
        raise Forbidden("You do not have permission to access this resource.")
    return hospital.require_doctor_mfa


def set_hospital_mfa_policy(session: Session, principal: Principal, required: bool | None) -> bool:
    """The hospital's rule for its doctors (enrol at next sign-in); audited in its own log."""
    if required is None:
        raise ValidationFailed({"requireForDoctors": "requireForDoctors is required"})
    hospital = repository.hospital(session, principal.hospital_id) if principal.hospital_id else None
    if hospital is None:
        raise Forbidden("You do not have permission to access this resource.")
    if hospital.require_doctor_mfa != required:
        hospital.require_doctor_mfa = required
        signed_out = _sign_out_doctors_without_mfa(session, hospital.id) if required else 0
        audit.record_tenant(
            session,
            action="settings.doctor_mfa_required" if required else "settings.doctor_mfa_optional",
            actor_id=principal.id,
            target_type="hospital",
            target_id=hospital.id,
            detail={"doctorsSignedOut": signed_out} if required else None,
        )
    return hospital.require_doctor_mfa


def _sign_out_doctors_without_mfa(session: Session, hospital_id: uuid.UUID) -> int:
    """When a hospital starts requiring two-factor sign-in, its doctors who have none enrolled
    are signed out everywhere: the rule is asked at sign-in only, so a session opened with the
    password alone would otherwise go on (and renew itself through its refresh cookie) without
    it until it expired. Each signs in again and is sent to enrolment (`mfa.is_required`).

    Moving `password_changed_at` on refuses every token issued before now at the principal check
    (announced to every process by `account_state`, so within a second everywhere, and the live
    socket's periodic re-check ends an open consultation), and refresh refuses a family older
    than it; the families are revoked too, as `_sign_out_everywhere` does. Open reset links stay:
    a reset still needs the emailed link, and the sign-in after it still asks for enrolment.
    Doctors who have two-factor keep their sessions, and the hospital's own account (the one
    making the change, and not a doctor) is not touched: the rule is about its doctors.
    Returns how many doctors were signed out (the audit entry records it, naming no one).
    """
    now = utcnow()
    doctors = repository.doctors_without_mfa_for_update(session, hospital_id)
    for doctor in doctors:
        doctor.password_changed_at = now
    repository.revoke_session_families_of(session, [doctor.id for doctor in doctors], now)
    return len(doctors)


ADMIN_MFA_FIRST = "Set up two-factor sign-in first: sign out and sign in again to enrol."


def require_admin_mfa(principal: Principal) -> None:
    """While two-factor sign-in is required of admins, an admin without it may not use the
    console (a session from before the rule, or an invited admin's sign-up): 403 until it
    enrols (`/api/auth/mfa/setup`, or at its next sign-in)."""
    if (
        principal.role == "admin"
        and get_settings().admin_mfa_required
        and not mfa.is_enabled(principal.account)
    ):
        raise Forbidden(ADMIN_MFA_FIRST)


def logout(principal: Principal) -> None:
    tokens.revoke(principal.claims)


def start_browser_session(session: Session, request: Request, response: Response, token: str) -> str:
    """For a browser app's fresh sign-in (or sign-up) with the token just issued: a new session
    family, its refresh cookie set on `response`, and the short-lived access token to return
    instead (`cara.auth.sessions`). An API client's token is returned unchanged."""
    claims = tokens.decode(token)
    if claims is None or not sessions.wants_browser_session(request):
        return token
    access, refresh_token, app = sessions.start(session, claims)
    sessions.set_cookie(response, request, app, refresh_token)
    return access


# ---------------------------------------------------------------- password reset


def request_password_reset(session: Session, email_raw: str | None, client: str) -> None:
    """Mail a reset link, or for an unknown address a note that it has no account.

    Both paths do the same work (a lookup, a row in the job outbox, the same commit and send)
    and answer the same, so neither the answer nor its timing tells whether the address is
    registered; both are limited per address and per email (`ratelimit.forgot_password`).
    """
    problem = email_error(email_raw)
    if problem:
        raise ValidationFailed({"email": problem})
    email = normalise_email(email_raw or "")
    ratelimit.forgot_password(email, client)
    account = repository.account_by_email(session, email)
    token = secrets.token_urlsafe(32)
    if account is None or not account.is_active:
        # Only the owner of the address reads this mail; the caller learns nothing.
        enqueue_after_commit(session, "mail.password_reset_no_account", email=email)
        return
    reset = PasswordReset(
        account_id=account.id,
        token_hash=_sha256(token),
        expires_at=utcnow() + timedelta(minutes=get_settings().password_reset_ttl_minutes),
    )
    session.add(reset)
    session.flush()
    enqueue_after_commit(session, "mail.password_reset", reset_id=str(reset.id), token=token)


def reset_password(session: Session, token: str | None, password: str | None) -> None:
    invalid = BadRequest("This password reset link is invalid or has expired. Please request a new one.")
    if blank(token):
        raise invalid
    reset = repository.reset_by_hash(session, _sha256(token or ""))
    if reset is None or reset.used_at is not None or reset.expires_at < utcnow():
        raise invalid
    account = session.get(Account, reset.account_id, with_for_update=True)
    if account is None or not account.is_active:
        raise invalid
    minimum = passwords.MIN_LENGTH[account.role]
    if blank(password):
        raise ValidationFailed({"password": "Password is required"})
    if len(password or "") < minimum or len(password or "") > 200:
        raise ValidationFailed({"password": f"Password must be at least {minimum} characters"})
    now = utcnow()
    account.password_hash = passwords.hash_password(password or "")
    # Every token issued before now stops working (cara.auth.principal).
    account.password_changed_at = now
    repository.invalidate_resets(session, account.id, now)
    # The owner proved the address: others' failures on the account no longer ask them for more.
    ratelimit.clear_account(account.email)
    audit.record_platform(
        session,
        action="account.password_reset",
        actor_id=account.id,
        actor_role=account.role,
        target_type="account",
        target_id=account.id,
    )


# ---------------------------------------------------------------- account changes

EMAIL_UNDO_HOURS = 72
EMAIL_CONFIRM_HOURS = 72
WRONG_PASSWORD = "Your current password is incorrect"  # noqa: S105 - a message
LINK_INVALID = "This link is invalid or has expired."
SAME_EMAIL = "This is already your sign-in email"
EMAIL_CHANGED_ELSEWHERE = "Change your sign-in email under Account security: it needs your current password"


def _check_current_password(account: Account, password: str | None, client: str) -> None:
    """The current password, counted with failed sign-ins (a stolen token cannot guess it)."""
    if blank(password):
        raise ValidationFailed({"currentPassword": "Current password is required"})
    ratelimit.check_current_password(account.id, account.email, client)
    if not passwords.verify_password(account.password_hash, password or ""):
        ratelimit.record_current_password_failure(account.id, account.email, client)
        raise ValidationFailed({"currentPassword": WRONG_PASSWORD})


def _sign_out_everywhere(session: Session, account: Account) -> None:
    """Every token issued before now is refused (cara.auth.principal), and open reset links die."""
    now = utcnow()
    account.password_changed_at = now
    repository.invalidate_resets(session, account.id, now)
    # The browser apps' refresh tokens too (a family older than the change is refused anyway).
    repository.revoke_session_families(session, account.id, now)


def _renewed(session: Session, principal: Principal, account: Account) -> tuple[str, UserOut]:
    token = tokens.issue(account_id=account.id, role=account.role, tenant_schema=principal.tenant_schema)
    return token, load_user(session, account)


def change_password(
    session: Session, principal: Principal, current: str | None, new: str | None, client: str
) -> tuple[str, UserOut]:
    """A new password, given the current one; every other session is signed out and the
    address is told. Returns a fresh token for this session."""
    account = repository.account_for_update(session, principal.id)
    if account is None:
        raise Unauthorized("Authentication failed. Please log in again.")
    _check_current_password(account, current, client)
    minimum = passwords.MIN_LENGTH[account.role]
    if blank(new):
        raise ValidationFailed({"newPassword": "Password is required"})
    if len(new or "") < minimum or len(new or "") > 200:
        raise ValidationFailed({"newPassword": f"Password must be at least {minimum} characters"})
    account.password_hash = passwords.hash_password(new or "")
    _sign_out_everywhere(session, account)
    audit.record_platform(
        session,
        action="account.password_changed",
        actor_id=account.id,
        actor_role=account.role,
        target_type="account",
        target_id=account.id,
    )
    enqueue_after_commit(session, "mail.password_changed", email=account.email)
    return _renewed(session, principal, account)


def change_email(
    session: Session, principal: Principal, current: str | None, email_raw: str | None, client: str
) -> tuple[str, UserOut]:
    """A new sign-in email, given the current password. The old address gets a notice with a
    link that undoes the change for 72 hours; every other session is signed out."""
    account = repository.account_for_update(session, principal.id)
    if account is None:
        raise Unauthorized("Authentication failed. Please log in again.")
    _check_current_password(account, current, client)
    problem = email_error(email_raw)
    if problem:
        raise ValidationFailed({"email": problem})
    email = normalise_email(email_raw or "")
    if email == account.email:
        raise ValidationFailed({"email": SAME_EMAIL})
    if repository.email_taken(session, email):
        raise Conflict(EMAIL_TAKEN, fields={"email": EMAIL_TAKEN})
    apply_email_change(session, account, email, actor_id=account.id, actor_role=account.role)
    return _renewed(session, principal, account)


def apply_email_change(
    session: Session, account: Account, email: str, *, actor_id: uuid.UUID, actor_role: str
) -> None:
    """Set the new email, sign every session out, and mail the old address its undo link."""
    token = secrets.token_urlsafe(32)
    change = EmailChange(
        account_id=account.id,
        kind="undo",
        old_email=account.email,
        new_email=email,
        token_hash=_sha256(token),
        expires_at=utcnow() + timedelta(hours=EMAIL_UNDO_HOURS),
    )
    session.add(change)
    account.email = email
    _sign_out_everywhere(session, account)
    try:
        session.flush()
    except IntegrityError as exc:  # a concurrent sign-up took the address first
        raise Conflict(EMAIL_TAKEN, fields={"email": EMAIL_TAKEN}) from exc
    audit.record_platform(
        session,
        action="account.email_changed",
        actor_id=actor_id,
        actor_role=actor_role,
        target_type="account",
        target_id=account.id,
    )
    enqueue_after_commit(session, "mail.email_changed", change_id=str(change.id), token=token)


def undo_email_change(session: Session, token: str | None) -> None:
    """From the old address's link: the old email back, every session signed out."""
    change = repository.email_change_by_hash(session, "undo", _sha256(token or "")) if token else None
    if change is None or change.used_at is not None or change.expires_at < utcnow():
        raise BadRequest(LINK_INVALID)
    account = repository.account_for_update(session, change.account_id)
    if account is None:
        raise BadRequest(LINK_INVALID)
    change.used_at = utcnow()
    if account.email != change.old_email:
        if repository.email_taken(session, change.old_email):
            raise Conflict("Another account now uses your former email. Please contact support.")
        account.email = change.old_email
    _sign_out_everywhere(session, account)
    session.flush()
    audit.record_platform(
        session,
        action="account.email_change_undone",
        actor_id=account.id,
        actor_role=account.role,
        target_type="account",
        target_id=account.id,
    )


def request_email_confirmation(
    session: Session, account: Account, email: str, *, actor_id: uuid.UUID
) -> None:
    """A hospital asks for its doctor's new email. Nothing changes until the new address
    confirms, and the hospital's answer is the same whether or not the address already has an
    account anywhere on the platform: the mail to that address says which case it is."""
    token = secrets.token_urlsafe(32)
    change = EmailChange(
        account_id=account.id,
        kind="confirm",
        old_email=account.email,
        new_email=email,
        token_hash=_sha256(token),
        expires_at=utcnow() + timedelta(hours=EMAIL_CONFIRM_HOURS),
    )
    session.add(change)
    session.flush()
    enqueue_after_commit(session, "mail.email_change_confirm", change_id=str(change.id), token=token)


def confirm_email_change(session: Session, token: str | None) -> None:
    """From the new address's link: the doctor's sign-in email becomes it (then as any change:
    sessions signed out, the old address may undo for 72 hours)."""
    change = repository.email_change_by_hash(session, "confirm", _sha256(token or "")) if token else None
    if change is None or change.used_at is not None or change.expires_at < utcnow():
        raise BadRequest(LINK_INVALID)
    account = repository.account_for_update(session, change.account_id)
    if account is None or account.email != change.old_email:
        raise BadRequest(LINK_INVALID)
    change.used_at = utcnow()
    if repository.email_taken(session, change.new_email):
        raise Conflict(EMAIL_TAKEN, fields={"email": EMAIL_TAKEN})
    apply_email_change(session, account, change.new_email, actor_id=account.id, actor_role=account.role)


def email_change_for_mail(session: Session, change_id: uuid.UUID) -> EmailChange | None:
    return session.get(EmailChange, change_id)


# ---------------------------------------------------------------- hospital email verification

VERIFY_FIRST = "Please verify your email address first: open the link we emailed you."


def start_email_verification(session: Session, account: Account) -> None:
    """A new hospital's email waits for the link mailed to it; other accounts (and hospitals
    where HOSPITAL_EMAIL_VERIFICATION is off) count as verified at once."""
    if account.role != "hospital" or not get_settings().hospital_email_verification:
        account.email_verified_at = utcnow()
        return
    _mail_verification_link(session, account)


def _mail_verification_link(session: Session, account: Account) -> None:
    token = secrets.token_urlsafe(32)
    link = EmailChange(
        account_id=account.id,
        kind="verify",
        old_email=account.email,
        new_email=account.email,
        token_hash=_sha256(token),
        expires_at=utcnow() + timedelta(days=get_settings().unverified_hospital_days),
    )
    session.add(link)
    session.flush()
    enqueue_after_commit(session, "mail.verify_email", change_id=str(link.id), token=token)


def resend_email_verification(session: Session, principal: Principal, client: str) -> None:
    """Another link for a hospital that lost the first (limited like forgot-password)."""
    account = principal.account
    ratelimit.forgot_password(account.email, client)
    if account.email_verified_at is None:
        _mail_verification_link(session, account)


def verify_email(session: Session, token: str | None) -> None:
    link = repository.email_change_by_hash(session, "verify", _sha256(token or "")) if token else None
    if link is None or link.used_at is not None or link.expires_at < utcnow():
        raise BadRequest(LINK_INVALID)
    account = repository.account_for_update(session, link.account_id)
    if account is None or account.email != link.new_email:
        raise BadRequest(LINK_INVALID)
    link.used_at = utcnow()
    if account.email_verified_at is None:
        account.email_verified_at = utcnow()
        audit.record_platform(
            session,
            action="account.email_verified",
            actor_id=account.id,
            actor_role=account.role,
            target_type="account",
            target_id=account.id,
        )


def require_verified_email(account: Account) -> None:
    """A hospital adds doctors and buys plans only once its email is verified (403 before)."""
    unverified = account.role == "hospital" and account.email_verified_at is None
    if unverified and get_settings().hospital_email_verification:
        raise Forbidden(VERIFY_FIRST)


def unverified_hospitals(session: Session, older_than_days: int) -> list[str]:
    """Schemas of hospitals whose account never verified its email within `older_than_days`."""
    return repository.unverified_hospital_schemas(session, utcnow() - timedelta(days=older_than_days))
