"""The first platform admin comes from configuration, never from a public form.

FIRST_ADMIN_EMAIL and FIRST_ADMIN_PASSWORD create it once; later runs leave
an existing account untouched (changing the variables does not reset a
password that the admin may have changed since).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from cara.audit import service as audit
from cara.auth import passwords, repository
from cara.config import get_settings
from cara.kit.validation import email_error, normalise_email
from cara.models import Account


def ensure_first_admin(session: Session) -> bool:
    settings = get_settings()
    if not settings.first_admin_email or not settings.first_admin_password:
        return False
    if email_error(settings.first_admin_email):
        raise ValueError("FIRST_ADMIN_EMAIL is not a valid email address")
    if len(settings.first_admin_password) < 8:
        raise ValueError("FIRST_ADMIN_PASSWORD must be at least 8 characters")
    email = normalise_email(settings.first_admin_email)
    if repository.email_taken(session, email):
        return False
    account = Account(
        email=email,
        password_hash=passwords.hash_password(settings.first_admin_password),
        role="admin",
        name=settings.first_admin_name,
    )
    session.add(account)
    session.flush()
    audit.record_platform(
        session,
        action="admin.bootstrapped",
        actor_id=None,
        actor_role=None,
        target_type="account",
        target_id=account.id,
    )
    return True
