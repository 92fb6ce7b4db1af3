"""Every query of the registration domain (accounts' email lookups are cara.auth.repository's)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import delete, or_, select
from sqlalchemy.orm import Session

from cara.models import AdminInvitation, PendingSignup


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


def pending_signup_by_hash(session: Session, token_hash: str) -> PendingSignup | None:
    """The pending sign-up with this link token, locked until commit so it is used only once."""
    return session.scalar(
        select(PendingSignup).where(PendingSignup.token_hash == token_hash).with_for_update()
    )


def pending_signup_for_update(session: Session, pending_id: uuid.UUID) -> PendingSignup | None:
    """The pending sign-up, locked until commit (mailed once)."""
    return session.get(PendingSignup, pending_id, with_for_update=True)


def delete_pending_signups_done_before(session: Session, cutoff: datetime) -> None:
    """Delete pending sign-ups (and the form they hold) that expired, or were used, before `cutoff`."""
    session.execute(
        delete(PendingSignup).where(or_(PendingSignup.expires_at < cutoff, PendingSignup.used_at < cutoff))
    )
