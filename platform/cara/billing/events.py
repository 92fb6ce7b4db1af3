"""Stripe webhook events: stored once on receipt, processed once by a worker.

The API verifies the signature, stores the event by its id (a duplicate stores
nothing and enqueues nothing) and enqueues `billing.process_event` through the
transactional outbox. The actor takes the row under a lock, skips it if it was
processed already, and otherwise acts on it; the row is marked processed only
when that succeeds. A failure (Stripe down, a related object not there yet) is
counted on the row and re-raised so Dramatiq retries with backoff.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import stripe
from sqlalchemy.orm import Session

from cara.billing import repository, stripe_api
from cara.billing.schemas import WebhookAck
from cara.billing.sync import handle_event
from cara.config import get_settings
from cara.kit.errors import BadRequest, ServiceUnavailable
from cara.kit.jobs import enqueue_after_commit
from cara.models.base import utcnow

log = logging.getLogger("cara.billing")

SOURCE = "stripe"
PROCESS_ACTOR = "billing.process_event"


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    return False


FUTURE_TOLERANCE_SECONDS = 300


def _signed_at(signature: str) -> int:
    """The `t=` of a Stripe-Signature header the SDK has already verified."""
    for part in signature.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t" and value.isdigit():
            return int(value)
    raise BadRequest("Invalid webhook signature")


def receive(session: Session, payload: bytes, signature: str | None) -> WebhookAck:
    """Verify and store one delivery; the caller commits (which sends the job)."""
    secret = get_settings().stripe_webhook_secret
    if not secret or not stripe_api.is_configured():
        raise ServiceUnavailable(stripe_api.NOT_CONFIGURED)
    if not signature:
        raise BadRequest("Missing Stripe-Signature header")
    try:
        event = stripe.Webhook.construct_event(payload, signature, secret)
    except stripe.SignatureVerificationError as exc:
        raise BadRequest("Invalid webhook signature") from exc
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise BadRequest("Invalid webhook payload") from exc
    if _signed_at(signature) > time.time() + FUTURE_TOLERANCE_SECONDS:
        # The SDK refuses old timestamps only; one from the future would outlive the window.
        raise BadRequest("Invalid webhook signature")
    body = json.loads(payload)
    if not isinstance(body, dict):
        raise BadRequest("Invalid webhook payload")
    event_id, event_type = body.get("id"), body.get("type")
    if (
        not isinstance(event_id, str)
        or not isinstance(event_type, str)
        or not 0 < len(event_id) <= 255
        or len(event_type) > 100
        or not isinstance(body.get("data"), dict)
        or _has_nul(body)  # jsonb cannot hold NUL
    ):
        raise BadRequest("Invalid webhook payload")
    row_id = repository.insert_event(session, SOURCE, event_id, event_type, body)
    if row_id is None:
        log.info("stripe event received again; not reprocessed", extra={"event_type": event.type})
        return WebhookAck(received=True, duplicate=True)
    enqueue_after_commit(session, PROCESS_ACTOR, event_row_id=row_id)
    return WebhookAck(received=True, duplicate=False)


@dataclass(frozen=True)
class Outcome:
    """What `process` did: `handled` now, or the `error` that stopped it (its attempt is counted
    in the caller's transaction, which must commit it before the job is retried)."""

    handled: bool
    error: Exception | None = None


def process(session: Session, event_row_id: int) -> Outcome:
    """Act on one stored event (the actor's body, in the actor's platform transaction)."""
    event = repository.event_for_update(session, event_row_id)
    if event is None or event.processed_at is not None:
        return Outcome(handled=False)
    obj = (event.payload.get("data") or {}).get("object") or {}
    try:
        with session.begin_nested():
            handle_event(session, stripe_api.client(), event.type, obj if isinstance(obj, dict) else {})
    except Exception as exc:
        event.attempts += 1
        event.last_error = type(exc).__name__
        log.warning(
            "stripe event not processed; will retry",
            extra={"event_type": event.type, "error": type(exc).__name__, "attempts": event.attempts},
        )
        return Outcome(handled=False, error=exc)
    event.attempts += 1
    event.last_error = None
    event.processed_at = utcnow()
    return Outcome(handled=True)


def replay_pending(session: Session, *, older_than_minutes: float) -> int:
    """Enqueue again every stored event still unprocessed after `older_than_minutes`.

    For a backlog that outlived the actor's retries (Stripe or the database
    down for hours): processing is idempotent and takes each row under a
    lock, so an event that is also still queued is handled once.
    """
    cutoff = utcnow() - timedelta(minutes=older_than_minutes)
    ids = repository.unprocessed_event_ids(session, SOURCE, cutoff)
    for row_id in ids:
        enqueue_after_commit(session, PROCESS_ACTOR, event_row_id=row_id)
    return len(ids)
