"""POST /api/summarize (spec §7): a summary or report draft of a conversation."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from cara.auth.dependencies import DbSession
from cara.auth.principal import AnyPrincipal, DoctorPrincipal
from cara.consultations.schemas import CONSOLES, DraftOut
from cara.consultations.service import note_templates as templates
from cara.kit.errors import ValidationFailed
from cara.kit.openapi import error_responses
from cara.live.permission import check_assistant_permission
from cara.plans.service import REPORT_DRAFTS
from cara.summaries import service
from cara.summaries.schemas import (
    DRAFT_LABEL,
    SummarizeRequest,
    SummaryOut,
    TemplateOut,
    TemplateSectionOut,
)

router = APIRouter(tags=["assistant"])


@router.post(
    "/summarize",
    operation_id="summarize",
    response_model=SummaryOut,
    # The spec's answer has no `draft`: it appears only for a consultation's draft.
    response_model_exclude_unset=True,
    responses=error_responses(400, 401, 403, 404, 413, 422, 429, 502, 503, 504),
)
def summarize(body: SummarizeRequest, principal: AnyPrincipal, session: DbSession) -> SummaryOut:
    """Summarise a conversation (or draft a report, optionally on a focus topic); waits up to 30 s.
    With `consultationId`, the worker drafts from that consultation's stored transcript and keeps
    the draft on it (another doctor's id is 404)."""
    check_assistant_permission(principal, "summary", needs=REPORT_DRAFTS if body.kind == "report" else None)
    if body.kind == "note" and body.consultationId is None:
        raise ValidationFailed(
            {"consultationId": service.NOTE_NEEDS_CONSULTATION}, message=service.NOTE_NEEDS_CONSULTATION
        )
    service.spend_draft(principal)
    job = service.job_for(body, session, principal)
    session.rollback()  # nothing held open while the worker runs
    result = service.request_result(job)
    out = SummaryOut(summary=str(result["summary"]), kind=body.kind, label=DRAFT_LABEL)
    if result.get("draft"):
        out.draft = DraftOut.model_validate(result["draft"])
    return out


UNKNOWN_CONSOLE = "Unknown console."


@router.get(
    "/templates",
    operation_id="listTemplates",
    response_model=list[TemplateOut],
    responses=error_responses(401, 403, 422),
)
def list_templates(
    principal: DoctorPrincipal, console: Annotated[str, Query(max_length=40)]
) -> list[TemplateOut]:
    """The note templates offered in a console, the console's default first."""
    if console not in CONSOLES:
        raise ValidationFailed({"console": UNKNOWN_CONSOLE}, message=UNKNOWN_CONSOLE)
    default = templates.default_for(console)
    offered = sorted(templates.for_console(console), key=lambda t: t.id != default.id)
    return [
        TemplateOut(
            id=t.id,
            version=t.version,
            title=t.title,
            loinc=t.loinc,
            structured=t.radiology,
            default=t.id == default.id,
            sections=[
                TemplateSectionOut(key=s.key, heading=s.heading, instruction=s.instruction)
                for s in t.sections
            ],
        )
        for t in offered
    ]
