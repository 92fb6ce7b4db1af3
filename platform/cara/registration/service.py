"""Rules of sign-up (doctor, hospital, invited admin) and of admin invitations. Services never commit.

POST /api/auth/signup is routed from `cara.registration.endpoints` and POST
/api/admin/invitations from `cara.admin_console.endpoints` (with the rest of /api/admin),
each a thin call into this module. Validation texts are the spec's (§5); the web app shows
them next to fields.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from cara.analytics import service as analytics
from cara.audit import service as audit
from cara.auth import passwords, tokens
from cara.auth.principal import Principal
from cara.auth.schemas import UserOut
from cara.auth.service import EMAIL_TAKEN, email_taken, start_email_verification, user_out
from cara.config import get_settings
from cara.doctors.service import create_doctor
from cara.kit import throttle
from cara.kit.errors import BadRequest, Conflict, Forbidden, ValidationFailed
from cara.kit.jobs import enqueue_after_commit
from cara.kit.validation import FieldErrors, blank, email_error, normalise_email
from cara.models import Account, AdminInvitation, Hospital, PendingSignup
from cara.models.base import utcnow
from cara.registration import repository
from cara.registration.schemas import (
    SIGNUP_FORMS,
    InvitationOut,
    SignupPending,
    SignupPendingData,
    SignupRequest,
)
from tenants import naming
from tenants.provisioning import provision_hospital_tenant


def _sha256(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


@dataclass(frozen=True)
class SignupPlan:
    """Where a new account will live, decided before the session is opened."""

    role: str
    tenant_schema: str | None
    new_hospital_tenant: bool


# ---------------------------------------------------------------- sign-up


def validate_signup(req: SignupRequest) -> FieldErrors:
    role = (req.role or "doctor").strip().lower()
    if role not in SIGNUP_FORMS:
        return FieldErrors(role="Invalid role")
    return SIGNUP_FORMS[role].check(req.form_values())


def plan_signup(session: Session, req: SignupRequest, acting: Principal | None) -> SignupPlan:
    """Validate and decide the tenant. Raises before anything is written."""
    errors = validate_signup(req)
    if errors:
        raise ValidationFailed(dict(errors))
    role = (req.role or "doctor").strip().lower()
    if role == "hospital":
        return SignupPlan(role, naming.new_hospital_schema(), True)
    if role == "admin":
        return SignupPlan(role, None, False)
    if req.isHospitalCreated:
        # A doctor joins a hospital's tenant only when that hospital itself
        # registers them: the client's hospitalId alone proves nothing.
        if acting is None or acting.role != "hospital" or acting.hospital_id is None:
            raise Forbidden("Only a signed-in hospital can register a doctor on its behalf.")
        if req.hospitalId and req.hospitalId != str(acting.hospital_id):
            raise Forbidden("You can only add doctors to your own hospital.")
        return SignupPlan(role, acting.tenant_schema, False)
    return SignupPlan(role, naming.INDEPENDENT_SCHEMA, False)


def limit_signup(plan: SignupPlan, acting: Principal | None, client: str) -> None:
    """Abuse limits of sign-up, counted once the form is valid (cara.kit.throttle).

    Anonymous sign-ups per client address; a hospital's also per address and in total on the
    platform, since each creates a schema and a database role. A signed-in hospital adding its
    own doctors is bounded by its plan's seats instead.
    """
    if acting is not None and acting.role == "hospital" and plan.role == "doctor":
        return
    settings = get_settings()
    throttle.hit("signup-address", settings.rate_limit_signup_address, client)
    if plan.new_hospital_tenant:
        throttle.hit("hospital-signup-address", settings.rate_limit_hospital_signup_address, client)
        throttle.hit(
            "hospital-signups",
            settings.rate_limit_hospital_signups,
            "platform",
            message="Too many new hospitals are being registered. Please try again in {wait}.",
        )


# ---------------------------------------------------------------- anonymous sign-up, confirmed by mail
#
# Someone signing themselves up (a doctor or a hospital, no bearer token) is answered the same
# whether the email is free or already has an account, so sign-up cannot tell a stranger who uses
# Cara. Nothing is created at first: the form waits in `pending_signups`, and the mailed link
# creates the account (`finish_signup`). A taken address gets a mail to its owner instead.

PENDING_MESSAGE = "Check your email: we sent a link to finish creating your account."
LINK_INVALID = "This link is invalid or has expired. Please sign up again."


def is_confirmed_by_mail(plan: SignupPlan, acting: Principal | None) -> bool:
    """Sign-ups that wait for their mailed link: a doctor or hospital signing themselves up.
    A hospital adding its doctor and an invited admin (whose invitation went to that address)
    are made at once."""
    return acting is None and plan.role in ("doctor", "hospital")


def start_signup(session: Session, req: SignupRequest, plan: SignupPlan) -> SignupPending:
    """Keep the form and mail its link, or tell the address's owner it already has an account.

    The password is hashed on both paths so the answer takes as long either way. Past
    RATE_LIMIT_SIGNUP_EMAIL nothing is mailed to that address, and the answer is still the same.
    """
    email = normalise_email(req.email or "")
    password_hash = passwords.hash_password(req.password or "")
    answer = SignupPending(message=PENDING_MESSAGE, data=SignupPendingData(email=email))
    if not throttle.allow("signup-email", get_settings().rate_limit_signup_email, email):
        return answer
    if email_taken(session, email):
        enqueue_after_commit(session, "mail.signup_email_in_use", email=email)
        return answer
    token, token_hash = new_invitation_token()
    pending = PendingSignup(
        email=email,
        role=plan.role,
        form=req.model_dump(mode="json", exclude={"password", "invitationToken"}, exclude_none=True),
        password_hash=password_hash,
        token_hash=token_hash,
        expires_at=utcnow() + timedelta(hours=get_settings().signup_link_hours),
    )
    session.add(pending)
    session.flush()
    enqueue_after_commit(session, "mail.signup_link", pending_id=str(pending.id), token=token)
    return answer


def take_pending_signup(
    session: Session, token: str | None
) -> tuple[PendingSignup, SignupRequest, SignupPlan]:
    """The pending sign-up of a mailed link, locked until commit (400 when unknown, used or
    expired), with its form and where the account will live. Its rules were checked when it
    was sent; the email may have been taken since, which `signup` answers with 409."""
    pending = repository.pending_signup_by_hash(session, _sha256(token)) if token else None
    if pending is None or pending.used_at is not None or pending.expires_at <= utcnow():
        raise BadRequest(LINK_INVALID)
    req = SignupRequest.model_validate({**pending.form, "role": pending.role})
    if pending.role == "hospital":
        plan = SignupPlan("hospital", naming.new_hospital_schema(), True)
    else:
        plan = SignupPlan("doctor", naming.INDEPENDENT_SCHEMA, False)
    return pending, req, plan


def signup(
    session: Session,
    req: SignupRequest,
    plan: SignupPlan,
    acting: Principal | None,
    *,
    confirmed: PendingSignup | None = None,
) -> tuple[str, UserOut]:
    """Create the account (and hospital tenant or doctor profile) in `session`.

    `session` must be bound to `plan.tenant_schema` for doctors. `confirmed` is the pending
    sign-up whose mailed link was followed: its password hash is used and its email counts as
    verified (the link proved it).
    """
    password_hash = confirmed.password_hash if confirmed is not None else None
    if plan.role == "doctor":
        employer = acting if plan.tenant_schema != naming.INDEPENDENT_SCHEMA else None
        doctor, profile = create_doctor(
            session,
            req,
            hospital=employer,
            acting=acting,
            password_hash=password_hash,
            platform_action="doctor.signed_up",
            education=list(req.education or []),
            certifications=[c.model_dump() for c in req.certifications or []],
            work_history=[w.model_dump() for w in req.workHistory or []],
            availability=[a.model_dump() for a in req.availability or []],
        )
        analytics.figures_changed(session)
        token = tokens.issue(account_id=doctor.id, role=doctor.role, tenant_schema=plan.tenant_schema)
        return token, user_out(doctor, profile=profile, hospital=None)

    email = normalise_email(req.email or "")
    if email_taken(session, email):
        raise Conflict(EMAIL_TAKEN, fields={"email": EMAIL_TAKEN})
    invitation = check_invitation(session, req.invitationToken, email) if plan.role == "admin" else None

    account = Account(
        email=email,
        password_hash=password_hash or passwords.hash_password(req.password or ""),
        role=plan.role,
        name=(req.name or "").strip(),
        phone_number=(req.phoneNumber or "").strip(),
    )
    hospital: Hospital | None = None
    if plan.role == "hospital":
        tenant = provision_hospital_tenant(session, plan.tenant_schema)
        hospital = Hospital(
            tenant_id=tenant.id,
            name=account.name,
            email=email,
            phone_number=account.phone_number,
            address=(req.address or "").strip(),
            type=req.type or "private",
            registration_number=(req.registrationNumber or "").strip(),
            capacity=req.capacity or 0,
            country=(req.country or "").strip(),
            state=(req.state or "").strip(),
            website=(req.website or "").strip() or None,
        )
        session.add(hospital)
        session.flush()
        account.tenant_id, account.hospital_id = tenant.id, hospital.id
    session.add(account)
    try:
        session.flush()
    except IntegrityError as exc:  # a concurrent signup took the email first
        raise Conflict(EMAIL_TAKEN, fields={"email": EMAIL_TAKEN}) from exc
    if invitation is not None:
        invitation.accepted_at = utcnow()
    if confirmed is not None:
        account.email_verified_at = utcnow()
    else:
        start_email_verification(session, account)

    audit.record_platform(
        session,
        action=f"{plan.role}.signed_up",
        actor_id=acting.id if acting else account.id,
        actor_role=acting.role if acting else plan.role,
        target_type="account",
        target_id=account.id,
        tenant_schema=plan.tenant_schema,
    )
    if plan.role == "hospital":
        analytics.figures_changed(session)
    token = tokens.issue(account_id=account.id, role=account.role, tenant_schema=plan.tenant_schema)
    return token, user_out(account, profile=None, hospital=hospital)


# ---------------------------------------------------------------- admin invitations


def new_invitation_token() -> tuple[str, str]:
    """A fresh invitation token and the hash that is stored in its place."""
    token = secrets.token_urlsafe(32)
    return token, _sha256(token)


def invite_admin(session: Session, principal: Principal, email_raw: str | None) -> InvitationOut:
    """Invite someone to become an admin: the link is mailed after commit and returned.

    The invitation is for that email only, used once, and lapses after
    ADMIN_INVITATION_TTL_HOURS.
    """
    problem = email_error(email_raw)
    if problem:
        raise ValidationFailed({"email": problem})
    email = normalise_email(email_raw or "")
    if email_taken(session, email):
        raise Conflict(EMAIL_TAKEN, fields={"email": "Already registered"})
    token, token_hash = new_invitation_token()
    settings = get_settings()
    invitation = AdminInvitation(
        email=email,
        token_hash=token_hash,
        invited_by=principal.id,
        expires_at=utcnow() + timedelta(hours=settings.admin_invitation_ttl_hours),
    )
    session.add(invitation)
    session.flush()
    audit.record_platform(
        session,
        action="admin.invited",
        actor_id=principal.id,
        actor_role=principal.role,
        target_type="admin_invitation",
        target_id=invitation.id,
    )
    enqueue_after_commit(session, "mail.admin_invitation", invitation_id=str(invitation.id), token=token)
    return InvitationOut(
        email=email,
        expiresAt=invitation.expires_at,
        invitationUrl=f"{settings.public_base_url}/admin-register?invitation={token}",
    )


def check_invitation(session: Session, token: str | None, email: str) -> AdminInvitation:
    """The unused, unexpired invitation for `email` with this token; 403 otherwise."""
    refused = Forbidden(
        "Admin registration requires a valid invitation from an existing administrator.",
        fields={"invitationToken": "A valid invitation is required"},
    )
    if blank(token):
        raise refused
    invitation = repository.invitation_by_hash(session, _sha256(token or ""))
    if (
        invitation is None
        or invitation.accepted_at is not None
        or invitation.expires_at < utcnow()
        or invitation.email != email
    ):
        raise refused
    return invitation
