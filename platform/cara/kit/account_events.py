"""Announcements that an account's or a tenant's access state changed, to every API process.

Each API process keeps what the principal check needs of an account (role, tenant, active,
password change, tenant status) in memory (cara.auth.account_state); whoever changes one of
those, or deletes the account or its tenant, announces it here after the commit. The message
goes to the listeners of this process at once and, over Redis pub/sub, to every other process:
on the channel that already carries token revocations (`CHANNEL`), read by the one subscriber
each process runs (cara.auth.tokens.RevocationList), whose liveness also decides whether the
in-memory state may be trusted at all.

Messages: `@account <uuid>`, `@tenant <uuid>`, `@all *` (a bulk change: forget everything).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Literal

import redis

from cara.kit.redis import get_redis

log = logging.getLogger("cara.account_events")
CHANNEL = "cara:revoked-tokens"
PREFIX = "@"
Kind = Literal["account", "tenant", "all"]

_listeners: list[Callable[[str], None]] = []


def on_message(listener: Callable[[str], None]) -> None:
    """Call `listener(message)` for every announcement, local or from another process."""
    if listener not in _listeners:
        _listeners.append(listener)


def dispatch(message: str) -> None:
    for listener in list(_listeners):
        listener(message)


def changed(changes: Iterable[tuple[Kind, str]]) -> None:
    """Announce `(kind, id)` changes: to this process now, then to the others through Redis."""
    messages = sorted({f"{PREFIX}{kind} {'*' if kind == 'all' else ident}" for kind, ident in changes})
    if not messages:
        return
    for message in messages:
        dispatch(message)
    try:
        pipe = get_redis().pipeline(transaction=False)
        for message in messages:
            pipe.publish(CHANNEL, message)
        pipe.execute()
    except redis.RedisError as exc:
        # Every subscriber lost Redis too (or will notice within a second): they stop trusting
        # their in-memory state and read the database until they have subscribed again.
        log.warning("account change not announced", extra={"error": type(exc).__name__})


def parse(message: str) -> tuple[Kind, str] | None:
    kind, _, ident = message.removeprefix(PREFIX).partition(" ")
    if not message.startswith(PREFIX) or kind not in ("account", "tenant", "all"):
        return None
    return kind, ident  # type: ignore[return-value]
