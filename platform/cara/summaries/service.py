"""Summaries: the request waits for a worker that asks Gemini.

The API process never holds a provider call for long: `request_summary`
stores the job's input in Redis under a fresh id, sends the id to the
`summaries.generate` actor, and waits (at most `SUMMARY_TIMEOUT_SECONDS`, 30 s
as in spec §9) for the actor to push its result to a list named after the
id. The transcript travels only through Redis keys that expire within
minutes, never in the message itself (which Dramatiq may log), and is never
logged.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis
from google.genai import types
from sqlalchemy.orm import Session

from cara.auth.principal import Principal
from cara.config import get_settings
from cara.consultations import service as consultations
from cara.consultations.schemas import DraftOut
from cara.consultations.service import note_templates as templates
from cara.kit import gemini, throttle
from cara.kit.errors import CaraError, ServiceUnavailable, ValidationFailed
from cara.kit.jobs import send_now
from cara.kit.redis import get_redis
from cara.summaries import record
from cara.summaries.schemas import SummarizeRequest, TranscriptLineIn
from tenants.sessions import TenantTransactions

log = logging.getLogger("cara.summaries")

NO_CONVERSATION = "No conversation recorded yet."
NOTE_NEEDS_CONSULTATION = "A note is written on a consultation: give its consultationId."
TIMED_OUT = "Summary generation timed out. Please try again."
UNAVAILABLE = "Service temporarily unavailable. Please try again shortly."
# The spec's request texts (§7, generic console).
SUMMARY_REQUEST = "Generate a concise summary of the preceding conversation."
REPORT_REQUEST = "Generate a report draft based on the preceding conversation"
ACTOR = "summaries.generate"
_PREFIX = "cara:summary:"
_RESULT_TTL_SECONDS = 120


class SummaryTimedOut(CaraError):
    status_code = 504


class SummaryFailed(CaraError):
    """The provider answered with an error; its message is passed on."""

    status_code = 502


@dataclass(frozen=True)
class SummaryJob:
    kind: str
    focus: str | None
    transcript: str
    # A draft of a stored consultation: the worker reads its lines and stores the draft on it.
    target: consultations.DraftTarget | None = None
    # A note's template (`templates.BY_ID`).
    template: str | None = None

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "kind": self.kind,
            "focus": self.focus,
            "transcript": self.transcript,
            "template": self.template,
        }
        if self.target is not None:
            data["target"] = {
                "schema": self.target.schema,
                "doctor": str(self.target.doctor_id),
                "consultation": str(self.target.consultation_id),
                "console": self.target.console,
            }
        return json.dumps(data)

    @classmethod
    def from_json(cls, raw: str) -> SummaryJob:
        data: dict[str, Any] = json.loads(raw)
        target = data.get("target")
        return cls(
            kind=str(data["kind"]),
            focus=data.get("focus"),
            transcript=str(data["transcript"]),
            template=data.get("template"),
            target=consultations.DraftTarget(
                schema=str(target["schema"]),
                doctor_id=uuid.UUID(target["doctor"]),
                consultation_id=uuid.UUID(target["consultation"]),
                console=str(target["console"]),
            )
            if target
            else None,
        )


def spend_draft(principal: Principal) -> None:
    """Counts one model-written draft against the doctor's summaries limit (429 past it).
    Every path that has the model write a summary or report spends from the same allowance:
    `/api/summarize` and a completed (or retried) recording alike, so one cannot be used to go
    around the other."""
    throttle.hit("summaries", get_settings().rate_limit_summaries, str(principal.id))


LABELS = {"user": "Clinician", "assistant": "Cara", "tool": "Dose-constraint tool"}


def transcript_text(transcript: str | list[TranscriptLineIn] | None) -> str:
    if isinstance(transcript, list):
        return "\n".join(
            f"{LABELS[line.speaker]}: {line.text.strip()}" for line in transcript if line.text.strip()
        )
    return (transcript or "").strip()


def job_for(
    body: SummarizeRequest, session: Session | None = None, principal: Principal | None = None
) -> SummaryJob:
    """The job for a request: from the stored consultation named by `consultationId` (the
    worker reads its lines), else from the transcript sent in the body."""
    focus = body.focus.strip() if body.focus and body.focus.strip() else None
    text = transcript_text(body.transcript)
    if body.consultationId is not None:
        assert session is not None and principal is not None
        try:
            target = consultations.draft_target(session, principal, body.consultationId)
        except ValidationFailed:
            # No line stored yet (a live console asking in its first seconds): from the sent
            # transcript, as without an id; a later request drafts onto the consultation.
            if not text:
                raise
        else:
            template = note_template(body.template, target.console) if body.kind == "note" else None
            return SummaryJob(
                kind=body.kind,
                focus=focus if body.kind == "report" else None,
                transcript="",
                target=target,
                template=template.id if template else None,
            )
    if body.kind == "note":
        raise ValidationFailed({"consultationId": NOTE_NEEDS_CONSULTATION}, message=NOTE_NEEDS_CONSULTATION)
    if not text:
        raise ValidationFailed({"transcript": NO_CONVERSATION}, message=NO_CONVERSATION)
    return SummaryJob(kind=body.kind, focus=focus if body.kind == "report" else None, transcript=text)


def note_template(template_id: str | None, console: str) -> templates.Template:
    """The template a note is asked in: the one named (offered for this console), else the
    console's default. 422 with the field for an unknown one."""
    if template_id is None or not template_id.strip():
        return templates.default_for(console)
    template = templates.BY_ID.get(template_id.strip())
    if template is None:
        raise ValidationFailed({"template": templates.UNKNOWN_TEMPLATE}, message=templates.UNKNOWN_TEMPLATE)
    if console not in template.consoles:
        raise ValidationFailed({"template": templates.NOT_FOR_CONSOLE}, message=templates.NOT_FOR_CONSOLE)
    return template


def request_summary(job: SummaryJob) -> str:
    """Hand the job to a worker and wait for its text (raises on timeout or failure)."""
    return str(request_result(job)["summary"])


def request_result(job: SummaryJob) -> dict[str, Any]:
    """Hand the job to a worker and wait for its answer: `summary`, and `draft` when the job
    drafted from a stored consultation (raises on timeout or failure)."""
    gemini.require_ai()
    settings = get_settings()
    request_id = uuid.uuid4().hex
    timeout = settings.summary_timeout_seconds
    client = get_redis()
    try:
        client.set(_PREFIX + request_id + ":input", job.to_json(), ex=int(timeout) + 60)
        _send(request_id, max_age_ms=int(timeout * 1000))
    except redis.RedisError as exc:
        raise ServiceUnavailable(UNAVAILABLE) from exc
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            # The worker skips the job if it has not started it yet.
            client.delete(_PREFIX + request_id + ":input")
            raise SummaryTimedOut(TIMED_OUT)
        try:
            # Short waits: the shared client's socket timeout is 2 s.
            popped = client.blpop([_PREFIX + request_id + ":result"], timeout=max(0.1, min(1.0, left)))
        except redis.RedisError as exc:
            raise ServiceUnavailable(UNAVAILABLE) from exc
        if popped is not None:
            result: dict[str, Any] = json.loads(popped[1])
            if result.get("ok"):
                return result
            raise SummaryFailed(
                str(result.get("message") or "The AI service could not generate the summary.")
            )


def _send(request_id: str, *, max_age_ms: int) -> None:
    send_now(ACTOR, {"request_id": request_id}, max_age=max_age_ms)


# ------------------------------------------------------------------ on the worker


def system_instruction() -> str:
    lab = get_settings().ai_lab_name
    return (
        f"You are Cara, a clinical documentation assistant developed by {lab}. You turn the transcript of a "
        "conversation between a clinician and the Cara assistant into a summary or a report draft for the "
        "clinician to review. Use only what the transcript says: do not add findings, doses, diagnoses or "
        "recommendations that are not in it, and say when something important is unclear or missing. Write "
        "plain text with short headed sections. The text is a draft: the clinician edits and signs it."
    )


def prompt(job: SummaryJob) -> str:
    if job.kind == "report":
        return REPORT_REQUEST + (f" focusing on: {job.focus}" if job.focus else "") + "."
    return SUMMARY_REQUEST


def generate(job: SummaryJob) -> str:
    """Ask Gemini (generateContent) for the summary; runs on the worker."""
    client = gemini.client()
    try:
        response = gemini.generate_content(
            client,
            model=get_settings().gemini_text_model,
            contents=[
                types.Content(
                    role="user",
                    parts=[
                        types.Part(text=f"Transcript of the conversation:\n\n{job.transcript}"),
                        types.Part(text=prompt(job)),
                    ],
                )
            ],
            config=types.GenerateContentConfig(system_instruction=system_instruction(), temperature=0.2),
            purpose=job.kind,
        )
    finally:
        client.close()
    text = (response.text or "").strip()
    if not text:
        raise ValueError("empty answer")
    return text


def run_job(request_id: str, transactions_for: Callable[[str], TenantTransactions]) -> None:
    """The actor's work: read the input, generate, push the result for the waiting request. A
    draft of a stored consultation reads and writes in the tenant's transactions the actor hands
    over (`transactions_for(schema)`)."""
    client = get_redis()
    raw = client.getdel(_PREFIX + request_id + ":input")
    if raw is None:
        return  # the request gave up (timeout) or the job already ran
    result: dict[str, Any]
    try:
        job = SummaryJob.from_json(raw)
        if job.target is not None:
            draft = draft_from_record(job, job.target, transactions_for(job.target.schema))
            result = {"ok": True, "summary": draft.text, "draft": draft.model_dump(mode="json")}
        else:
            result = {"ok": True, "summary": generate(job)}
    except Exception as exc:
        # The type only: the message of a provider error may quote the transcript.
        log.warning("summary generation failed", extra={"error": type(exc).__name__})
        message = gemini.provider_message(exc)
        result = {"ok": False, "message": f"The AI service could not generate the summary: {message}"}
    key = _PREFIX + request_id + ":result"
    client.rpush(key, json.dumps(result))
    client.expire(key, _RESULT_TTL_SECONDS)


def draft_from_record(
    job: SummaryJob, target: consultations.DraftTarget, transactions: TenantTransactions
) -> DraftOut:
    """Read the consultation's stored lines, ask Gemini for a draft with evidence, store it: the
    read and the store are each a transaction of the caller's `transactions`, and none is open
    while the model writes. Nothing is stored unless the model answered with a usable draft."""
    lines = transactions.run(consultations.draft_source, target)
    if not lines:
        raise ValueError("no transcript")
    template = templates.BY_ID.get(job.template or "") if job.kind == "note" else None
    if job.kind == "note" and template is None:
        template = templates.default_for(target.console)
    model = get_settings().gemini_text_model
    client = gemini.client()
    try:
        response = gemini.generate_content(
            client,
            model=model,
            contents=[
                types.Content(
                    role="user",
                    parts=[
                        types.Part(
                            text=f"Transcript of the conversation:\n\n{record.transcript_with_ids(lines)}"
                        ),
                        types.Part(text=record.request_text(target.console, job.kind, job.focus, template)),
                    ],
                )
            ],
            config=types.GenerateContentConfig(
                system_instruction=system_instruction(),
                temperature=0.2,
                response_mime_type="application/json",
                response_json_schema=record.response_schema(target.console, job.kind, template),
            ),
            purpose=job.kind,
        )
    finally:
        client.close()
    parsed = record.parse(response.text or "", target.console, job.kind, lines, template)
    return transactions.run(
        consultations.store_draft,
        target,
        consultations.NewDraft(
            kind=job.kind,
            focus=job.focus,
            text=parsed.text,
            sections=parsed.sections,
            evidence=parsed.evidence,
            model=model,
            prompt_version=record.prompt_version(target.console, job.kind, template),
            template_id=template.id if template else None,
            template_version=template.version if template else None,
            codes=list(parsed.codes),
        ),
    )


# ------------------------------------------------------------------ the note at the visit's end

NOTE_AT_END_ACTOR = consultations.NOTE_AT_END_ACTOR


def note_at_end(
    schema: str, doctor: str, consultation: str, transactions_for: Callable[[str], TenantTransactions]
) -> DraftOut | None:
    """Write the note of a visit that just ended, in the console's default template, and keep it
    on the consultation (the worker's job; nobody waits for it). It spends from the doctor's
    drafts allowance like any draft; past it, or when a note draft already exists, nothing is
    written."""
    transactions = transactions_for(schema)
    target = transactions.run(
        consultations.visit_end_target, schema, uuid.UUID(doctor), uuid.UUID(consultation)
    )
    if target is None:
        return None
    try:
        throttle.hit("summaries", get_settings().rate_limit_summaries, doctor)
    except CaraError:
        log.info("note at visit end skipped: drafts allowance spent")
        return None
    template = templates.default_for(target.console)
    job = SummaryJob(kind="note", focus=None, transcript="", target=target, template=template.id)
    return draft_from_record(job, target, transactions)
