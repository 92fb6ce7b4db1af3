"""Names of Cara's own metrics, shared by the code that records them, the
dashboards in ops/observability/ and their tests.

OpenTelemetry names use dots; the collector's Prometheus exporter turns them
into the underscored names the dashboards query (`cara.queue.depth` ->
`cara_queue_depth`). Units are annotations in braces, which the exporter
drops, so the Prometheus names carry no unit suffix.

Per-route request rate, errors and latency, and per-actor job latency, are not
recorded here: the collector derives them from the spans (spanmetrics
connector), so every process that traces is measured the same way.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Instrument:
    """A gauge: every Cara metric is observed when the exporter collects."""

    name: str
    unit: str
    description: str
    attributes: tuple[str, ...] = ()

    @property
    def prometheus_name(self) -> str:
        return self.name.replace(".", "_")


QUEUE_DEPTH = Instrument(
    "cara.queue.depth",
    "{message}",
    "Messages waiting in a worker queue (ready, not yet taken by a worker).",
    ("queue",),
)
OUTBOX_PENDING = Instrument(
    "cara.outbox.pending",
    "{job}",
    "Committed jobs not yet handed to the broker (grows while Redis is down).",
)
WEBHOOKS_PENDING = Instrument(
    "cara.webhooks.pending",
    "{event}",
    "Stored provider webhook events not yet processed.",
    ("source",),
)
LIVE_SESSIONS = Instrument(
    "cara.live.sessions",
    "{session}",
    "Live consultations currently open on this API process.",
    ("specialty",),
)

INSTRUMENTS: tuple[Instrument, ...] = (QUEUE_DEPTH, OUTBOX_PENDING, WEBHOOKS_PENDING, LIVE_SESSIONS)
