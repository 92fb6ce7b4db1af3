"""Rules of sign-up, sign-in and password reset. Services never commit.

Validation texts are the spec's (§5); the web app shows them next to fields.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from cara.audit import service as audit
from cara.auth import passwords, ratelimit, repository, tokens
from cara.auth.principal import Principal
from cara.auth.schemas import LoginRequest, SignupRequest, UserOut
from cara.billing.access import require_doctor_seat, start_trial
from cara.config import get_settings
from cara.doctors.specialties import SPECIALTIES
from cara.kit.db import tenant_session
from cara.kit.errors import BadRequest, Conflict, Forbidden, Unauthorized, ValidationFailed
from cara.kit.validation import FieldErrors, blank, email_error, normalise_email, phone_digits_ok, url_ok
from cara.models import Account, DoctorProfile, Hospital, PasswordReset
from cara.models.base import utcnow
from cara.models.tenant import default_availability
from tenants import naming
from tenants.provisioning import ensure_independent_tenant, provision_hospital_tenant
from workers.queue import enqueue_after_commit

ROLES = ("doctor", "hospital", "admin")
EMAIL_TAKEN = "An account with this email already exists."
BAD_CREDENTIALS = "Invalid email or password"
MIN_PASSWORD = {"doctor": 6, "hospital": 8, "admin": 8}


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
    errors = FieldErrors()
    if role not in ROLES:
        errors.add("role", "Invalid role")
        return errors
    errors.require("name", req.name, "Name is required")
    errors.add("email", email_error(req.email))
    if errors.require("password", req.password, "Password is required"):
        minimum = MIN_PASSWORD[role]
        if len(req.password or "") < minimum:
            errors.add("password", f"Password must be at least {minimum} characters")
        elif len(req.password or "") > 200:
            errors.add("password", "Password is too long")
    errors.require("phoneNumber", req.phoneNumber, "Phone number is required")

    if role == "doctor":
        if blank(req.specialty):
            errors.add("specialty", "Specialty is required")
        elif (req.specialty or "").strip() not in SPECIALTIES:
            errors.add("specialty", "Invalid specialty")
        errors.require("licenseNumber", req.licenseNumber, "License number is required")
        errors.require("country", req.country, "Country is required")
        errors.require("state", req.state, "State is required")
        if req.experience is not None and req.experience < 0:
            errors.add("experience", "Experience cannot be negative")
        elif req.experience is not None and req.experience > 80:
            errors.add("experience", "Experience must be 80 years or less")
        if not req.privacyPolicyAccepted:
            errors.add("privacyPolicyAccepted", "You must accept the privacy policy")
    elif role == "hospital":
        errors.require("address", req.address, "Address is required")
        errors.require("registrationNumber", req.registrationNumber, "Registration number is required")
        errors.require("country", req.country, "Country is required")
        errors.require("state", req.state, "State is required")
        if req.type is not None and req.type not in ("private", "public"):
            errors.add("type", "Type must be private or public")
        if req.capacity is not None and req.capacity < 0:
            errors.add("capacity", "Capacity cannot be negative")
        elif req.capacity is not None and req.capacity > 1_000_000:
            errors.add("capacity", "Capacity must be 1,000,000 beds or fewer")
        if not blank(req.website) and not url_ok(req.website or ""):
            errors.add("website", "Website must be a valid URL")
        if not req.privacyPolicyAccepted:
            errors.add("privacyPolicyAccepted", "You must accept the privacy policy.")
    elif req.phoneNumber and not phone_digits_ok(req.phoneNumber):
        errors.add("phoneNumber", "Invalid phone number format")
    return errors


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


def signup(
    session: Session, req: SignupRequest, plan: SignupPlan, acting: Principal | None
) -> tuple[str, UserOut]:
    """Create the account (and hospital tenant or doctor profile) in `session`.

    `session` must be bound to `plan.tenant_schema` for doctors.
    """
    email = normalise_email(req.email or "")
    if repository.email_taken(session, email):
        raise Conflict(EMAIL_TAKEN, fields={"email": EMAIL_TAKEN})

    invitation = None
    if plan.role == "admin":
        invitation = _check_invitation(session, req.invitationToken, email)

    account = Account(
        email=email,
        password_hash=passwords.hash_password(req.password or ""),
        role=plan.role,
        name=(req.name or "").strip(),
        phone_number=(req.phoneNumber or "").strip(),
        specialty=(req.specialty or "").strip() if plan.role == "doctor" else None,
    )
    hospital: Hospital | None = None
    profile: DoctorProfile | None = None

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
    elif plan.role == "doctor":
        if plan.tenant_schema == naming.INDEPENDENT_SCHEMA:
            tenant = ensure_independent_tenant(session)
            account.tenant_id = tenant.id
        else:
            assert acting is not None
            # The same seat rule as /api/doctors/new-doctor: within the hospital's plan.
            require_doctor_seat(session, acting.account)
            account.tenant_id = acting.account.tenant_id
            account.hospital_id = acting.hospital_id
    session.add(account)
    try:
        session.flush()
    except IntegrityError as exc:  # a concurrent signup took the email first
        raise Conflict(EMAIL_TAKEN, fields={"email": EMAIL_TAKEN}) from exc

    if plan.role == "doctor":
        profile = DoctorProfile(
            account_id=account.id,
            specialty=(req.specialty or "").strip(),
            license_number=(req.licenseNumber or "").strip(),
            experience=req.experience or 0,
            country=(req.country or "").strip(),
            state=(req.state or "").strip(),
            education=list(req.education or []),
            certifications=[c.model_dump() for c in req.certifications or []],
            work_history=[w.model_dump() for w in req.workHistory or []],
            availability=[a.model_dump() for a in req.availability]
            if req.availability
            else default_availability(),
            is_hospital_created=bool(req.isHospitalCreated),
            privacy_policy_accepted=bool(req.privacyPolicyAccepted),
        )
        session.add(profile)
        session.flush()
        # Independent doctors start on the free trial; hospital staff rely on their hospital.
        start_trial(session, account)
        audit.record_tenant(
            session,
            action="doctor.created",
            actor_id=acting.id if acting else account.id,
            target_type="doctor",
            target_id=account.id,
        )
    if invitation is not None:
        invitation.accepted_at = utcnow()

    audit.record_platform(
        session,
        action=f"{plan.role}.signed_up",
        actor_id=acting.id if acting else account.id,
        actor_role=acting.role if acting else plan.role,
        target_type="account",
        target_id=account.id,
        tenant_schema=plan.tenant_schema,
    )
    token = tokens.issue(account_id=account.id, role=account.role, tenant_schema=plan.tenant_schema)
    return token, user_out(account, profile=profile, hospital=hospital)


def _check_invitation(session: Session, token: str | None, email: str) -> Any:
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


# ---------------------------------------------------------------- sign-in


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


def login(session: Session, req: LoginRequest, client: str) -> tuple[str, UserOut]:
    email, password, role = validate_login(req)
    ratelimit.check(email, client)
    account = repository.account_by_email(session, email)
    ok = passwords.verify_password(account.password_hash if account else None, password)
    if account is None or not ok or account.role != role:
        ratelimit.record_failure(email, client)
        raise Unauthorized(BAD_CREDENTIALS)
    ratelimit.clear(email, client)
    if passwords.needs_rehash(account.password_hash):
        account.password_hash = passwords.hash_password(password)
    if not account.is_active:
        raise Forbidden("Your account has been deactivated. Please contact your administrator.")
    tenant = repository.tenant_of(session, account)
    if tenant is not None and tenant.status != "active":
        raise Forbidden("Access for your organisation is suspended. Please contact support.")
    account.last_login_at = utcnow()
    schema = tenant.schema_name if tenant else None
    token = tokens.issue(account_id=account.id, role=account.role, tenant_schema=schema)
    if schema is None:
        return token, load_user(session, account)
    # The login request is not bound to a tenant yet; read the profile from the account's own.
    tenant_db = tenant_session(schema)
    try:
        return token, load_user(tenant_db, account)
    finally:
        tenant_db.close()


def logout(principal: Principal) -> None:
    tokens.revoke(principal.claims)


# ---------------------------------------------------------------- current user


def load_user(session: Session, account: Account) -> UserOut:
    """The user object; `session` must be bound to the account's tenant for doctors."""
    profile = repository.doctor_profile(session, account.id) if account.role == "doctor" else None
    hospital = repository.hospital(session, account.hospital_id) if account.hospital_id else None
    return user_out(account, profile=profile, hospital=hospital)


def user_out(account: Account, *, profile: DoctorProfile | None, hospital: Hospital | None) -> UserOut:
    data: dict[str, Any] = {
        "_id": str(account.id),
        "name": account.name,
        "email": account.email,
        "role": account.role,
        "phoneNumber": account.phone_number,
        "isActive": account.is_active,
        "isVerified": account.is_verified,
        "hospitalId": str(account.hospital_id) if account.hospital_id else None,
        "hospitalName": hospital.name if hospital else None,
    }
    if hospital is not None and account.role == "hospital":
        data["isVerified"] = hospital.is_verified
        data["country"], data["state"] = hospital.country, hospital.state
    if profile is not None:
        data.update(
            specialty=profile.specialty,
            profilePicture=profile.profile_picture,
            licenseNumber=profile.license_number,
            experience=profile.experience,
            country=profile.country,
            state=profile.state,
            education=profile.education,
            certifications=profile.certifications,
            workHistory=profile.work_history,
            availability=profile.availability,
            isHospitalCreated=profile.is_hospital_created,
        )
    return UserOut.model_validate(data)


# ---------------------------------------------------------------- password reset


def request_password_reset(session: Session, email_raw: str | None) -> None:
    """Create a reset token and mail it. Unknown emails do nothing, visibly the same."""
    problem = email_error(email_raw)
    if problem:
        raise ValidationFailed({"email": problem})
    account = repository.account_by_email(session, normalise_email(email_raw or ""))
    if account is None or not account.is_active:
        return
    token = secrets.token_urlsafe(32)
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
    minimum = MIN_PASSWORD[account.role]
    if blank(password):
        raise ValidationFailed({"password": "Password is required"})
    if len(password or "") < minimum or len(password or "") > 200:
        raise ValidationFailed({"password": f"Password must be at least {minimum} characters"})
    now = utcnow()
    account.password_hash = passwords.hash_password(password or "")
    # Every token issued before now stops working (cara.auth.principal).
    account.password_changed_at = now
    repository.invalidate_resets(session, account.id, now)
    audit.record_platform(
        session,
        action="account.password_reset",
        actor_id=account.id,
        actor_role=account.role,
        target_type="account",
        target_id=account.id,
    )


def new_invitation_token() -> tuple[str, str]:
    token = secrets.token_urlsafe(32)
    return token, _sha256(token)
