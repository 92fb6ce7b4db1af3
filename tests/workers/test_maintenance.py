"""maintenance.purge_expired_tokens: reset and invitation tokens go a day after they stop being usable."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select

from cara.kit.db import session_scope
from cara.models import Account, AdminInvitation, PasswordReset
from tests.factories import doctor_payload, signup
from workers.actors.maintenance import purge_expired_tokens


def _hash() -> str:
    return secrets.token_hex(32)


def test_purges_tokens_expired_or_accepted_more_than_a_day_ago(client: Any) -> None:
    signup(client, doctor_payload(email="resetting@example.com"))
    now = datetime.now(UTC)
    long_ago = now - timedelta(days=1, minutes=5)
    lately = now - timedelta(hours=23)
    later = now + timedelta(hours=1)
    with session_scope() as s:
        account_id = s.scalars(select(Account.id).where(Account.email == "resetting@example.com")).one()
        resets = {
            "expired long ago": long_ago,
            "expired lately": lately,
            "still valid": later,
        }
        for expires in resets.values():
            s.add(PasswordReset(account_id=account_id, token_hash=_hash(), expires_at=expires))
        invitations: dict[str, tuple[datetime, datetime | None]] = {
            "expired long ago": (long_ago, None),
            "expired lately": (lately, None),
            "accepted long ago": (later, long_ago),
            "accepted lately": (later, lately),
            "pending": (later, None),
        }
        for label, (expires, accepted) in invitations.items():
            s.add(
                AdminInvitation(
                    email=f"{label.replace(' ', '-')}@example.com",
                    token_hash=_hash(),
                    expires_at=expires,
                    accepted_at=accepted,
                )
            )

    purge_expired_tokens()

    with session_scope() as s:
        kept_resets = set(s.scalars(select(PasswordReset.expires_at)))
        kept_invitations = set(s.scalars(select(AdminInvitation.email)))
    assert kept_resets == {lately, later}
    assert kept_invitations == {
        "expired-lately@example.com",
        "accepted-lately@example.com",
        "pending@example.com",
    }
