"""/api/consultations: the consultation record. Thin routers; rules in cara.consultations.service."""

from __future__ import annotations

from fastapi import APIRouter, status

from cara.auth.dependencies import DbSession
from cara.auth.principal import DoctorPrincipal
from cara.consultations import service
from cara.consultations.schemas import ConsultationCreate, ConsultationOut
from cara.kit.openapi import error_responses

router = APIRouter(prefix="/consultations", tags=["consultations"])


@router.post(
    "",
    operation_id="consultations_start",
    status_code=status.HTTP_201_CREATED,
    response_model=ConsultationOut,
    responses=error_responses(400, 401, 403, 413, 422),
)
def start_consultation(
    body: ConsultationCreate, principal: DoctorPrincipal, session: DbSession
) -> ConsultationOut:
    """Start a consultation after the doctor confirmed the patient's consent (stored with who and
    when, and audited). The live socket then names it by `id` in its first message."""
    consultation = service.start_consultation(session, principal, body)
    out = service.consultation_out(consultation)
    session.commit()
    return out
