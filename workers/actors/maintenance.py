"""maintenance.* actors, run periodically by the scheduler."""

from __future__ import annotations

from datetime import timedelta

import dramatiq
from sqlalchemy import delete, or_

from cara.kit.db import session_scope
from cara.models import AdminInvitation, PasswordReset
from cara.models.base import utcnow
from workers.broker import broker


@dramatiq.actor(
    broker=broker, actor_name="maintenance.purge_expired_tokens", queue_name="maintenance", max_retries=3
)
def purge_expired_tokens() -> None:
    """Delete reset and invitation tokens that expired more than a day ago."""
    cutoff = utcnow() - timedelta(days=1)
    with session_scope() as session:
        session.execute(delete(PasswordReset).where(PasswordReset.expires_at < cutoff))
        session.execute(
            delete(AdminInvitation).where(
                or_(AdminInvitation.expires_at < cutoff, AdminInvitation.accepted_at < cutoff)
            )
        )
