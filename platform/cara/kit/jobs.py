"""Background jobs, named by actor: the outbox that sends them only after their data commits.

`enqueue_after_commit(session, "mail.password_reset", reset_id=...)` writes
the job into `platform.outbox_jobs` inside the caller's transaction:

* commit  -> the job is sent to the broker right away and its row deleted;
* rollback -> the row disappears with everything else: no job, no orphan;
* broker down, or the process dies between commit and send -> the row stays
  and `relay_pending()` (run by the scheduler) sends it later.

A worker therefore never picks up a job whose rows do not exist (yet), and no
committed job is lost. Delivery is at-least-once: actors are idempotent.

Jobs are named by their actor's name ("<domain>.<event>") and carry ids, not
objects, so nothing here knows the workers. The process that sends jobs
installs a `JobSender` at start-up (`workers.sender.install()`: the API and
the worker and scheduler processes); until one is installed, sending fails and
committed jobs wait in the outbox for the relay.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import timedelta
from typing import Any, Protocol

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from sqlalchemy import delete, event, select, update
from sqlalchemy.orm import Session

from cara.kit import db
from cara.models import OutboxJob
from cara.models.base import utcnow

log = logging.getLogger("cara.jobs")
_PENDING = "cara_pending_jobs"
_tracer = trace.get_tracer("cara.workers")

# The tenant schema of the job being sent or run: a sent job carries it, a
# running job exposes it (the workers' TenantContext middleware reads and sets it).
current_tenant: ContextVar[str | None] = ContextVar("current_tenant", default=None)


class NoJobSender(RuntimeError):
    """No sender installed in this process: the job stays in the outbox."""


class JobSender(Protocol):
    """How this process hands a job to the broker."""

    def queue_name(self, actor_name: str) -> str:
        """The queue the actor consumes (for the producer span)."""
        ...

    def send(self, actor_name: str, kwargs: dict[str, Any], options: dict[str, Any]) -> None:
        """Put one message for `actor_name` on its queue."""
        ...


_sender: JobSender | None = None


def install_sender(sender: JobSender) -> None:
    """Make `sender` the way this process sends jobs (the last one installed wins)."""
    global _sender
    _sender = sender


def enqueue_after_commit(
    session: Session, actor_name: str, *, tenant: str | None = None, **kwargs: Any
) -> None:
    """Record a job for `actor_name` with keyword arguments (ids, not objects)."""
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    job = OutboxJob(actor_name=actor_name, tenant_schema=tenant, kwargs=kwargs, trace_context=carrier)
    session.add(job)
    session.flush()
    session.info.setdefault(_PENDING, []).append(job.id)


@contextmanager
def _job_context(job: OutboxJob) -> Iterator[None]:
    """Send under the enqueuing request's trace and tenant, even when relayed later."""
    ctx_token = otel_context.attach(propagate.extract(job.trace_context or {}))
    tenant_token = current_tenant.set(job.tenant_schema)
    try:
        yield
    finally:
        current_tenant.reset(tenant_token)
        otel_context.detach(ctx_token)


def send_now(actor_name: str, kwargs: dict[str, Any], **options: Any) -> None:
    """Send a job to the broker at once, inside a producer span of the current trace.

    For jobs that must not wait for a commit (a request waiting for its
    answer); anything tied to stored rows goes through enqueue_after_commit.
    """
    sender = _sender
    if sender is None:
        raise NoJobSender(f"no job sender installed to send {actor_name}")
    queue_name = sender.queue_name(actor_name)
    with _tracer.start_as_current_span(f"{actor_name} send", kind=trace.SpanKind.PRODUCER) as span:
        span.set_attribute("messaging.system", "dramatiq")
        span.set_attribute("messaging.destination.name", queue_name)
        span.set_attribute("cara.actor", actor_name)
        sender.send(actor_name, kwargs, options)


def _send(job: OutboxJob) -> None:
    with _job_context(job):
        send_now(job.actor_name, job.kwargs)


def _dispatch(ids: list[int]) -> int:
    """Send the given outbox rows and delete them; rows whose send fails stay."""
    sent = 0
    with db.platform_session() as session:
        jobs = session.scalars(
            select(OutboxJob).where(OutboxJob.id.in_(ids)).with_for_update(skip_locked=True)
        ).all()
        for job in jobs:
            try:
                _send(job)
            except Exception as exc:
                log.warning("job kept in outbox: broker send failed", extra={"actor": job.actor_name})
                session.execute(
                    update(OutboxJob)
                    .where(OutboxJob.id == job.id)
                    .values(attempts=OutboxJob.attempts + 1, last_error=type(exc).__name__)
                )
                continue
            session.execute(delete(OutboxJob).where(OutboxJob.id == job.id))
            sent += 1
        session.commit()
    return sent


def relay_pending(older_than: timedelta = timedelta(seconds=30), limit: int = 500) -> int:
    """Send outbox rows left behind for longer than `older_than`; returns how many."""
    with db.platform_session() as session:
        ids = list(
            session.scalars(
                select(OutboxJob.id)
                .where(OutboxJob.created_at < utcnow() - older_than)
                .order_by(OutboxJob.id)
                .limit(limit)
            )
        )
    return _dispatch(ids) if ids else 0


def _flush_jobs(session: Session) -> None:
    ids = session.info.pop(_PENDING, [])
    if not ids:
        return
    try:
        _dispatch(ids)
    except Exception:
        # The data and the outbox rows are committed; the relay will send them.
        log.exception("outbox dispatch failed after commit; the relay will retry")


def _drop_jobs(session: Session, previous_transaction: Any) -> None:
    session.info.pop(_PENDING, None)


def install() -> None:
    """Hook the outbox into every SQLAlchemy session (idempotent)."""
    if not event.contains(Session, "after_commit", _flush_jobs):
        event.listen(Session, "after_commit", _flush_jobs)
        event.listen(Session, "after_soft_rollback", _drop_jobs)


install()
