"""A hospital manages its own doctors (spec §2 "Manage Doctors", §4, §6, §8 "Doctors").

Every call is made by a hospital principal whose request session is bound to
the hospital's tenant schema. A `hospitalId` sent by the client is compared
with the principal's and never used on its own; a doctor id is looked up only
among the principal's hospital's doctors, so another hospital's ids are 404s.
Services never commit; each change writes an entry to the tenant's audit log.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import pydantic_core
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from cara.analytics import service as analytics
from cara.audit import service as audit
from cara.auth import passwords
from cara.auth import service as auth_service
from cara.auth.principal import Principal, tenant_role
from cara.auth.service import EMAIL_TAKEN, email_taken
from cara.billing.seats import require_doctor_seat, start_trial
from cara.doctors import list_cache, repository
from cara.doctors.schemas import (
    DOCTOR_FORMS,
    DoctorCreate,
    DoctorUpdate,
    HospitalDoctorOut,
    NewDoctor,
)
from cara.doctors.specialties import DEFAULT_SPECIALTY
from cara.kit import listing
from cara.kit.errors import BadRequest, Conflict, NotFound, ValidationFailed
from cara.kit.jobs import enqueue_after_commit
from cara.kit.validation import ChangeSet, normalise_email
from cara.models import Account, DoctorProfile
from cara.models.base import utcnow
from cara.models.tenant import default_availability
from tenants import naming
from tenants.provisioning import ensure_independent_tenant

HOSPITAL_NOT_FOUND = "Hospital not found."
DOCTOR_NOT_FOUND = "Doctor not found."


def own_hospital(principal: Principal, hospital_id: str | None) -> uuid.UUID:
    """The caller's hospital; a `hospitalId` naming any other (or nothing valid) is 404."""
    own = principal.hospital_id
    if own is None:
        raise NotFound(HOSPITAL_NOT_FOUND)
    if hospital_id is not None and hospital_id.strip() != str(own):
        raise NotFound(HOSPITAL_NOT_FOUND)
    return own


def _doctor_id(raw: str) -> uuid.UUID:
    try:
        return uuid.UUID(raw)
    except ValueError as exc:
        raise NotFound(DOCTOR_NOT_FOUND) from exc


def doctor_out(account: Account, profile: DoctorProfile) -> HospitalDoctorOut:
    return HospitalDoctorOut(
        id=str(account.id),
        name=account.name,
        email=account.email,
        phoneNumber=account.phone_number,
        specialty=profile.specialty,
        licenseNumber=profile.license_number,
        experience=profile.experience,
        hospitalId=str(account.hospital_id),
        isActive=account.is_active,
        isHospitalCreated=profile.is_hospital_created,
        country=profile.country,
        state=profile.state,
        education=profile.education,
        certifications=profile.certifications,
        workHistory=profile.work_history,
        availability=profile.availability,
        createdAt=account.created_at,
    )


# ---------------------------------------------------------------- creating a doctor


def create_doctor(
    session: Session,
    body: NewDoctor,
    *,
    hospital: Principal | None,
    acting: Principal | None,
    platform_action: str,
    education: list[Any] | None = None,
    certifications: list[dict[str, Any]] | None = None,
    work_history: list[dict[str, Any]] | None = None,
    availability: list[dict[str, Any]] | None = None,
    password_hash: str | None = None,
) -> tuple[Account, DoctorProfile]:
    """The doctor's login account, profile row and audit entries, for every way a doctor is made.

    With `hospital` (a hospital principal whose session is bound to its tenant) the doctor
    joins that hospital within its plan's seats; without, the doctor is independent, in
    the `independent` tenant, on the free trial. `body` must have passed its form's rules.
    The audit entries name `acting` (whoever is signed in; the new doctor otherwise): the
    tenant's "doctor.created" and the platform's `platform_action` ("doctor.signed_up" for
    registration, "doctor.created" for Manage Doctors). `password_hash` is given when the
    password was hashed earlier (a sign-up finished by its mailed link).
    """
    email = normalise_email(body.email or "")
    if email_taken(session, email):
        raise Conflict(EMAIL_TAKEN, fields={"email": EMAIL_TAKEN})
    if hospital is not None:
        # Locks the hospital's account row until commit: two adds cannot take the last seat.
        require_doctor_seat(session, hospital.account)
        tenant_id, hospital_id = hospital.account.tenant_id, hospital.hospital_id
        tenant_schema = hospital.tenant_schema
    else:
        tenant_id, hospital_id = ensure_independent_tenant(session).id, None
        tenant_schema = naming.INDEPENDENT_SCHEMA

    specialty = (body.specialty or "").strip() or DEFAULT_SPECIALTY
    account = Account(
        email=email,
        password_hash=password_hash or passwords.hash_password(body.password or ""),
        role="doctor",
        name=(body.name or "").strip(),
        phone_number=(body.phone_number or "").strip(),
        specialty=specialty,
        tenant_id=tenant_id,
        hospital_id=hospital_id,
    )
    session.add(account)
    try:
        session.flush()
    except IntegrityError as exc:  # a concurrent registration took the email first
        raise Conflict(EMAIL_TAKEN, fields={"email": EMAIL_TAKEN}) from exc
    profile = DoctorProfile(
        account_id=account.id,
        specialty=specialty,
        license_number=(body.licenseNumber or "").strip(),
        experience=body.experience or 0,
        country=(body.country or "").strip(),
        state=(body.state or "").strip(),
        education=education or [],
        certifications=certifications or [],
        work_history=work_history or [],
        availability=availability or default_availability(),
        is_hospital_created=hospital_id is not None,
        privacy_policy_accepted=bool(body.privacyPolicyAccepted),
    )
    session.add(profile)
    session.flush()
    # Independent doctors start on the free trial; hospital staff rely on their hospital.
    start_trial(session, account)
    actor_id = acting.id if acting else account.id
    audit.record_tenant(
        session, action="doctor.created", actor_id=actor_id, target_type="doctor", target_id=account.id
    )
    audit.record_platform(
        session,
        action=platform_action,
        actor_id=actor_id,
        actor_role=acting.role if acting else "doctor",
        target_type="account",
        target_id=account.id,
        tenant_schema=tenant_schema,
    )
    return account, profile


# ---------------------------------------------------------------- the four operations


def list_doctors(
    session: Session, principal: Principal, hospital_id: str | None, hospital_created: bool | None
) -> list_cache.Encoded:
    """The hospital's doctors by name, encoded as JSON (see `list_cache`)."""
    own = own_hospital(principal, hospital_id)
    key = list_cache.version(session, principal.tenant_schema or "", own, hospital_created)

    def build() -> list[HospitalDoctorOut]:
        rows = repository.list_for_hospital(session, own, hospital_created=hospital_created)
        return [doctor_out(account, profile) for account, profile in rows]

    return list_cache.LISTS.get_or_build(key, build)


PAGE_SIZE = 50
MAX_PAGE_SIZE = 100


def _cursor_of(sort: str, row: tuple[Any, ...]) -> str:
    # (id, name, ..., created_at at index 6): the row of repository.page_for_hospital_async
    key = row[1] if sort.lstrip("-") == "name" else row[6].isoformat()
    return listing.encode_cursor(sort, key, row[0])


def _after(sort: str, cursor: str) -> tuple[Any, uuid.UUID]:
    """The position a cursor holds; a cursor of another order (or garbled) is a 400."""
    cursor_sort, key, ident = listing.decode_cursor(cursor, 3)
    if cursor_sort != sort:
        raise BadRequest(listing.BAD_CURSOR, fields={"cursor": "Invalid cursor"})
    try:
        position: Any = key
        if sort.lstrip("-") == "createdAt":
            position = datetime.fromisoformat(key)
            if position.tzinfo is None:
                raise ValueError("naive time")
        return position, uuid.UUID(ident)
    except ValueError as exc:
        raise BadRequest(listing.BAD_CURSOR, fields={"cursor": "Invalid cursor"}) from exc


async def list_page(
    principal: Principal,
    hospital_id: str | None,
    *,
    hospital_created: bool | None = None,
    q: str | None = None,
    specialty: str | None = None,
    state: str | None = None,
    active: bool | None = None,
    sort: str = "name",
    cursor: str | None = None,
    limit: int = PAGE_SIZE,
) -> bytes:
    """A page of the hospital's doctors (DoctorPage, encoded as JSON): searched (name, email,
    licence number), filtered by specialty, state/province and status, by name or by date added,
    either way. One read on the event loop, under the tenant's database role."""
    own = own_hospital(principal, hospital_id)
    text = (q or "").strip()
    specialty = (specialty or "").strip() or None
    state = (state or "").strip() or None
    if any("\x00" in value for value in (text, specialty or "", state or "")):
        # PostgreSQL text cannot hold NUL: bad input, never a server error.
        raise BadRequest("Search and filters must not contain NUL characters.")
    where = repository.PageFilter(
        hospital_id=own,
        hospital_created=hospital_created,
        like=listing.like_pattern(text) if text else None,
        specialty=specialty,
        state=state,
        active=active,
    )
    schema = principal.tenant_schema
    if schema is None:  # a hospital always has its tenant; the principal check made sure
        raise NotFound(HOSPITAL_NOT_FOUND)
    rows = await repository.page_for_hospital_async(
        schema,
        tenant_role(schema),
        where,
        sort=sort.lstrip("-"),
        descending=sort.startswith("-"),
        after=_after(sort, cursor) if cursor else None,
        limit=limit + 1,
    )
    more = len(rows) > limit
    rows = rows[:limit]
    # Encoded straight from the rows (the database's own values, in DoctorPage's shape): building
    # and validating 50 models cost several times the query.
    items = [
        {
            "_id": ident,
            "name": name,
            "email": email,
            "phoneNumber": phone,
            "specialty": specialty_,
            "licenseNumber": licence,
            "experience": experience,
            "hospitalId": hospital,
            "isActive": is_active,
            "isHospitalCreated": created_by_hospital,
            "country": country,
            "state": province,
            "role": "doctor",
            "createdAt": created_at,
        }
        for (
            ident,
            name,
            email,
            phone,
            hospital,
            is_active,
            created_at,
            specialty_,
            licence,
            experience,
            created_by_hospital,
            country,
            province,
        ) in rows
    ]
    return pydantic_core.to_json({"items": items, "nextCursor": _cursor_of(sort, rows[-1]) if more else None})


def add_doctor(session: Session, principal: Principal, body: DoctorCreate) -> HospitalDoctorOut:
    """Create the doctor's login account in the hospital's tenant, within the plan's limit."""
    own_hospital(principal, body.hospitalId)
    errors = DOCTOR_FORMS["manage_add"].check(body.form_values())
    if errors:
        raise ValidationFailed(dict(errors))
    email = normalise_email(body.email or "")
    holder = auth_service.account_with_email(session, email)
    if holder is not None:
        if holder.hospital_id is not None and holder.hospital_id == principal.hospital_id:
            # One of this hospital's own accounts: its list shows the address already.
            raise Conflict(EMAIL_TAKEN, fields={"email": EMAIL_TAKEN})
        return _address_in_use(session, principal, body, email)
    account, profile = create_doctor(
        session, body, hospital=principal, acting=principal, platform_action="doctor.created"
    )
    return doctor_out(account, profile)


def _address_in_use(
    session: Session, principal: Principal, body: DoctorCreate, email: str
) -> HospitalDoctorOut:
    """An address that already has an account of another tenant is not revealed to the hospital:
    the same checks and work as a new doctor (the plan's seats, the password hashed), the same
    answer's shape, and no account made. The address's owner is told by mail instead, and the
    platform log (admins only) records the attempt."""
    require_doctor_seat(session, principal.account)
    passwords.hash_password(body.password or "")
    now = utcnow()
    specialty = (body.specialty or "").strip() or DEFAULT_SPECIALTY
    account = Account(
        id=uuid.uuid4(),
        email=email,
        role="doctor",
        name=(body.name or "").strip(),
        phone_number=(body.phone_number or "").strip(),
        hospital_id=principal.hospital_id,
        is_active=True,
        created_at=now,
    )
    profile = DoctorProfile(
        account_id=account.id,
        specialty=specialty,
        license_number=(body.licenseNumber or "").strip(),
        experience=body.experience or 0,
        country=(body.country or "").strip(),
        state=(body.state or "").strip(),
        education=[],
        certifications=[],
        work_history=[],
        availability=default_availability(),
        is_hospital_created=True,
    )
    audit.record_platform(
        session,
        action="doctor.add_refused_address_in_use",
        actor_id=principal.id,
        actor_role=principal.role,
        target_type="hospital",
        target_id=principal.hospital_id,
        tenant_schema=principal.tenant_schema,
    )
    enqueue_after_commit(
        session, "mail.doctor_email_in_use", email=email, hospital_name=principal.account.name
    )
    return doctor_out(account, profile)


def update_doctor(
    session: Session, principal: Principal, doctor_id: str, body: DoctorUpdate
) -> HospitalDoctorOut:
    own = own_hospital(principal, body.hospitalId)
    found = repository.get_for_hospital(session, own, _doctor_id(doctor_id), lock=True)
    if found is None:
        raise NotFound(DOCTOR_NOT_FOUND)
    account, profile = found
    if not body.model_fields_set - {"hospitalId"}:
        raise BadRequest("No changes were sent.")

    errors = DOCTOR_FORMS["manage_edit"].check(body.form_values())
    if errors:
        raise ValidationFailed(dict(errors))

    changed = ChangeSet()
    change = changed.set

    if body.name is not None:
        change(account, "name", body.name.strip(), "name")
    # A new sign-in email waits for its address to confirm it (cara.auth.service): the answer is
    # the same whether or not that address has an account anywhere on the platform.
    requested_email: str | None = None
    if body.email is not None:
        email = normalise_email(body.email)
        if email != account.email:
            requested_email = email
    if body.phone_number is not None:
        change(account, "phone_number", body.phone_number.strip(), "phoneNumber")
    if body.specialty is not None:
        change(profile, "specialty", body.specialty.strip(), "specialty")
        account.specialty = profile.specialty  # the admin directory's copy
    if body.licenseNumber is not None:
        change(profile, "license_number", body.licenseNumber.strip(), "licenseNumber")
    if body.experience is not None:
        change(profile, "experience", body.experience, "experience")
    if body.country is not None:
        change(profile, "country", body.country.strip(), "country")
    if body.state is not None:
        change(profile, "state", body.state.strip(), "state")
    status_changed = body.isActive is not None and body.isActive != account.is_active
    if status_changed:
        account.is_active = bool(body.isActive)

    try:
        session.flush()
    except IntegrityError as exc:
        raise Conflict(EMAIL_TAKEN, fields={"email": EMAIL_TAKEN}) from exc
    if changed:
        audit.record_tenant(
            session,
            action="doctor.updated",
            actor_id=principal.id,
            target_type="doctor",
            target_id=account.id,
            detail={"fields": changed},
        )
    if status_changed:
        audit.record_tenant(
            session,
            action="doctor.activated" if account.is_active else "doctor.deactivated",
            actor_id=principal.id,
            target_type="doctor",
            target_id=account.id,
            detail={"isActive": account.is_active},
        )
    if requested_email is not None:
        auth_service.request_email_confirmation(session, account, requested_email, actor_id=principal.id)
        audit.record_tenant(
            session,
            action="doctor.email_change_requested",
            actor_id=principal.id,
            target_type="doctor",
            target_id=account.id,
            detail={"fields": ["email"]},
        )
    return doctor_out(account, profile)


def remove_doctor(session: Session, principal: Principal, doctor_id: str, hospital_id: str | None) -> str:
    """Close the doctor's account: their sign-in (the platform account), profile, certificate
    files and recording uploads are deleted; their consultations stay with the hospital, signed
    notes shown under the name they were signed with (the law keeps a signed record beyond its
    author's account; unsigned drafts go by the hospital's retention rule).

    The tenant rows are deleted here, in the hospital's own schema (the session's, where the
    profile was found), children before parents and before the account: no foreign key from a
    tenant schema into platform.accounts does it (each hospital's keys would make this one
    DELETE visit, and lock, every hospital's tables; cara.models.tenant.account_id_column)."""
    own = own_hospital(principal, hospital_id)
    found = repository.get_for_hospital(session, own, _doctor_id(doctor_id), lock=True)
    if found is None:
        raise NotFound(DOCTOR_NOT_FOUND)
    account, profile = found
    removed_id = account.id
    repository.delete_account_rows(session, removed_id)
    session.expunge(profile)  # deleted above; the unit of work must not touch it again
    session.delete(account)
    session.flush()
    audit.record_tenant(
        session, action="doctor.removed", actor_id=principal.id, target_type="doctor", target_id=removed_id
    )
    audit.record_platform(
        session,
        action="doctor.removed",
        actor_id=principal.id,
        actor_role=principal.role,
        target_type="account",
        target_id=removed_id,
        tenant_schema=principal.tenant_schema,
    )
    analytics.figures_changed(session)  # the overview's doctor count
    return str(removed_id)
