"""mail.* actors: messages that carry links (password reset, admin invitation)."""

from __future__ import annotations

import uuid

import dramatiq

from cara.auth import repository as accounts
from cara.config import get_settings
from cara.kit.db import session_scope
from cara.models.base import utcnow
from cara.notifications import mailer
from cara.registration import repository as invitations
from workers.broker import broker


@dramatiq.actor(broker=broker, actor_name="mail.password_reset", queue_name="mail", max_retries=5)
def password_reset(reset_id: str, token: str) -> None:
    """Email the reset link. Idempotent: a reset already mailed or used is skipped."""
    with session_scope() as session:
        row = accounts.reset_with_email(session, uuid.UUID(reset_id))
        if row is None:
            return
        reset, email = row
        if reset.mailed_at is not None or reset.used_at is not None:
            return
        link = f"{get_settings().public_base_url}/forgot-password?token={token}"
        mailer.send(
            to=email,
            subject="Reset your Cara password",
            body=(
                "Someone asked to reset the password of your Cara account.\n\n"
                f"Open this link to choose a new password (valid for "
                f"{get_settings().password_reset_ttl_minutes} minutes, usable once):\n{link}\n\n"
                "If it was not you, ignore this email; your password stays the same."
            ),
        )
        reset.mailed_at = utcnow()


@dramatiq.actor(broker=broker, actor_name="mail.password_reset_no_account", queue_name="mail", max_retries=5)
def password_reset_no_account(email: str) -> None:
    """A reset was asked for an address with no (active) account: tell its owner, not the caller."""
    mailer.send(
        to=email,
        subject="Cara password reset",
        body=(
            "Someone asked to reset the password of a Cara account with this email address, "
            "but no active Cara account uses it.\n\n"
            "If it was you, you may have signed up with another address. "
            "If it was not you, ignore this email."
        ),
    )


@dramatiq.actor(broker=broker, actor_name="mail.admin_invitation", queue_name="mail", max_retries=5)
def admin_invitation(invitation_id: str, token: str) -> None:
    with session_scope() as session:
        invitation = invitations.invitation_for_update(session, uuid.UUID(invitation_id))
        if invitation is None or invitation.mailed_at is not None or invitation.accepted_at is not None:
            return
        link = f"{get_settings().public_base_url}/admin-register?invitation={token}"
        mailer.send(
            to=invitation.email,
            subject="You are invited to administer Cara",
            body=f"You have been invited to become a Cara platform administrator.\n\n{link}\n",
        )
        invitation.mailed_at = utcnow()
