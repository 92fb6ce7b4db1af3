"""Every query of the registration domain (accounts' email lookups are cara.auth.repository's)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import delete, or_, select
from sqlalchemy.orm import Session

from cara.models import AdminInvitation


def invitation_by_hash(session: Session, token_hash: str) -> AdminInvitation | None:
    """The invitation with this token, locked until commit so it is accepted only once."""
    return session.scalar(
        select(AdminInvitation).where(AdminInvitation.token_hash == token_hash).with_for_update()
    )


def invitation_for_update(session: Session, invitation_id: uuid.UUID) -> AdminInvitation | None:
    """The invitation, locked until commit (mailed once)."""
    return session.get(AdminInvitation, invitation_id, with_for_update=True)


def delete_invitations_done_before(session: Session, cutoff: datetime) -> None:
    """Delete invitations that expired, or were accepted, before `cutoff`."""
    session.execute(
        delete(AdminInvitation).where(
            or_(AdminInvitation.expires_at < cutoff, AdminInvitation.accepted_at < cutoff)
        )
    )
