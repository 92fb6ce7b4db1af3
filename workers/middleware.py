"""Middleware that carries request context into jobs.

* TenantContext: the tenant schema of the request that enqueued a job travels
  in the message options and is exposed to the actor while it runs.
* TraceContext: the W3C trace context of the enqueuing span travels in the
  message options; the worker continues the same trace in a consumer span.
* Heartbeat: while every consumer and worker thread of a worker process is alive, the
  process touches its heartbeat file (workers.health), which the liveness and readiness
  probes read.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import dramatiq
from dramatiq.broker import MessageProxy
from dramatiq.middleware import Middleware
from opentelemetry import context as otel_context
from opentelemetry import propagate, trace

from cara.kit.jobs import current_tenant
from workers import health

__all__ = ["Heartbeat", "TenantContext", "TraceContext", "current_tenant"]

_tracer = trace.get_tracer("cara.workers")


class TenantContext(Middleware):
    @property
    def actor_options(self) -> set[str]:
        return set()

    def before_enqueue(self, broker: dramatiq.Broker, message: dramatiq.Message[Any], delay: int) -> None:
        tenant = current_tenant.get()
        if tenant and "tenant" not in message.options:
            message.options["tenant"] = tenant

    def before_process_message(self, broker: dramatiq.Broker, message: MessageProxy) -> None:
        message.options["_tenant_token"] = current_tenant.set(message.options.get("tenant"))

    def after_process_message(
        self,
        broker: dramatiq.Broker,
        message: MessageProxy,
        *,
        result: Any | None = None,
        exception: BaseException | None = None,
    ) -> None:
        token = message.options.pop("_tenant_token", None)
        if token is not None:
            current_tenant.reset(token)

    def after_skip_message(self, broker: dramatiq.Broker, message: MessageProxy) -> None:
        self.after_process_message(broker, message)


class TraceContext(Middleware):
    def before_enqueue(self, broker: dramatiq.Broker, message: dramatiq.Message[Any], delay: int) -> None:
        carrier: dict[str, str] = {}
        propagate.inject(carrier)
        if carrier:
            message.options["trace"] = carrier

    def before_process_message(self, broker: dramatiq.Broker, message: MessageProxy) -> None:
        parent = propagate.extract(message.options.get("trace") or {})
        span = _tracer.start_span(
            f"{message.actor_name} process",
            context=parent,
            kind=trace.SpanKind.CONSUMER,
            attributes={
                "messaging.system": "dramatiq",
                "messaging.destination.name": message.queue_name,
                "messaging.message.id": message.message_id,
                "cara.actor": message.actor_name,
                "cara.retries": int(message.options.get("retries", 0)),
            },
        )
        token = otel_context.attach(trace.set_span_in_context(span))
        message.options["_trace_span"] = span
        message.options["_trace_token"] = token

    def after_process_message(
        self,
        broker: dramatiq.Broker,
        message: MessageProxy,
        *,
        result: Any | None = None,
        exception: BaseException | None = None,
    ) -> None:
        span = message.options.pop("_trace_span", None)
        token = message.options.pop("_trace_token", None)
        if span is not None:
            if exception is not None:
                # The type only: an exception's message may quote a job's data (an address, a name).
                span.set_attribute("error.type", type(exception).__name__)
                span.set_status(trace.Status(trace.StatusCode.ERROR, type(exception).__name__))
            span.end()
        if token is not None:
            otel_context.detach(token)

    def after_skip_message(self, broker: dramatiq.Broker, message: MessageProxy) -> None:
        self.after_process_message(broker, message)


class Heartbeat(Middleware):
    """Beats for the probes from a daemon thread, only while the worker's threads all run.

    A consumer thread that died (its queue is no longer read) or a worker thread that died
    stops the beats: the liveness probe then restarts the container, and the messages the
    process held go back to their queues. A job that runs long does not stop them: the
    threads are alive, and the TimeLimit middleware bounds the job.
    """

    def __init__(self, interval: float = health.BEAT_SECONDS) -> None:
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def after_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, args=(worker,), name="cara-heartbeat", daemon=True)
        self._thread.start()

    def before_worker_shutdown(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.interval + 1)
            self._thread = None
        health.forget("worker")

    @staticmethod
    def threads_alive(worker: dramatiq.Worker) -> bool:
        threads = [*worker.consumers.values(), *worker.workers]
        return bool(threads) and all(thread.is_alive() for thread in threads)

    def _run(self, worker: dramatiq.Worker) -> None:
        while not self._stop.is_set():
            if self.threads_alive(worker):
                # A full or read-only /tmp: no beat, and the probe says so.
                with contextlib.suppress(OSError):
                    health.beat("worker")
            self._stop.wait(self.interval)
