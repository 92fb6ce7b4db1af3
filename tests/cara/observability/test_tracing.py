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
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.factories import doctor_payload, signup


class _Recorder(SpanProcessor):
    """Hands finished spans to the current test's exporter, and to nobody between tests.

    A provider cannot drop a processor, so one recorder is added for the whole
    run instead of a processor per test that would linger, shut down, after it.
    """

    exporter: InMemorySpanExporter | None = None

    def on_end(self, span: ReadableSpan) -> None:
        if self.exporter is not None:
            self.exporter.export((span,))


_recorder = _Recorder()


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    provider = trace.get_tracer_provider()
    assert isinstance(provider, TracerProvider), "cara.observability.tracing installs the SDK provider"
    if not getattr(provider, "_cara_test_recorder", False):
        provider.add_span_processor(_recorder)
        provider._cara_test_recorder = True  # type: ignore[attr-defined]
    _recorder.exporter = InMemorySpanExporter()
    yield _recorder.exporter
    _recorder.exporter = None


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


def test_summary_request_reaches_the_model_in_one_trace(
    client: Any, worker: Any, gemini: Any, doctors_on_trial: None, spans: InMemorySpanExporter
) -> None:
    """API -> database -> enqueue -> worker -> model call, one trace, and no transcript in it."""
    from cara.config import get_settings

    token = signup(client, doctor_payload(specialty="Cardiologist"))["token"]
    spans.clear()
    transcript = "Clinician: Kwame Mensah-Owusu, 58, chest pain since 06:00.\nCara: Consider a troponin."
    r = client.post(
        "/api/summarize", json={"transcript": transcript}, headers={"Authorization": f"Bearer {token}"}
    )
    assert r.status_code == 200, r.text
    # The answer reaches the API before the worker has closed its span: wait for that span.
    finished = _finished_with(spans, "summaries.generate process")
    (server,) = [s for s in finished if s.kind == trace.SpanKind.SERVER and s.name == "POST /api/summarize"]
    in_trace = [s for s in finished if s.context.trace_id == server.context.trace_id]
    by_name = {s.name: s for s in in_trace}
    model = get_settings().gemini_text_model
    send = by_name["summaries.generate send"]
    process = by_name["summaries.generate process"]
    call = by_name[f"generate_content {model}"]
    # Each hop is the child of the one before: request -> enqueue -> worker -> model.
    assert send.parent is not None and _ancestor(in_trace, send, server)
    assert process.parent is not None and process.parent.span_id == send.context.span_id
    assert call.parent is not None and call.parent.span_id == process.context.span_id
    assert call.kind == trace.SpanKind.CLIENT
    assert call.attributes is not None
    assert call.attributes["gen_ai.request.model"] == model
    assert call.attributes["gen_ai.usage.output_tokens"] >= 1
    # the caller's account was read from the database inside the request
    assert any(
        s.attributes and s.attributes.get("db.system") == "postgresql" and _ancestor(in_trace, s, server)
        for s in in_trace
    )

    for s in finished:
        for value in (s.attributes or {}).values():
            text = str(value).lower()
            assert "mensah" not in text and "troponin" not in text, f"{s.name} leaks the transcript"
        for event in s.events:
            assert "mensah" not in str(dict(event.attributes or {})).lower(), f"{s.name} event leaks"


def test_failed_model_call_is_an_error_span_without_the_message(
    client: Any, worker: Any, gemini: Any, doctors_on_trial: None, spans: InMemorySpanExporter
) -> None:
    token = signup(client, doctor_payload(specialty="Cardiologist"))["token"]
    gemini.fail_next_generate(400, "INVALID_ARGUMENT", "Request mentions Abena Owusu-Ansah")
    spans.clear()
    r = client.post(
        "/api/summarize",
        json={"transcript": "Clinician: Abena Owusu-Ansah, 41."},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 502
    (call,) = [s for s in spans.get_finished_spans() if s.name.startswith("generate_content ")]
    assert call.status.status_code == trace.StatusCode.ERROR
    assert call.attributes is not None and call.attributes["error.type"] == "ClientError"
    assert "owusu" not in str(call.status.description).lower()
    assert not call.events, "exception events would carry the provider's message"


def _finished_with(spans: InMemorySpanExporter, name: str, timeout: float = 5.0) -> list[ReadableSpan]:
    """The finished spans, once one named `name` is among them (a worker ends its spans late)."""
    deadline = time.time() + timeout
    while not any(s.name == name for s in spans.get_finished_spans()):
        assert time.time() < deadline, f"span {name!r} never finished"
        time.sleep(0.05)
    return list(spans.get_finished_spans())


def _ancestor(spans: list[Any], span: Any, ancestor: Any) -> bool:
    by_id = {s.context.span_id: s for s in spans}
    current = span
    while current.parent is not None:
        if current.parent.span_id == ancestor.context.span_id:
            return True
        current = by_id.get(current.parent.span_id)
        if current is None:
            return False
    return False


def test_query_strings_stay_out_of_spans(client: Any, spans: InMemorySpanExporter) -> None:
    token = signup(client, doctor_payload())["token"]
    spans.clear()
    r = client.get(
        "/api/auth/user?search=kofi.annan%40example.org&name=Kofi",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 200
    (server,) = [s for s in spans.get_finished_spans() if s.kind == trace.SpanKind.SERVER]
    assert server.attributes is not None
    assert str(server.attributes["http.url"]).endswith("/api/auth/user")
    for s in spans.get_finished_spans():
        for value in (s.attributes or {}).values():
            assert "kofi" not in str(value).lower(), f"{s.name} keeps the query string"


def test_an_idle_worker_starts_no_trace(worker: Any, spans: InMemorySpanExporter) -> None:
    """The broker's polls, heartbeats and maintenance of an idle worker are no trace at all."""
    time.sleep(0.5)  # the worker's first fetches and the consumers' set-up
    spans.clear()
    time.sleep(2.0)  # tens of polls: each consumer fetches every worker_timeout (50 ms)
    finished = spans.get_finished_spans()
    assert finished == (), sorted({s.name for s in finished})


def test_a_job_trace_starts_when_its_message_is_taken(worker: Any, spans: InMemorySpanExporter) -> None:
    """Enqueued outside any request, a job is one trace rooted at its consumer span, holding its SQL."""
    from workers.registry import broker

    spans.clear()
    broker.get_actor("maintenance.purge_expired_tokens").send()
    worker.join("maintenance", timeout=10_000)
    finished = _finished_with(spans, "maintenance.purge_expired_tokens process")
    time.sleep(0.5)  # the acknowledgement and the next polls come after the job's span
    finished = list(spans.get_finished_spans())
    (process,) = [s for s in finished if s.name == "maintenance.purge_expired_tokens process"]
    assert process.parent is None and process.kind == trace.SpanKind.CONSUMER
    others = [s for s in finished if s is not process]
    assert others, "the job's SQL is traced inside it"
    for s in others:
        assert s.context.trace_id == process.context.trace_id, f"{s.name} starts a trace of its own"
        assert _ancestor(finished, s, process), s.name
    assert {s.attributes.get("db.system") for s in others if s.attributes} == {"postgresql"}


def test_client_calls_inside_a_span_are_kept_by_the_sampler() -> None:
    """QuietClientRoots drops parentless client spans only; the configured sampler decides the rest."""
    from opentelemetry.sdk.trace import sampling

    from cara.observability.tracing import QuietClientRoots

    quiet = QuietClientRoots(sampling.ALWAYS_ON)
    client = trace.SpanKind.CLIENT
    assert quiet.should_sample(None, 1, "EVALSHA", client).decision == sampling.Decision.DROP
    assert quiet.should_sample(None, 1, "GET /api/x", trace.SpanKind.SERVER).decision.is_sampled()
    parent = trace.set_span_in_context(
        trace.NonRecordingSpan(
            trace.SpanContext(trace_id=1, span_id=2, is_remote=False, trace_flags=trace.TraceFlags(1))
        )
    )
    assert quiet.should_sample(parent, 1, "SELECT", client).decision.is_sampled()
    never = QuietClientRoots(sampling.ALWAYS_OFF)
    assert not never.should_sample(None, 1, "job process", trace.SpanKind.CONSUMER).decision.is_sampled()
