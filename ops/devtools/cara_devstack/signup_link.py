"""Finishing a self sign-up from a tool (the fuzzer, the test factories).

A doctor or hospital signing themselves up is answered 202, and the account is made only when
the mailed link is followed (POST /api/auth/complete-signup). The link's token exists only in
the mail; a tool that can reach the database but not the mailbox gives the newest pending
sign-up of the address a token of its own (only its hash is stored, as the server stores it)
and then calls the real endpoint with it, so every rule of completing a sign-up still applies.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine


def known_link_token(email: str | None = None, *, database_url: str | None = None) -> str:
    """A working link token for the newest unused pending sign-up of `email` (of anyone when
    None). `database_url` names the server's database; by default the one cara's settings name."""
    token = secrets.token_urlsafe(24)
    digest = hashlib.sha256(token.encode()).hexdigest()
    engine: Engine
    if database_url:
        engine = create_engine(database_url)
    else:
        from cara.kit.db import get_engine

        engine = get_engine()
    where = "used_at IS NULL" + (" AND email = :email" if email is not None else "")
    with engine.begin() as conn:
        found = conn.execute(
            text(
                "UPDATE platform.pending_signups SET token_hash = :digest WHERE id = ("
                f" SELECT id FROM platform.pending_signups WHERE {where}"
                " ORDER BY created_at DESC LIMIT 1) RETURNING id"
            ),
            {"digest": digest, "email": (email or "").strip().lower()},
        ).first()
    if database_url:
        engine.dispose()
    if found is None:
        raise LookupError(f"no pending sign-up for {email or 'anyone'}")
    return token


def sign_up(http: Any, body: dict[str, Any], *, database_url: str | None = None) -> Any:
    """POST /api/auth/signup with `http` (an httpx client or a TestClient) and, when it is
    answered 202, follow the link: the response that made the account (201), or the refusal."""
    first = http.post("/api/auth/signup", json=body)
    if first.status_code != 202:
        return first
    token = known_link_token(str(body["email"]), database_url=database_url)
    return http.post("/api/auth/complete-signup", json={"token": token})
