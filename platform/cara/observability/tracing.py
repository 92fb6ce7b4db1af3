"""OpenTelemetry setup for the API and the workers.

The exporter is chosen by OTEL_TRACES_EXPORTER: "otlp" (endpoint from the
standard OTEL_EXPORTER_OTLP_* variables), "console", "memory" (the SDK records
spans for in-process span processors only: the test suite's), or "none"
(default). With "none" no SDK provider is installed and nothing is
instrumented: every span is the API's non-recording no-op, so a request pays
nothing for tracing (ops/bench/request_overhead.py). With an exporter, the
SDK's standard OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG bound the cost
(e.g. parentbased_traceidratio, 0.1). FastAPI, SQLAlchemy and Redis are
instrumented; Dramatiq is covered by workers.middleware.TraceContext.

A client call made outside any unit of work (no request, job or enqueue around it) starts no
trace (QuietClientRoots): an idle worker's broker polls, its acknowledgements and heartbeats,
and the scheduler's slot claims would otherwise be a single-span trace each, some twenty a
second per worker. A job's trace starts when its message is taken, with the consumer span
(`<actor> process`), and the job's own calls are its children.

Patient data never goes into span attributes: SQLAlchemy spans carry the
statement text with bound parameters left out, HTTP spans carry the route
template and the path without its query string, and our own spans add only
ids, counts and model names.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Sequence
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider, sampling
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
from opentelemetry.trace import Link, Span, SpanKind, TraceState
from opentelemetry.util.types import Attributes

from cara.config import get_settings

log = logging.getLogger("cara.tracing")
_configured = False


def setup_tracing(
    *,
    service_name: str | None = None,
    instrument_app: Any | None = None,
    extra_processor: SpanProcessor | None = None,
) -> TracerProvider | None:
    """Install the tracer provider once per process and instrument libraries."""
    global _configured
    settings = get_settings()
    if _configured:
        if instrument_app is not None:
            _instrument_fastapi(instrument_app)
        return None
    _configured = True
    if settings.otel_traces_exporter == "none" and extra_processor is None:
        return None  # no provider, no instrumentation: spans are the API's no-op
    provider = TracerProvider(
        resource=resource(service_name or settings.otel_service_name),
        # OTEL_TRACES_SAMPLER decides for everything but parentless client calls.
        sampler=QuietClientRoots(sampling._get_from_env_or_default()),
    )
    if settings.otel_traces_exporter == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    elif settings.otel_traces_exporter == "console":
        provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter()))
    if extra_processor is not None:
        provider.add_span_processor(extra_processor)
    trace.set_tracer_provider(provider)

    from opentelemetry.instrumentation.redis import RedisInstrumentor
    from opentelemetry.instrumentation.sqlalchemy import SQLAlchemyInstrumentor

    from cara.kit.db import get_engine

    SQLAlchemyInstrumentor().instrument(engine=get_engine(), enable_commenter=False)
    RedisInstrumentor().instrument(sanitize_query=True)
    if instrument_app is not None:
        _instrument_fastapi(instrument_app)
    return provider


class QuietClientRoots(sampling.Sampler):
    """Drops a CLIENT span that has no parent; delegates every other decision.

    Redis and SQLAlchemy spans are CLIENT spans. Inside a request, a job or a send they have a
    parent and are kept (as the delegate decides); alone they are background chatter: the
    broker's polls of an idle worker, message acknowledgements, the scheduler's claims.
    """

    def __init__(self, delegate: sampling.Sampler) -> None:
        self.delegate = delegate

    def should_sample(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: TraceState | None = None,
    ) -> sampling.SamplingResult:
        parent = trace.get_current_span(parent_context).get_span_context()
        if kind == SpanKind.CLIENT and not parent.is_valid:
            return sampling.SamplingResult(sampling.Decision.DROP)
        return self.delegate.should_sample(
            parent_context, trace_id, name, kind, attributes, links, trace_state
        )

    def get_description(self) -> str:
        return f"QuietClientRoots{{{self.delegate.get_description()}}}"


def resource(service_name: str) -> Resource:
    """Who emits: the service, and this process (replicas' gauges must not overwrite each other)."""
    return Resource.create(
        {"service.name": service_name, "service.instance.id": f"{socket.gethostname()}-{os.getpid()}"}
    )


def _drop_query(span: Span, scope: dict[str, Any]) -> None:
    """Server spans keep the path, never the query string: it can carry a search term or an email."""
    attributes = getattr(span, "attributes", None) or {}
    for key in ("http.url", "http.target", "url.full"):
        value = attributes.get(key)
        if isinstance(value, str) and "?" in value:
            span.set_attribute(key, value.split("?", 1)[0])


def _instrument_fastapi(app: Any) -> None:
    from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

    if not getattr(app.state, "otel_instrumented", False):
        # No span per ASGI send/receive: a live consultation's socket carries 16 audio frames a
        # second. Probes are not traced.
        FastAPIInstrumentor.instrument_app(
            app,
            excluded_urls="api/health",
            exclude_spans=["receive", "send"],
            server_request_hook=_drop_query,
        )
        app.state.otel_instrumented = True
