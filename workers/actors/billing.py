"""billing.* actors: Stripe events, and the end of signup trials."""

from __future__ import annotations

import dramatiq

from cara.billing import events, seats
from cara.kit.db import session_scope
from workers.broker import broker


@dramatiq.actor(broker=broker, actor_name="billing.process_event", queue_name="billing", max_retries=12)
def process_event(event_row_id: int) -> None:
    """Act on one stored Stripe event (idempotent: a processed event is skipped).

    Failures are re-raised so Dramatiq retries with backoff; an object that
    Stripe does not have yet is such a failure, not a reason to drop the event.
    """
    run_event(event_row_id)


def run_event(event_row_id: int) -> bool:
    """The actor's transaction around `events.process`: whether the event was handled now. A
    failed attempt is committed first (its count and error), then raised for the retry."""
    with session_scope() as session:
        outcome = events.process(session, event_row_id)
    if outcome.error is not None:
        raise outcome.error
    return outcome.handled


@dramatiq.actor(broker=broker, actor_name="billing.expire_trials", queue_name="billing", max_retries=3)
def expire_trials() -> None:
    """Mark signup trials whose end has passed as ended (readers already treat them so)."""
    with session_scope() as session:
        seats.expire_trials(session)
