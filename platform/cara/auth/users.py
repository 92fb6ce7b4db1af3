"""The user object (`UserOut`) of an account: what sign-in, session renewal, the current-user
endpoint and profile changes answer with.

Below the service and the browser sessions, which both answer with it (cara.auth.service,
cara.auth.sessions); it imports neither.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from cara.auth import repository
from cara.auth.principal import AUTH_FAILED, Principal, tenant_role
from cara.auth.schemas import UserOut
from cara.kit.db import tenant_session
from cara.kit.errors import Unauthorized
from cara.models import Account, DoctorProfile, Hospital


def load_user(session: Session, account: Account) -> UserOut:
    """The user object; `session` must be bound to the account's tenant for doctors."""
    profile = repository.doctor_profile(session, account.id) if account.role == "doctor" else None
    hospital = repository.hospital(session, account.hospital_id) if account.hospital_id else None
    return user_out(account, profile=profile, hospital=hospital)


def load_user_of_tenant(session: Session, account: Account, schema: str | None) -> UserOut:
    """`load_user` with the profile read from the account's own tenant `schema`, for a request
    whose session is not bound to it (a sign-in, a session renewal: platform sessions)."""
    if schema is None:
        return load_user(session, account)
    tenant_db = tenant_session(schema)
    try:
        return load_user(tenant_db, account)
    finally:
        tenant_db.close()


_PROFILE_KEYS = (
    "specialty",
    "profilePicture",
    "licenseNumber",
    "experience",
    "country",
    "state",
    "education",
    "certifications",
    "workHistory",
    "availability",
    "isHospitalCreated",
)


async def signed_in_user(principal: Principal) -> UserOut:
    """`load_user` for the caller, in one read on the event loop (auth.repository.user_row):
    the same user object, built from the row."""
    schema = principal.tenant_schema
    role = tenant_role(schema) if schema is not None else None
    row = await repository.user_row(principal.id, schema, role)
    if row is None:  # deleted since the check
        raise Unauthorized(AUTH_FAILED)
    (id_, name, email, role_, phone, active, verified, email_verified, hospital_id) = row[:9]
    hospital_name, hospital_verified, hospital_country, hospital_state = row[9:13]
    data: dict[str, Any] = {
        "_id": str(id_),
        "name": name,
        "email": email,
        "role": role_,
        "phoneNumber": phone,
        "isActive": active,
        "isVerified": verified,
        "emailVerified": role_ != "hospital" or email_verified,
        "hospitalId": str(hospital_id) if hospital_id else None,
        "hospitalName": hospital_name,
    }
    if hospital_name is not None and role_ == "hospital":
        data["isVerified"] = hospital_verified
        data["country"], data["state"] = hospital_country, hospital_state
    if len(row) > 14 and row[14] is not None:  # a doctor's profile (same order as user_out)
        data.update(zip(_PROFILE_KEYS, row[14:25], strict=True))
    return UserOut.model_validate(data)


def user_out(account: Account, *, profile: DoctorProfile | None, hospital: Hospital | None) -> UserOut:
    data: dict[str, Any] = {
        "_id": str(account.id),
        "name": account.name,
        "email": account.email,
        "role": account.role,
        "phoneNumber": account.phone_number,
        "isActive": account.is_active,
        "isVerified": account.is_verified,
        # Only hospitals are asked to verify (start_email_verification).
        "emailVerified": account.role != "hospital" or account.email_verified_at is not None,
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
