"""Abuse limits: named limits from the settings, counted in Redis by the `limits` library.

A limit is written in the library's notation ("5 per 15 minutes", "100/hour") in a setting
(`RATE_LIMIT_*`, see the README), and counted in a moving window per identifier: a client
address, an account id or a hashed email. Identifiers are hashed before they reach Redis, so
no email address appears in a key name.

- `hit` counts one attempt and refuses it (429, `Retry-After`, the error shape) past the limit;
- `check` refuses without counting (an attempt that only counts when it fails, e.g. sign-in);
- `reached` asks the same without refusing (a limit that changes what is asked, not a block);
- `count` and `clear` are its other half (a failure counts; a success clears).

If Redis cannot answer, the redis exception reaches the error handlers: 503, not a pass.
"""

from __future__ import annotations

import hashlib
import math
import time
from functools import lru_cache

from limits import RateLimitItem, parse
from limits.storage import RedisStorage
from limits.strategies import MovingWindowRateLimiter

from cara.config import get_settings
from cara.kit.errors import TooManyRequests

TOO_MANY = "Too many requests. Please try again in {wait}."


@lru_cache
def _limiter(url: str) -> MovingWindowRateLimiter:
    storage = RedisStorage(url, key_prefix="cara-limits", socket_timeout=2, socket_connect_timeout=2)
    return MovingWindowRateLimiter(storage)


def limiter() -> MovingWindowRateLimiter:
    return _limiter(get_settings().redis_url)


@lru_cache(maxsize=64)
def item(spec: str) -> RateLimitItem:
    """The parsed limit; `spec` is validated with the settings, so this does not fail."""
    return parse(spec)


def _ids(name: str, identifiers: tuple[str, ...]) -> tuple[str, ...]:
    digest = hashlib.sha256("|".join(identifiers).encode()).hexdigest()[:32]
    return (name, digest)


def retry_after(name: str, spec: str, *identifiers: str) -> int:
    """Seconds until the window of `name` for these identifiers lets one more attempt in."""
    stats = limiter().get_window_stats(item(spec), *_ids(name, identifiers))
    return max(1, math.ceil(stats.reset_time - time.time()))


def wait_text(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def _refuse(name: str, spec: str, identifiers: tuple[str, ...], message: str) -> TooManyRequests:
    wait = retry_after(name, spec, *identifiers)
    return TooManyRequests(message.format(wait=wait_text(wait)), retry_after=wait)


def allow(name: str, spec: str, *identifiers: str) -> bool:
    """Counts one attempt; False when it is over the limit (and then it is not counted)."""
    return limiter().hit(item(spec), *_ids(name, identifiers))


def hit(name: str, spec: str, *identifiers: str, message: str = TOO_MANY) -> None:
    """Counts one attempt; past the limit, TooManyRequests ('{wait}' in `message` is filled in)."""
    if not allow(name, spec, *identifiers):
        raise _refuse(name, spec, identifiers, message)


def check(name: str, spec: str, *identifiers: str, message: str = TOO_MANY) -> None:
    """Refuses when the limit is already reached, without counting this attempt."""
    if not limiter().test(item(spec), *_ids(name, identifiers)):
        raise _refuse(name, spec, identifiers, message)


def reached(name: str, spec: str, *identifiers: str) -> bool:
    """Whether the limit is already reached (one more attempt would be over it); counts nothing."""
    return not limiter().test(item(spec), *_ids(name, identifiers))


def count(name: str, spec: str, *identifiers: str) -> None:
    """Counts one attempt (e.g. a failed sign-in) without refusing it."""
    limiter().hit(item(spec), *_ids(name, identifiers))


def clear(name: str, spec: str, *identifiers: str) -> None:
    limiter().clear(item(spec), *_ids(name, identifiers))
