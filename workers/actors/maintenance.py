"""maintenance.* actors, run periodically by the scheduler."""

from __future__ import annotations

from datetime import timedelta

import dramatiq

from cara.auth import repository as accounts
from cara.kit.db import session_scope
from cara.models.base import utcnow
from cara.registration import repository as invitations
from workers.broker import broker


@dramatiq.actor(
    broker=broker, actor_name="maintenance.purge_expired_tokens", queue_name="maintenance", max_retries=3
)
def purge_expired_tokens() -> None:
    """Delete reset and invitation tokens that expired more than a day ago."""
    cutoff = utcnow() - timedelta(days=1)
    with session_scope() as session:
        accounts.delete_resets_expired_before(session, cutoff)
        invitations.delete_invitations_done_before(session, cutoff)
