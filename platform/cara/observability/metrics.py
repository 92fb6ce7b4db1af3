"""Cara's own metrics: live consultations, queue depth and the two backlogs.

Every one is an observable gauge read when the exporter collects (every
`OTEL_METRIC_EXPORT_INTERVAL` ms, 60 s by default), so nothing is counted on
any request's path. The API process
reports its live sessions; the scheduler (one per deployment) reports the
backlogs, so a gauge read from Redis or the database is not multiplied by the
number of API replicas.

`OTEL_METRICS_EXPORTER`: "otlp" (standard OTEL_EXPORTER_OTLP_* variables),
"console", or "none" (default). Names: cara.observability.names.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator

from opentelemetry import metrics
from opentelemetry.metrics import CallbackOptions, Meter, Observation
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    ConsoleMetricExporter,
    MetricReader,
    PeriodicExportingMetricReader,
)
from sqlalchemy import func, select

from cara.config import get_settings
from cara.observability import names
from cara.observability.tracing import resource

log = logging.getLogger("cara.metrics")
_configured = False


def setup_metrics(*, service_name: str, gauges: Callable[[Meter], None]) -> MeterProvider | None:
    """Install the meter provider once per process and register this process's gauges."""
    global _configured
    if _configured:
        return None
    _configured = True
    settings = get_settings()
    readers: list[MetricReader] = []
    if settings.otel_metrics_exporter == "otlp":
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

        readers.append(PeriodicExportingMetricReader(OTLPMetricExporter()))
    elif settings.otel_metrics_exporter == "console":
        readers.append(PeriodicExportingMetricReader(ConsoleMetricExporter()))
    if not readers:
        return None  # nothing would read the gauges: do not run their callbacks at all
    provider = MeterProvider(metric_readers=readers, resource=resource(service_name))
    metrics.set_meter_provider(provider)
    gauges(provider.get_meter("cara"))
    return provider


def _gauge(meter: Meter, instrument: names.Instrument, callback: Callable[[], Iterable[Observation]]) -> None:
    def observe(options: CallbackOptions) -> Iterable[Observation]:
        try:
            return list(callback())
        except Exception as exc:  # a down Redis or database must not break the export of the rest
            log.warning("metric not observed", extra={"metric": instrument.name, "error": type(exc).__name__})
            return []

    meter.create_observable_gauge(
        instrument.name, callbacks=[observe], unit=instrument.unit, description=instrument.description
    )


def api_gauges(meter: Meter) -> None:
    """Gauges of an API process: its open live consultations."""
    _gauge(meter, names.LIVE_SESSIONS, _live_sessions)


def _live_sessions() -> Iterator[Observation]:
    from cara.live.profiles import PROFILES
    from cara.live.relay import open_consultations

    counts = open_consultations()
    # Every console, 0 included: a series that stops being reported reads as missing, not as idle.
    for console in sorted(PROFILES):
        yield Observation(counts.get(console, 0), {"specialty": console})


def backlog_gauges(meter: Meter) -> None:
    """Gauges of the scheduler: worker queues, the job outbox, unprocessed webhooks."""
    _gauge(meter, names.QUEUE_DEPTH, _queue_depths)
    _gauge(meter, names.OUTBOX_PENDING, _outbox_pending)
    _gauge(meter, names.WEBHOOKS_PENDING, _webhooks_pending)


def _queue_depths() -> Iterator[Observation]:
    from workers.registry import broker  # declares every actor, hence every queue

    client = broker.client
    for queue in sorted(q for q in broker.get_declared_queues() if not q.endswith(".DQ")):
        # Messages waiting for a worker: the ready list of Dramatiq's Redis broker.
        yield Observation(int(client.llen(f"{broker.namespace}:{queue}")), {"queue": queue})


def _outbox_pending() -> Iterator[Observation]:
    from cara.kit.db import platform_session
    from cara.models import OutboxJob

    with platform_session() as session:
        yield Observation(int(session.scalar(select(func.count()).select_from(OutboxJob)) or 0))


def _webhooks_pending() -> Iterator[Observation]:
    from cara.kit.db import platform_session
    from cara.models import ProviderEvent

    with platform_session() as session:
        rows = session.execute(
            select(ProviderEvent.source, func.count())
            .where(ProviderEvent.processed_at.is_(None))
            .group_by(ProviderEvent.source)
        ).all()
    counts = {"stripe": 0} | {source: int(n) for source, n in rows}
    for source, n in sorted(counts.items()):
        yield Observation(n, {"source": source})
