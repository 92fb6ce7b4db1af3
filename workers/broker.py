"""The Dramatiq broker, configured once per process.

Importing this module sets the global broker (Redis from REDIS_URL) with an
explicit middleware list: the standard ones we rely on plus our own tenant
and trace context carriers. Tests may call `configure(url)` again.
"""

from __future__ import annotations

import dramatiq
from dramatiq.brokers.redis import RedisBroker
from dramatiq.middleware import (
    AgeLimit,
    Callbacks,
    CurrentMessage,
    Pipelines,
    Retries,
    ShutdownNotifications,
    TimeLimit,
)

from cara.config import get_settings
from workers.middleware import Heartbeat, TenantContext, TraceContext


def configure(url: str | None = None) -> RedisBroker:
    settings = get_settings()
    broker = RedisBroker(  # type: ignore[no-untyped-call]
        url=url or settings.redis_url,
        # A killed worker's unacknowledged messages are redelivered after this (at-least-once).
        heartbeat_timeout=settings.broker_heartbeat_timeout_ms,
        maintenance_chance=settings.broker_maintenance_chance,
        middleware=[
            AgeLimit(),
            TimeLimit(time_limit=5 * 60 * 1000),
            ShutdownNotifications(),
            Callbacks(),
            Pipelines(),
            # Exponential backoff between 1 s and 5 min, at most 8 retries
            # unless an actor says otherwise.
            Retries(max_retries=8, min_backoff=1_000, max_backoff=300_000),
            CurrentMessage(),
            TenantContext(),
            TraceContext(),
            # The probes' heartbeat file (workers.health); only a running Worker beats.
            Heartbeat(),
        ],
    )
    dramatiq.set_broker(broker)
    return broker


broker = configure()
