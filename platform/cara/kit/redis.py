"""The shared Redis client (token revocation, login throttling, scheduler locks)."""

from __future__ import annotations

# decode_responses=True: every reply is str.
from functools import lru_cache

import redis

from cara.config import get_settings


@lru_cache
def get_redis() -> redis.Redis[str]:
    return redis.Redis.from_url(
        get_settings().redis_url, socket_timeout=2, socket_connect_timeout=2, decode_responses=True
    )


@lru_cache
def get_binary_redis() -> redis.Redis[bytes]:
    """The same server, replies as bytes: for values that are files (kept export renditions)."""
    return redis.Redis.from_url(get_settings().redis_url, socket_timeout=5, socket_connect_timeout=2)


def reset_redis() -> None:
    get_redis.cache_clear()
    get_binary_redis.cache_clear()
