"""analytics.* actors: the rollups the admin console reads.

`refresh_rollups` runs every 5 minutes (the scheduler) and, debounced, after the
events that change the figures: `figures_changed` (enqueued after commit by
cara.analytics.service) claims a Redis key and schedules one refresh
`DEBOUNCE_MS` later; events until that refresh starts find the key taken and
add nothing, since the refresh will read their committed rows. The refresh
releases the key as it starts, so an event during a refresh schedules the next.
"""

from __future__ import annotations

import dramatiq

from cara.analytics import rollups
from cara.kit.db import session_scope
from cara.kit.redis import get_redis
from workers.broker import broker

# A burst of events within this window makes one refresh; well under the minute
# the admin overview may lag.
DEBOUNCE_MS = 5_000
# Held from the first event until its refresh starts; expires in case that refresh is lost.
PENDING_KEY = "cara:analytics:refresh-pending"
PENDING_TTL_S = 60


@dramatiq.actor(broker=broker, actor_name="analytics.refresh_rollups", queue_name="analytics", max_retries=3)
def refresh_rollups() -> None:
    """Recompute tenant rollups and the current/previous periods (idempotent)."""
    get_redis().delete(PENDING_KEY)
    with session_scope() as session:
        rollups.refresh_all(session)


@dramatiq.actor(broker=broker, actor_name="analytics.figures_changed", queue_name="analytics", max_retries=3)
def figures_changed() -> None:
    """Schedule one refresh for a burst of changes (see the module's note)."""
    redis = get_redis()
    if not redis.set(PENDING_KEY, "1", nx=True, ex=PENDING_TTL_S):
        return  # a refresh is already scheduled and has not started yet
    try:
        refresh_rollups.send_with_options(delay=DEBOUNCE_MS)
    except Exception:
        redis.delete(PENDING_KEY)
        raise
