"""Every query of the registration domain (accounts' email lookups are cara.auth.repository's)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from cara.models import AdminInvitation


def invitation_by_hash(session: Session, token_hash: str) -> AdminInvitation | None:
    """The invitation with this token, locked until commit so it is accepted only once."""
    return session.scalar(
        select(AdminInvitation).where(AdminInvitation.token_hash == token_hash).with_for_update()
    )
