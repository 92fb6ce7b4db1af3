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
