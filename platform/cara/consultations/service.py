"""The rules of the consultation record. Services never commit: the endpoint does.

A consultation starts with the patient's consent (`start_consultation`); the live relay then
opens it by id (`open_for_live`) and stores its transcript lines against it. Ids of another
tenant or doctor are answered as not found, never as forbidden.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from cara.audit.service import record_tenant
from cara.auth.principal import NO_PERMISSION, Principal
from cara.config import get_settings
from cara.consultations import repository
from cara.consultations.schemas import (
    CONSOLES,
    ConsentOut,
    ConsultationCreate,
    ConsultationOut,
    PatientReference,
)
from cara.kit.db import session_scope
from cara.kit.errors import Forbidden, NotFound, ValidationFailed
from cara.models import Consultation
from cara.models.base import utcnow
from cara.subscriptions.service import grants_clinical_access

NOT_FOUND = "Consultation not found."
CONSENT_REQUIRED = "The patient's consent is required before the consultation starts."
UNKNOWN_CONSOLE = "Unknown console."
NEEDS_SUBSCRIPTION = "An active subscription is required to use Cara. Please choose a plan."
DEFAULT_RETENTION_DAYS = 30


@dataclass(frozen=True)
class RecordPolicy:
    consent_mandatory: bool = True
    retention_days: int = DEFAULT_RETENTION_DAYS


def _doctor(principal: Principal) -> None:
    if principal.role != "doctor":
        raise Forbidden(NO_PERMISSION)


def _may_start(principal: Principal) -> None:
    """Doctors with clinical access (spec §6) start consultations; the live socket checks again."""
    _doctor(principal)
    # Subscriptions are platform rows: read them outside the caller's tenant session.
    with session_scope() as platform:
        if not grants_clinical_access(platform, principal.account):
            raise Forbidden(NEEDS_SUBSCRIPTION)


def settings_owner(principal: Principal) -> str:
    """Whose settings apply: the hospital's (one row per hospital schema), or the independent
    doctor's own (many doctors share the independent schema)."""
    if principal.tenant_kind == "hospital":
        return "hospital"
    return str(principal.id)


def policy(session: Session, principal: Principal) -> RecordPolicy:
    row = repository.settings_row(session, settings_owner(principal))
    if row is None:
        return RecordPolicy()
    return RecordPolicy(consent_mandatory=row.consent_mandatory, retention_days=row.retention_days)


def parse_id(value: object) -> uuid.UUID:
    """A consultation id from a path or message; anything that is not a UUID is simply not found."""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except (TypeError, ValueError, AttributeError) as exc:
        raise NotFound(NOT_FOUND) from exc


def patient_reference_json(reference: PatientReference | None) -> dict[str, Any] | None:
    if reference is None:
        return None
    data = {k: (v.strip() if isinstance(v, str) else v) for k, v in reference.model_dump().items()}
    data = {k: v for k, v in data.items() if v not in (None, "")}
    return data or None


def start_consultation(session: Session, principal: Principal, body: ConsultationCreate) -> Consultation:
    """Create a consultation after the doctor confirmed the patient's consent (stored and audited).

    Where the tenant made consent not mandatory, a consultation may start without the click;
    its consent is then recorded as the tenant's policy."""
    _may_start(principal)
    console = body.console.strip().lower()
    if console not in CONSOLES:
        raise ValidationFailed({"console": UNKNOWN_CONSOLE})
    rules = policy(session, principal)
    if not body.consent and rules.consent_mandatory:
        raise ValidationFailed({"consent": CONSENT_REQUIRED}, message=CONSENT_REQUIRED)
    now = utcnow()
    consultation = repository.add_consultation(
        session,
        Consultation(
            doctor_account_id=principal.id,
            console=console,
            model=get_settings().gemini_live_model,
            started_at=now,
            consent_basis="doctor_confirmed" if body.consent else "tenant_policy",
            consent_by_account_id=principal.id if body.consent else None,
            consent_at=now,
            patient_reference=patient_reference_json(body.patientReference),
            state="in_progress",
        ),
    )
    record_tenant(
        session,
        action="consultation.consent",
        actor_id=principal.id,
        target_type="consultation",
        target_id=consultation.id,
        detail={"basis": consultation.consent_basis, "console": console},
    )
    return consultation


def open_for_live(session: Session, principal: Principal, consultation_id: object) -> Consultation:
    """The consultation the live relay may stream into: this doctor's own (tenant + doctor), with
    consent, not signed. Anything else raises NotFound."""
    if principal.role != "doctor":
        raise NotFound(NOT_FOUND)
    consultation = repository.doctor_consultation(session, principal.id, parse_id(consultation_id))
    if consultation is None or consultation.consent_basis is None or consultation.state == "signed":
        raise NotFound(NOT_FOUND)
    return consultation


def consultation_out(consultation: Consultation, line_count: int = 0) -> ConsultationOut:
    duration = None
    if consultation.ended_at is not None:
        duration = max(0, int((consultation.ended_at - consultation.started_at).total_seconds()))
    reference = consultation.patient_reference
    return ConsultationOut(
        id=consultation.id,
        console=consultation.console,
        state=display_state(consultation.state, consultation.ended_at is not None),  # type: ignore[arg-type]
        title=consultation.title,
        startedAt=consultation.started_at,
        endedAt=consultation.ended_at,
        durationSeconds=duration,
        lineCount=line_count,
        patientReference=PatientReference.model_validate(reference) if reference else None,
        consent=ConsentOut(
            basis=consultation.consent_basis,  # type: ignore[arg-type]
            givenBy=consultation.consent_by_account_id,
            givenAt=consultation.consent_at,
        ),
    )


def display_state(state: str, ended: bool) -> str:
    """An ended consultation without a signed note is a draft, whatever was generated."""
    if state == "in_progress" and ended:
        return "draft"
    return state
