"""Cara's gauges, read through the OpenTelemetry SDK the way an exporter reads them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from opentelemetry.metrics import Meter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from sqlalchemy import delete

from cara.kit.db import session_scope
from cara.live.gauges import live_gauges
from cara.models import OutboxJob, ProviderEvent
from cara.models.base import utcnow
from cara.observability import names
from workers.gauges import scheduler_gauges

Reading = dict[str, dict[tuple[tuple[str, Any], ...], float]]


def read(gauges: Callable[[Meter], None]) -> Reading:
    """Every point of every metric, by name and attribute set."""
    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    try:
        gauges(provider.get_meter("test"))
        data = reader.get_metrics_data()
    finally:
        provider.shutdown()
    out: Reading = {}
    if data is None:  # no metric has a point
        return out
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                points = out.setdefault(metric.name, {})
                for point in metric.data.data_points:
                    points[tuple(sorted((point.attributes or {}).items()))] = point.value  # type: ignore[union-attr]
    return out


@pytest.fixture
def clean_backlogs(worker_broker: Any) -> Iterator[None]:
    worker_broker.flush_all()
    with session_scope() as session:
        session.execute(delete(OutboxJob))
        session.execute(delete(ProviderEvent))
    yield
    worker_broker.flush_all()
    with session_scope() as session:
        session.execute(delete(OutboxJob))
        session.execute(delete(ProviderEvent))


@pytest.fixture
def worker_broker() -> Any:
    from workers.registry import broker

    return broker


def test_live_sessions_are_counted_per_console_while_open(monkeypatch: Any) -> None:
    from cara.live import relay
    from cara.live.assistant_profiles import ASSISTANT_PROFILES

    class Consultation:  # what the gauge reads of a relay
        def __init__(self, console: str) -> None:
            self.profile = ASSISTANT_PROFILES[console]

    open_now: set[Any] = set()
    monkeypatch.setattr(relay, "_running", open_now)
    idle = read(live_gauges)[names.LIVE_SESSIONS.name]
    every_console = {(("specialty", console),): 0 for console in ASSISTANT_PROFILES}
    assert idle == every_console, "every console, idle ones as 0"

    open_now.update({Consultation("radiologist"), Consultation("radiologist"), Consultation("nurse")})
    busy = read(live_gauges)[names.LIVE_SESSIONS.name]
    assert busy[(("specialty", "radiologist"),)] == 2
    assert busy[(("specialty", "nurse"),)] == 1
    assert sum(busy.values()) == 3


def test_backlogs_are_read_from_the_broker_and_the_database(clean_backlogs: None, worker_broker: Any) -> None:
    before = read(scheduler_gauges)
    assert before[names.QUEUE_DEPTH.name][(("queue", "maintenance"),)] == 0
    assert before[names.OUTBOX_PENDING.name] == {(): 0}
    assert before[names.WEBHOOKS_PENDING.name] == {(("source", "stripe"),): 0}

    # No worker runs here: sent messages wait in their queue.
    for _ in range(3):
        worker_broker.get_actor("maintenance.purge_expired_tokens").send()
    worker_broker.get_actor("analytics.refresh_rollups").send()
    with session_scope() as session:
        session.add(OutboxJob(actor_name="mail.password_reset", kwargs={}, trace_context={}))
        session.add(OutboxJob(actor_name="mail.password_reset", kwargs={}, trace_context={}))
        session.add_all(
            [
                ProviderEvent(source="stripe", event_id="evt_1", type="invoice.paid", payload={}),
                ProviderEvent(source="stripe", event_id="evt_2", type="invoice.paid", payload={}),
                ProviderEvent(
                    source="stripe", event_id="evt_3", type="invoice.paid", payload={}, processed_at=utcnow()
                ),
            ]
        )

    after = read(scheduler_gauges)
    depth = after[names.QUEUE_DEPTH.name]
    assert depth[(("queue", "maintenance"),)] == 3
    assert depth[(("queue", "analytics"),)] == 1
    assert depth[(("queue", "mail"),)] == 0
    assert not any("DQ" in str(key) for key in depth), "delay queues are not worker queues"
    assert after[names.OUTBOX_PENDING.name] == {(): 2}
    assert after[names.WEBHOOKS_PENDING.name] == {(("source", "stripe"),): 2}


def test_a_down_database_does_not_stop_the_other_gauges(
    clean_backlogs: None, worker_broker: Any, monkeypatch: Any
) -> None:
    import cara.kit.db

    def refuse() -> Any:
        raise OSError("database down")

    monkeypatch.setattr(cara.kit.db, "platform_session", refuse)
    worker_broker.get_actor("maintenance.purge_expired_tokens").send()
    reading = read(scheduler_gauges)
    assert reading[names.QUEUE_DEPTH.name][(("queue", "maintenance"),)] == 1
    assert names.OUTBOX_PENDING.name not in reading or reading[names.OUTBOX_PENDING.name] == {}
