"""The live domain's public surface for other domains: model usage of live consultations.

The admin console reads AI minutes and tokens per tenant from here (counted by `usage.py`).
"""

from __future__ import annotations

from datetime import date, timedelta

import redis

from cara.kit.errors import ServiceUnavailable
from cara.live import usage

USAGE_KEPT_DAYS = usage.KEEP_DAYS
UNAVAILABLE = "Service temporarily unavailable. Please try again shortly."


def usage_between(first: date, last: date) -> dict[str, dict[str, int]]:
    """{tenant schema: {"tokens": n, "seconds": n}} summed over the days first..last (UTC, both
    included). Days older than the counts are kept simply count nothing."""
    total: dict[str, dict[str, int]] = {}
    day = first
    try:
        while day <= last:
            for schema, counts in usage.of_day(day).items():
                into = total.setdefault(schema, {"tokens": 0, "seconds": 0})
                into["tokens"] += counts.get("tokens", 0)
                into["seconds"] += counts.get("seconds", 0)
            day += timedelta(days=1)
    except redis.RedisError as exc:
        raise ServiceUnavailable(UNAVAILABLE) from exc
    return total
