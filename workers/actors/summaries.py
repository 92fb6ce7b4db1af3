"""summaries.* actors: conversation summaries and report drafts from Gemini."""

from __future__ import annotations

import dramatiq

from cara.summaries import service
from tenants.sessions import TenantTransactions
from workers.broker import broker


# No retries: the request waits 30 s at most, and a stale answer helps nobody.
@dramatiq.actor(
    broker=broker, actor_name=service.ACTOR, queue_name="summaries", max_retries=0, time_limit=60_000
)
def generate(request_id: str) -> None:
    service.run_job(request_id, TenantTransactions)


# Retried on a provider failure: nobody waits, and the job writes nothing until it succeeds.
@dramatiq.actor(
    broker=broker,
    actor_name=service.NOTE_AT_END_ACTOR,
    queue_name="summaries",
    max_retries=3,
    min_backoff=5_000,
    time_limit=120_000,
)
def note_at_end(schema: str, doctor: str, consultation: str) -> None:
    service.note_at_end(schema, doctor, consultation, TenantTransactions)
