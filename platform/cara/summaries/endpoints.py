"""POST /api/summarize (spec §7): a summary or report draft of a conversation."""

from __future__ import annotations

from fastapi import APIRouter

from cara.auth.principal import AnyPrincipal
from cara.kit.openapi import error_responses
from cara.live.permission import check_assistant_permission
from cara.summaries import service
from cara.summaries.schemas import SummarizeRequest, SummaryOut

router = APIRouter(tags=["assistant"])


@router.post(
    "/summarize",
    operation_id="summarize",
    response_model=SummaryOut,
    responses=error_responses(400, 401, 403, 413, 422, 502, 503, 504),
)
def summarize(body: SummarizeRequest, principal: AnyPrincipal) -> SummaryOut:
    """Summarise a conversation (or draft a report, optionally on a focus topic); waits up to 30 s."""
    check_assistant_permission(principal, "summary")
    job = service.job_for(body)
    return SummaryOut(summary=service.request_summary(job), kind=body.kind)
