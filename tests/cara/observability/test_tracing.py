"""One trace follows a request through the database, the enqueue and the worker.

Spans carry no patient or personal data: the email address and name sent in
the request appear in no attribute of any span.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.factories import doctor_payload, signup


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    provider = trace.get_tracer_provider()
    assert isinstance(provider, TracerProvider), "cara.observability.tracing installs the SDK provider"
    exporter = InMemorySpanExporter()
    processor = SimpleSpanProcessor(exporter)
    provider.add_span_processor(processor)
    yield exporter
    processor.shutdown()


def test_request_to_worker_is_one_trace(client: Any, worker: Any, spans: InMemorySpanExporter) -> None:
    payload = doctor_payload(name="Dr Efua Asante-Boateng")
    signup(client, payload)
    spans.clear()

    r = client.post("/api/auth/forgot-password", json={"email": payload["email"]})
    assert r.status_code == 202
    worker.join("mail", timeout=10_000)
    deadline = time.time() + 5
    while not any(s.name == "mail.password_reset process" for s in spans.get_finished_spans()):
        assert time.time() < deadline, "worker span never finished"
        time.sleep(0.05)

    finished = spans.get_finished_spans()
    server = [s for s in finished if s.kind == trace.SpanKind.SERVER]
    assert server, [s.name for s in finished]
    trace_id = server[0].context.trace_id
    names_in_trace = {s.name for s in finished if s.context.trace_id == trace_id}
    assert "mail.password_reset send" in names_in_trace
    assert "mail.password_reset process" in names_in_trace
    # the database was reached in the request and in the worker, inside the same trace
    db_spans = [
        s
        for s in finished
        if s.context.trace_id == trace_id and s.attributes and s.attributes.get("db.system") == "postgresql"
    ]
    assert len(db_spans) >= 2

    for s in finished:
        for value in (s.attributes or {}).values():
            text = str(value).lower()
            assert payload["email"] not in text, f"{s.name} leaks the email"
            assert "asante" not in text, f"{s.name} leaks the name"
