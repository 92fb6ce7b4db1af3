"""Revocation without a Redis round trip per request: each API process keeps the revoked token ids
in memory, fed by a Redis channel. A logout on one replica reaches every other within a second; a
replica that was away (re)loads the revocations from Redis; while its list is not current a
request asks Redis itself."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from cara.auth import tokens
from cara.config import get_settings
from tests.factories import auth, doctor_payload, signup


def _claims() -> tokens.TokenClaims:
    return tokens.TokenClaims(
        account_id=uuid.uuid4(),
        role="doctor",
        tenant_schema="independent",
        token_id=uuid.uuid4().hex,
        issued_at_ms=int(time.time() * 1000),
        expires_at=int(time.time()) + 3600,
    )


def _within(seconds: float, condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


@pytest.fixture
def replicas() -> Iterator[list[tokens.RevocationList]]:
    """Two more processes' lists, each with its own Redis connection, as two replicas would have."""
    lists = [
        tokens.RevocationList(redis.Redis.from_url(get_settings().redis_url, decode_responses=True)).start()
        for _ in range(2)
    ]
    try:
        assert _within(5, lambda: all(r.current() for r in lists)), "the replicas never subscribed"
        yield lists
    finally:
        for r in lists:
            r.stop()


def test_a_revocation_reaches_every_replica_within_a_second(
    client: Any, replicas: list[tokens.RevocationList]
) -> None:
    claims = _claims()
    tokens.revoke(claims)
    assert _within(1.0, lambda: all(r.contains(claims.token_id) for r in replicas))


def test_a_replica_that_subscribes_later_loads_earlier_revocations(client: Any) -> None:
    claims = _claims()
    tokens.revoke(claims)
    late = tokens.RevocationList(
        redis.Redis.from_url(get_settings().redis_url, decode_responses=True)
    ).start()
    try:
        assert _within(5, late.current)
        assert late.contains(claims.token_id)
        assert not late.contains(_claims().token_id)
    finally:
        late.stop()


def test_a_list_that_is_not_current_asks_redis(client: Any, monkeypatch: Any) -> None:
    claims = _claims()
    stopped = tokens.RevocationList()  # never started: not current
    monkeypatch.setattr(tokens, "_list", lambda: stopped)
    assert not stopped.current()
    assert tokens.is_revoked_cached(claims) is False
    # Revoked behind this process's back (another replica wrote the key): Redis is asked.
    tokens.get_redis().set("cara:revoked-token:" + claims.token_id, str(claims.expires_at), ex=60)
    assert tokens.is_revoked_cached(claims) is True
    # And with Redis down the request fails closed (503), never lets the token through.
    monkeypatch.setattr(tokens, "get_redis", lambda: redis.Redis.from_url("redis://127.0.0.1:1/0"))
    with pytest.raises(redis.RedisError):
        tokens.is_revoked_cached(claims)


def test_logout_on_one_replica_is_refused_by_the_others(
    client: Any, replicas: list[tokens.RevocationList], monkeypatch: Any
) -> None:
    token = signup(client, doctor_payload())["token"]
    assert client.get("/api/auth/user", headers=auth(token)).status_code == 200
    assert client.post("/api/auth/logout", headers=auth(token)).status_code == 200
    # The same app answering as the second replica: only that replica's list is consulted.
    other = replicas[0]
    monkeypatch.setattr(tokens, "_list", lambda: other)
    assert _within(1.0, lambda: client.get("/api/auth/user", headers=auth(token)).status_code == 401)


def test_a_lost_subscription_is_noticed_and_recovered(client: Any) -> None:
    connection = redis.Redis.from_url(get_settings().redis_url, decode_responses=True)
    revoked = tokens.RevocationList(connection).start()
    try:
        assert _within(5, revoked.current)
        # Drop the list's connection from the server side, as a Redis restart would.
        connection.client_kill_filter(_type="pubsub")
        claims = _claims()
        tokens.revoke(claims)
        # Back on its feet, with the revocation (as a message or from the keys).
        assert _within(5, lambda: revoked.current() and revoked.contains(claims.token_id))
    finally:
        revoked.stop()
