"""The scheduler's gauges: how many messages wait in each worker queue, and the backlogs."""

from __future__ import annotations

from collections.abc import Iterator

from opentelemetry.metrics import Meter, Observation

from cara.observability import names
from cara.observability.metrics import backlog_gauges, observe_gauge
from workers.sender import broker  # declares every actor, hence every queue


def scheduler_gauges(meter: Meter) -> None:
    """Gauges of the scheduler (one per deployment): worker queues, the job outbox, unprocessed webhooks."""
    observe_gauge(meter, names.QUEUE_DEPTH, _queue_depths)
    backlog_gauges(meter)


def _queue_depths() -> Iterator[Observation]:
    client = broker.client
    for queue in sorted(q for q in broker.get_declared_queues() if not q.endswith(".DQ")):
        # Messages waiting for a worker: the ready list of Dramatiq's Redis broker.
        yield Observation(int(client.llen(f"{broker.namespace}:{queue}")), {"queue": queue})
