"""mail.* actors: messages that carry links (password reset, admin invitation)."""

from __future__ import annotations

import uuid

import dramatiq

from cara.auth import repository as accounts
from cara.auth import service as auth_service
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


# Each role signs in on its own page, which reads `?unlock=`.
LOGIN_PAGES = {"doctor": "/doctor-login", "hospital": "/hospital-login", "admin": "/admin-login"}


@dramatiq.actor(broker=broker, actor_name="mail.login_unlock", queue_name="mail", max_retries=5)
def login_unlock(account_id: str, token: str) -> None:
    """The sign-in link after a right password from a new place, past the sign-in limits.
    A link already used, expired or ended by a password change is not mailed."""
    settings = get_settings()
    with session_scope() as session:
        account = auth_service.account_for_unlock_mail(session, uuid.UUID(account_id), token)
        if account is None:
            return
        page = LOGIN_PAGES.get(account.role, "/login")
        mailer.send(
            to=account.email,
            subject="Your Cara sign-in link",
            body=(
                "Someone signed in to your Cara account with the right password from a device or "
                "network it has not used before, after many failed sign-ins on your account or "
                "from that network. To be sure it is you, sign-in from there needs this link "
                f"(valid for {settings.login_unlock_ttl_minutes} minutes, usable once):\n"
                f"{settings.public_base_url}{page}?unlock={token}\n\n"
                "If it was not you, do not open the link: reset your password from the sign-in page."
            ),
        )


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


@dramatiq.actor(broker=broker, actor_name="mail.password_changed", queue_name="mail", max_retries=5)
def password_changed(email: str) -> None:
    mailer.send(
        to=email,
        subject="Your Cara password was changed",
        body=(
            "The password of your Cara account was just changed, and every other session was signed out.\n\n"
            "If it was not you, reset your password now from the sign-in page and contact your administrator."
        ),
    )


@dramatiq.actor(broker=broker, actor_name="mail.mfa_disabled", queue_name="mail", max_retries=5)
def mfa_disabled(email: str) -> None:
    mailer.send(
        to=email,
        subject="Two-factor sign-in was turned off on your Cara account",
        body=(
            "Two-factor sign-in was just turned off on your Cara account: signing in now needs only "
            "your password.\n\n"
            "If it was not you, reset your password now from the sign-in page and contact your administrator."
        ),
    )


@dramatiq.actor(broker=broker, actor_name="mail.signup_link", queue_name="mail", max_retries=5)
def signup_link(pending_id: str, token: str) -> None:
    """The link that finishes a doctor's or hospital's own sign-up. Mailed once; a link already
    used or expired is not mailed."""
    settings = get_settings()
    with session_scope() as session:
        pending = invitations.pending_signup_for_update(session, uuid.UUID(pending_id))
        if pending is None or pending.mailed_at is not None or pending.used_at is not None:
            return
        if pending.expires_at <= utcnow():
            return
        who = "your hospital's account" if pending.role == "hospital" else "your account"
        mailer.send(
            to=pending.email,
            subject="Finish creating your Cara account",
            body=(
                f"Welcome to Cara. Open this link to confirm this address and finish creating {who} "
                f"(valid for {settings.signup_link_hours} hours, usable once):\n"
                f"{settings.public_base_url}/complete-signup?token={token}\n\n"
                "If you did not sign up for Cara, ignore this email: no account is made without it."
            ),
        )
        pending.mailed_at = utcnow()


@dramatiq.actor(broker=broker, actor_name="mail.signup_email_in_use", queue_name="mail", max_retries=5)
def signup_email_in_use(email: str) -> None:
    """Someone signed up with an address that already has an account: its owner is told (the
    sign-up was answered as for a new address, so it learnt nothing)."""
    mailer.send(
        to=email,
        subject="Someone tried to sign up on Cara with your email",
        body=(
            "Someone tried to create a Cara account with this email address, but it already has "
            "one, so no new account was made and yours is unchanged.\n\n"
            "If it was you, sign in with your existing account, or reset your password from the "
            "sign-in page. If it was not you, you can ignore this email."
        ),
    )


@dramatiq.actor(broker=broker, actor_name="mail.doctor_email_in_use", queue_name="mail", max_retries=5)
def doctor_email_in_use(email: str, hospital_name: str) -> None:
    """A hospital tried to add a doctor with an address that already has a Cara account: its
    owner is told (the hospital was answered as for any address, so it learnt nothing)."""
    mailer.send(
        to=email,
        subject="A hospital tried to add you on Cara",
        body=(
            f"{hospital_name} tried to add a doctor with this email address on Cara, but this "
            "address already has a Cara account, so no new account was made and yours is unchanged.\n\n"
            "If you work with this hospital, ask it to add you with another address, or sign in "
            "with your existing account. If you do not know this hospital, you can ignore this email."
        ),
    )


@dramatiq.actor(broker=broker, actor_name="mail.email_changed", queue_name="mail", max_retries=5)
def email_changed(change_id: str, token: str) -> None:
    """The old address is told of the change, with the link that undoes it."""
    with session_scope() as session:
        change = auth_service.email_change_for_mail(session, uuid.UUID(change_id))
        if change is None or change.used_at is not None:
            return
        link = f"{get_settings().public_base_url}/undo-email-change?token={token}"
        mailer.send(
            to=change.old_email,
            subject="The sign-in email of your Cara account was changed",
            body=(
                "The sign-in email of your Cara account was changed from this address, and every "
                "session was signed out.\n\n"
                f"If it was not you, open this link within {auth_service.EMAIL_UNDO_HOURS} hours to "
                f"undo the change (it signs every session out again):\n{link}\n\n"
                "Then reset your password from the sign-in page."
            ),
        )


@dramatiq.actor(broker=broker, actor_name="mail.email_change_confirm", queue_name="mail", max_retries=5)
def email_change_confirm(change_id: str, token: str) -> None:
    """A hospital gave its doctor this new address: a confirmation link, or, when the address
    already has an account, a note saying so (the hospital is never told which)."""
    with session_scope() as session:
        change = auth_service.email_change_for_mail(session, uuid.UUID(change_id))
        if change is None or change.used_at is not None:
            return
        if auth_service.email_taken(session, change.new_email):
            mailer.send(
                to=change.new_email,
                subject="Cara email change",
                body=(
                    "A hospital asked to make this address the sign-in email of one of its doctors on "
                    "Cara, but a Cara account already uses it, so nothing was changed.\n\n"
                    "If it was meant for you, ask the hospital to use another address."
                ),
            )
            return
        link = f"{get_settings().public_base_url}/confirm-email-change?token={token}"
        mailer.send(
            to=change.new_email,
            subject="Confirm your new Cara sign-in email",
            body=(
                "Your hospital asked to make this address your sign-in email on Cara.\n\n"
                f"Open this link within {auth_service.EMAIL_CONFIRM_HOURS} hours to confirm:\n{link}\n\n"
                "If you do not know about it, ignore this email; nothing changes."
            ),
        )


@dramatiq.actor(broker=broker, actor_name="mail.verify_email", queue_name="mail", max_retries=5)
def verify_email(change_id: str, token: str) -> None:
    """A new hospital's verification link."""
    settings = get_settings()
    with session_scope() as session:
        link = auth_service.email_change_for_mail(session, uuid.UUID(change_id))
        if link is None or link.used_at is not None:
            return
        mailer.send(
            to=link.new_email,
            subject="Verify your hospital's email on Cara",
            body=(
                "Welcome to Cara. Open this link to verify your hospital's email address:\n"
                f"{settings.public_base_url}/verify-email?token={token}\n\n"
                "Until then you cannot add doctors or choose a plan, and a hospital that is not "
                f"verified within {settings.unverified_hospital_days} days is removed."
            ),
        )
