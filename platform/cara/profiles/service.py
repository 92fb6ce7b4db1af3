"""A doctor edits their own profile (spec §2 "Doctor Profile", §4 "Profile").

Texts of each rule are shown next to the field; list entries are addressed as
`certifications.0.name`, `workHistory.1.endDate`, `availability.2.endTime`.
Services never commit.
"""

from __future__ import annotations

import re
import uuid
from datetime import date
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from cara.audit import service as audit
from cara.auth.principal import Principal
from cara.auth.service import EMAIL_CHANGED_ELSEWHERE, EMAIL_TAKEN
from cara.doctors.schemas import DOCTOR_FORMS
from cara.kit.errors import Conflict, NotFound, ValidationFailed
from cara.kit.validation import ChangeSet, FieldErrors, blank, normalise_email
from cara.models import DoctorProfile
from cara.models.tenant import default_availability
from cara.profiles import certificates, repository
from cara.profiles.schemas import AvailabilityEntry, CertificationEntry, ProfileUpdate, WorkHistoryEntry

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


def _date(value: str | None) -> date | None:
    if blank(value):
        return None
    try:
        return date.fromisoformat((value or "").strip())
    except ValueError:
        return None


def _check_date(
    errors: FieldErrors, key: str, value: str | None, *, required: bool, label: str
) -> date | None:
    if blank(value):
        if required:
            errors.add(key, f"{label} is required")
        return None
    parsed = _date(value)
    if parsed is None or len((value or "").strip()) != 10:
        errors.add(key, f"{label} must be a date (YYYY-MM-DD)")
        return None
    if parsed > date.today():
        errors.add(key, f"{label} cannot be in the future")
    return parsed


def _certifications(errors: FieldErrors, entries: list[CertificationEntry]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, entry in enumerate(entries):
        errors.require(f"certifications.{i}.name", entry.name, "Certification name is required")
        _check_date(errors, f"certifications.{i}.date", entry.date, required=False, label="Date obtained")
        out.append(
            {
                "name": (entry.name or "").strip(),
                "issuer": (entry.issuer or "").strip(),
                "date": (entry.date or "").strip(),
                "fileId": (entry.fileId or "").strip() or None,
            }
        )
    return out


def _work_history(errors: FieldErrors, entries: list[WorkHistoryEntry]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, entry in enumerate(entries):
        errors.require(f"workHistory.{i}.hospital", entry.hospital, "Hospital/Organization is required")
        errors.require(f"workHistory.{i}.position", entry.position, "Position is required")
        key = f"workHistory.{i}"
        start = _check_date(errors, f"{key}.startDate", entry.startDate, required=True, label="Start date")
        end = _check_date(errors, f"{key}.endDate", entry.endDate, required=False, label="End date")
        if start and end and end < start:
            errors.add(f"workHistory.{i}.endDate", "End date cannot be before start date")
        out.append(
            {
                "hospital": (entry.hospital or "").strip(),
                "position": (entry.position or "").strip(),
                "startDate": (entry.startDate or "").strip(),
                "endDate": (entry.endDate or "").strip(),
                "description": (entry.description or "").strip(),
            }
        )
    return out


def _availability(errors: FieldErrors, entries: list[AvailabilityEntry]) -> list[dict[str, Any]]:
    """One entry per weekday; the stored list is always the seven days in order."""
    by_day = {d["day"]: d for d in default_availability()}
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        day = (entry.day or "").strip().capitalize()
        if day not in WEEKDAYS:
            errors.add(f"availability.{i}.day", "Unknown day")
            continue
        if day in seen:
            errors.add(f"availability.{i}.day", f"{day} is listed twice")
            continue
        seen.add(day)
        start = (entry.startTime or "").strip() or by_day[day]["startTime"]
        end = (entry.endTime or "").strip() or by_day[day]["endTime"]
        ok = True
        for key, value in ((f"availability.{i}.startTime", start), (f"availability.{i}.endTime", end)):
            if not _TIME.match(value):
                errors.add(key, "Time must be HH:MM")
                ok = False
        available = bool(entry.isAvailable)
        if ok and available and end <= start:
            errors.add(f"availability.{i}.endTime", "End time must be after start time")
        by_day[day] = {"day": day, "startTime": start, "endTime": end, "isAvailable": available}
    return [by_day[d] for d in WEEKDAYS]


def update_profile(session: Session, principal: Principal, body: ProfileUpdate) -> list[str]:
    """Apply the sent fields to the doctor's account and profile; returns the changed field names."""
    account = principal.account
    profile = repository.doctor_profile(session, account.id)
    if profile is None:
        raise NotFound("Doctor profile not found.")

    errors = DOCTOR_FORMS["profile"].check(body.form_values(), sent=body.model_fields_set)
    certs = _certifications(errors, body.certifications) if body.certifications is not None else None
    work = _work_history(errors, body.workHistory) if body.workHistory is not None else None
    availability = _availability(errors, body.availability) if body.availability is not None else None

    files: dict[uuid.UUID, Any] = {}
    if certs is not None:
        wanted: dict[int, uuid.UUID] = {}
        for i, cert in enumerate(certs):
            if cert["fileId"]:
                try:
                    wanted[i] = uuid.UUID(cert["fileId"])
                except ValueError:
                    errors.add(f"certifications.{i}.file", "This file was not found. Please upload it again.")
        files = certificates.owned_files(session, account.id, set(wanted.values()))
        for i, key in wanted.items():
            if key not in files:
                errors.add(f"certifications.{i}.file", "This file was not found. Please upload it again.")
            else:
                # The name shown comes from the stored file, not from the client.
                certs[i]["fileId"] = str(key)
                certs[i]["fileName"] = files[key].file_name
                certs[i]["fileSize"] = files[key].size_bytes
    if errors:
        raise ValidationFailed(dict(errors))

    changed = ChangeSet()
    change = changed.set

    if body.name is not None:
        change(account, "name", body.name.strip(), "name")
    if body.email is not None and normalise_email(body.email) != account.email:
        # The sign-in email changes only with the current password (POST /api/auth/change-email),
        # so a stolen token cannot move the account to another address.
        raise ValidationFailed({"email": EMAIL_CHANGED_ELSEWHERE})
    if body.phoneNumber is not None:
        change(account, "phone_number", body.phoneNumber.strip(), "phoneNumber")
    if body.specialty is not None:
        change(profile, "specialty", body.specialty.strip(), "specialty")
        account.specialty = profile.specialty
    if body.licenseNumber is not None:
        change(profile, "license_number", body.licenseNumber.strip(), "licenseNumber")
    if body.experience is not None:
        change(profile, "experience", body.experience, "experience")
    if certs is not None:
        change(profile, "certifications", certs, "certifications")
        certificates.remove_unreferenced(session, account.id, set(files))
    if work is not None:
        change(profile, "work_history", work, "workHistory")
    if availability is not None:
        change(profile, "availability", availability, "availability")

    try:
        session.flush()
    except IntegrityError as exc:  # a concurrent signup took the email first
        raise Conflict(EMAIL_TAKEN, fields={"email": EMAIL_TAKEN}) from exc
    if changed:
        audit.record_tenant(
            session,
            action="profile.updated",
            actor_id=principal.id,
            target_type="doctor",
            target_id=account.id,
            detail={"fields": changed},
        )
    return changed


def profile_of(session: Session, principal: Principal) -> DoctorProfile | None:
    return repository.doctor_profile(session, principal.id)
