"""Traces an idle worker starts per second: every root span, then with QuietClientRoots.

A Dramatiq worker (every queue of workers.registry, Dramatiq's default 1 s fetch timeout, as the
image runs it) sits idle on the Redis given, with Redis instrumented and the SDK recording spans
in memory. For each sampler it counts the traces begun during the window: Dramatiq's own samplers
first (every trace, then a 10 % ratio), then the same behind QuietClientRoots, which drops a
client call with no request, job or send around it. Figures only, no target; the Redis db is
flushed. Without --redis-url or BENCH_REDIS_URL an embedded Redis starts under .data/bench-redis.

    .venv/bin/python ops/bench/idle_worker_traces.py --redis-url redis://127.0.0.1:6379/13 [--seconds 10]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL"), help="a spare Redis db")
    parser.add_argument("--seconds", type=float, default=10.0, help="window per sampler (default 10)")
    parser.add_argument("--threads", type=int, default=4, help="worker threads (the chart's 4)")
    args = parser.parse_args(argv)
    with ExitStack() as stack:
        if not args.redis_url:
            from cara_devstack import embedded

            redis = embedded.start_redis(REPO / ".data" / "bench-redis")
            stack.callback(redis.stop)
            args.redis_url = redis.url.rsplit("/", 1)[0] + "/13"
        return measure(args)


def measure(args: argparse.Namespace) -> int:
    os.environ["REDIS_URL"] = args.redis_url
    # The application installs no provider of its own: this script's provider is the one used.
    os.environ["OTEL_TRACES_EXPORTER"] = "none"

    import dramatiq
    from opentelemetry import trace
    from opentelemetry.instrumentation.redis import RedisInstrumentor
    from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider, sampling

    from cara.observability.tracing import QuietClientRoots

    class Switch(sampling.Sampler):
        delegate: sampling.Sampler = sampling.ALWAYS_OFF

        def should_sample(self, *a: Any, **kw: Any) -> sampling.SamplingResult:
            return self.delegate.should_sample(*a, **kw)

        def get_description(self) -> str:
            return "Switch"

    class Count(SpanProcessor):
        def __init__(self) -> None:
            self.lock = threading.Lock()
            self.traces: set[int] = set()
            self.spans = 0

        def on_end(self, span: ReadableSpan) -> None:
            with self.lock:
                self.spans += 1
                if span.context is not None:
                    self.traces.add(span.context.trace_id)

        def reset(self) -> tuple[int, int]:
            with self.lock:
                counted = (len(self.traces), self.spans)
                self.traces, self.spans = set(), 0
            return counted

    switch, count = Switch(), Count()
    provider = TracerProvider(sampler=switch)
    provider.add_span_processor(count)
    trace.set_tracer_provider(provider)
    RedisInstrumentor().instrument(tracer_provider=provider, sanitize_query=True)

    from workers.registry import broker

    broker.flush_all()
    worker = dramatiq.Worker(broker, worker_threads=args.threads)
    worker.start()
    time.sleep(2.0)  # consumers started, first fetches done
    samplers = [
        ("every trace (parentbased_always_on)", sampling.ParentBased(sampling.ALWAYS_ON)),
        ("10 % (parentbased_traceidratio 0.1)", sampling.ParentBased(sampling.TraceIdRatioBased(0.1))),
        ("QuietClientRoots + every trace", QuietClientRoots(sampling.ParentBased(sampling.ALWAYS_ON))),
        ("QuietClientRoots + 10 %", QuietClientRoots(sampling.ParentBased(sampling.TraceIdRatioBased(0.1)))),
    ]
    queues = len(broker.get_declared_queues())
    print(f"idle worker, {queues} queues, {args.threads} threads, {args.seconds:.0f} s per sampler")
    print(f"{'sampler':<40} {'traces/s':>9} {'spans/s':>9}")
    try:
        for label, sampler in samplers:
            switch.delegate = sampler
            count.reset()
            time.sleep(args.seconds)
            traces, spans = count.reset()
            print(f"{label:<40} {traces / args.seconds:>9.1f} {spans / args.seconds:>9.1f}")
    finally:
        switch.delegate = sampling.ALWAYS_OFF
        worker.stop()
        broker.flush_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
