"""The scheduler: enqueues periodic jobs. `python -m workers.scheduler`.

Each periodic job fires once per interval slot. A Redis `SET NX` on
(job, slot) makes sure that two scheduler replicas never enqueue the same slot
twice, so running one per deploy replica is safe.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from dataclasses import dataclass
from types import FrameType

from cara.kit.jobs import relay_pending
from cara.kit.logging import configure_logging
from cara.kit.redis import get_redis
from cara.observability.metrics import setup_metrics
from cara.observability.tracing import setup_tracing
from workers import health, sender
from workers.gauges import scheduler_gauges
from workers.sender import broker

log = logging.getLogger("cara.scheduler")


@dataclass(frozen=True)
class PeriodicJob:
    actor_name: str
    every_seconds: int


SCHEDULE: tuple[PeriodicJob, ...] = (
    PeriodicJob("maintenance.purge_expired_tokens", 3600),
    # Hospitals that never verified their email (UNVERIFIED_HOSPITAL_DAYS): tenant erased.
    PeriodicJob("maintenance.remove_unverified_hospitals", 3600),
    PeriodicJob("analytics.refresh_rollups", 300),
    PeriodicJob("billing.expire_trials", 3600),
    # Transcripts and drafts of unsigned consultations past the tenant's retention period.
    PeriodicJob("consultations.apply_retention", 3600),
    # Plan reviews (their DICOM files) of the same consultations, on the same clock.
    PeriodicJob("clinical.apply_retention", 3600),
    # Recordings never finished uploading, or failed and not retried, deleted with their audio.
    PeriodicJob("recordings.expire", 3600),
)


def due_slot(job: PeriodicJob, now: float) -> int:
    return int(now // job.every_seconds)


def tick(now: float | None = None) -> list[str]:
    """Enqueue every job whose current slot has not been claimed yet; returns what was sent."""
    now = time.time() if now is None else now
    sent = []
    for job in SCHEDULE:
        slot = due_slot(job, now)
        claimed = get_redis().set(
            f"cara:scheduler:{job.actor_name}:{slot}", "1", nx=True, ex=job.every_seconds * 2
        )
        if claimed:
            broker.get_actor(job.actor_name).send()
            sent.append(job.actor_name)
    return sent


def main() -> None:
    configure_logging()
    setup_tracing(service_name="cara-scheduler")
    # The backlog gauges are read here: one scheduler per deployment, so they are not multiplied.
    setup_metrics(service_name="cara-scheduler", gauges=scheduler_gauges)
    # The relay sends the outbox rows left behind through the broker.
    sender.install()
    stop = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    log.info("scheduler started", extra={"jobs": [j.actor_name for j in SCHEDULE]})
    while not stop.is_set():
        try:
            for name in tick():
                log.info("periodic job enqueued", extra={"actor": name})
            relayed = relay_pending()
            if relayed:
                log.info("outbox jobs relayed", extra={"count": relayed})
        except Exception:  # the broker or database may be briefly down; try again next tick
            log.exception("scheduler tick failed")
        # The loop turns: the probes' heartbeat (workers.health), whatever the tick's outcome.
        try:
            health.beat("scheduler")
        except OSError:
            log.warning("scheduler heartbeat could not be written")
        stop.wait(10)
    health.forget("scheduler")
    log.info("scheduler stopped")


if __name__ == "__main__":
    main()
