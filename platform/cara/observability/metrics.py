"""Cara's own metrics: live consultations, queue depth and the two backlogs.

Every one is an observable gauge read when the exporter collects (every
`OTEL_METRIC_EXPORT_INTERVAL` ms, 60 s by default), so nothing is counted on
any request's path. Each process names its gauges at start-up, and each gauge
is declared by the code that owns what it reads: the API process reports its
live sessions (`cara.live.gauges`); the scheduler (one per deployment) reports
the worker queues (`workers.gauges`) and the two backlogs below, so a gauge
read from Redis or the database is not multiplied by the number of API replicas.

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
from cara.kit import db
from cara.models import OutboxJob, ProviderEvent
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


def observe_gauge(
    meter: Meter, instrument: names.Instrument, callback: Callable[[], Iterable[Observation]]
) -> None:
    """Declare an observable gauge whose points `callback` yields when the exporter collects."""

    def observe(options: CallbackOptions) -> Iterable[Observation]:
        try:
            return list(callback())
        except Exception as exc:  # a down Redis or database must not break the export of the rest
            log.warning("metric not observed", extra={"metric": instrument.name, "error": type(exc).__name__})
            return []

    meter.create_observable_gauge(
        instrument.name, callbacks=[observe], unit=instrument.unit, description=instrument.description
    )


def backlog_gauges(meter: Meter) -> None:
    """Gauges of the platform tables that wait for work: the job outbox, unprocessed webhooks."""
    observe_gauge(meter, names.OUTBOX_PENDING, _outbox_pending)
    observe_gauge(meter, names.WEBHOOKS_PENDING, _webhooks_pending)


def _outbox_pending() -> Iterator[Observation]:
    with db.platform_session() as session:
        yield Observation(int(session.scalar(select(func.count()).select_from(OutboxJob)) or 0))


def _webhooks_pending() -> Iterator[Observation]:
    with db.platform_session() as session:
        rows = session.execute(
            select(ProviderEvent.source, func.count())
            .where(ProviderEvent.processed_at.is_(None))
            .group_by(ProviderEvent.source)
        ).all()
    counts = {"stripe": 0} | {source: int(n) for source, n in rows}
    for source, n in sorted(counts.items()):
        yield Observation(n, {"source": source})
