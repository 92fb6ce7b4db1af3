"""Model usage of live consultations per tenant per day: tokens (the provider's `usageMetadata`) and
connected minutes, counted in Redis for the admin console and billing checks. Counts only: no
patient text, no consultation ids.

    live:usage:<YYYY-MM-DD>  hash  <tenant schema>:tokens, <tenant schema>:seconds
"""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime
from typing import Any

import redis

from cara.kit.redis import get_redis

log = logging.getLogger("cara.live")

KEEP_DAYS = 40
_PREFIX = "live:usage:"


def _key(day: date) -> str:
    return f"{_PREFIX}{day.isoformat()}"


def tokens_of(usage: dict[str, Any]) -> int:
    """Total tokens of one `usageMetadata` (the provider's total, else prompt + response)."""
    total = usage.get("totalTokenCount")
    if isinstance(total, int) and total >= 0:
        return total
    parts = (usage.get("promptTokenCount"), usage.get("responseTokenCount"))
    return sum(p for p in parts if isinstance(p, int) and p >= 0)


def add(schema: str, *, tokens: int = 0, seconds: int = 0, day: date | None = None) -> None:
    """Best effort: a Redis outage loses a count, never a consultation."""
    if tokens <= 0 and seconds <= 0:
        return
    key = _key(day or datetime.now(UTC).date())
    try:
        pipe = get_redis().pipeline()
        if tokens > 0:
            pipe.hincrby(key, f"{schema}:tokens", tokens)
        if seconds > 0:
            pipe.hincrby(key, f"{schema}:seconds", seconds)
        pipe.expire(key, KEEP_DAYS * 86_400)
        pipe.execute()
    except redis.RedisError as exc:
        log.warning("live usage not counted", extra={"error": type(exc).__name__})


def of_day(day: date) -> dict[str, dict[str, int]]:
    """{tenant schema: {"tokens": n, "seconds": n}} for one day (UTC)."""
    out: dict[str, dict[str, int]] = {}
    for field, value in get_redis().hgetall(_key(day)).items():
        schema, _, kind = field.rpartition(":")
        out.setdefault(schema, {"tokens": 0, "seconds": 0})[kind] = int(value)
    return out
