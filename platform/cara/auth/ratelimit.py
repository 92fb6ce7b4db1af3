"""Login throttling: failed attempts per (email, client address) in a window.

A fixed window in Redis: the first failure starts the window, every failure
increments it, a success clears it. Past the limit, attempts are refused
before the password is even checked.
"""

from __future__ import annotations

import hashlib

from cara.config import get_settings
from cara.kit.errors import TooManyRequests
from cara.kit.redis import get_redis

_PREFIX = "cara:login-failures:"


def _key(email: str, client: str) -> str:
    # Hash so raw email addresses are not written into Redis key names.
    digest = hashlib.sha256(f"{email}|{client}".encode()).hexdigest()[:32]
    return _PREFIX + digest


def check(email: str, client: str) -> None:
    settings = get_settings()
    r = get_redis()
    key = _key(email, client)
    failures = int(r.get(key) or 0)
    if failures >= settings.login_max_failures:
        ttl = int(r.ttl(key))
        wait = max(ttl, 1)
        minutes = max(1, (wait + 59) // 60)
        raise TooManyRequests(
            f"Too many failed login attempts. Please try again in {minutes} minute"
            f"{'s' if minutes != 1 else ''}.",
            retry_after=wait,
        )


def record_failure(email: str, client: str) -> None:
    r = get_redis()
    key = _key(email, client)
    pipe = r.pipeline()
    # SET NX starts the window at the first failure; INCR keeps its TTL.
    # (Works on Redis 6.2, which lacks EXPIRE ... NX.)
    pipe.set(key, 0, ex=get_settings().login_window_seconds, nx=True)
    pipe.incr(key)
    pipe.execute()


def clear(email: str, client: str) -> None:
    get_redis().delete(_key(email, client))
