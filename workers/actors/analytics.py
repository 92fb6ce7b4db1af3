"""analytics.* actors: the rollups the admin console reads."""

from __future__ import annotations

import dramatiq

from cara.analytics import rollups
from cara.kit.db import session_scope
from workers.broker import broker


@dramatiq.actor(broker=broker, actor_name="analytics.refresh_rollups", queue_name="analytics", max_retries=3)
def refresh_rollups() -> None:
    """Recompute tenant rollups and the current/previous periods (idempotent)."""
    with session_scope() as session:
        rollups.refresh_all(session)
