"""Enqueueing jobs only after the transaction that created their data commits.

`enqueue_after_commit(session, "mail.password_reset", reset_id=...)` buffers
the job on the session. When the session commits, buffered jobs are sent; when
it rolls back, they are dropped. A worker therefore never picks up a job whose
rows do not exist (yet), and a failed request leaves no job behind.
"""

from __future__ import annotations

import logging
from typing import Any

from opentelemetry import trace
from sqlalchemy import event
from sqlalchemy.orm import Session

from workers.middleware import current_tenant

log = logging.getLogger("cara.jobs")
_PENDING = "cara_pending_jobs"
_tracer = trace.get_tracer("cara.workers")


def enqueue_after_commit(
    session: Session, actor_name: str, *, tenant: str | None = None, **kwargs: Any
) -> None:
    """Buffer a job for `actor_name` with keyword arguments (ids, not objects)."""
    session.info.setdefault(_PENDING, []).append((actor_name, tenant, kwargs))


def pending_jobs(session: Session) -> list[tuple[str, str | None, dict[str, Any]]]:
    return list(session.info.get(_PENDING, []))


def _send(actor_name: str, tenant: str | None, kwargs: dict[str, Any]) -> None:
    from workers.registry import broker  # imported late: the registry imports every actor

    actor = broker.get_actor(actor_name)
    with _tracer.start_as_current_span(f"{actor_name} send", kind=trace.SpanKind.PRODUCER) as span:
        span.set_attribute("messaging.system", "dramatiq")
        span.set_attribute("cara.actor", actor_name)
        token = current_tenant.set(tenant) if tenant else None
        try:
            actor.send_with_options(kwargs=kwargs)
        finally:
            if token is not None:
                current_tenant.reset(token)


@event.listens_for(Session, "after_commit")
def _flush_jobs(session: Session) -> None:
    jobs = session.info.pop(_PENDING, [])
    for actor_name, tenant, kwargs in jobs:
        try:
            _send(actor_name, tenant, kwargs)
        except Exception:
            # The data is committed; failing the request now would only make
            # the client retry a write that succeeded. The job is logged by
            # name so an operator can replay it (ops/RUNBOOK.md, broker down).
            log.exception("job could not be enqueued after commit", extra={"actor": actor_name})


@event.listens_for(Session, "after_soft_rollback")
def _drop_jobs(session: Session, previous_transaction: Any) -> None:
    session.info.pop(_PENDING, None)
