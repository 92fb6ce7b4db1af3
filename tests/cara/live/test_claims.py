"""A consultation's claim (cara.live.rejoin): renewed for every open socket of a process together."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from cara.kit.redis import get_redis
from cara.live import rejoin


def test_many_claims_are_renewed_in_one_round_trip_with_each_its_own_answer(client: Any) -> None:
    kept, taken = uuid.uuid4(), uuid.uuid4()
    assert rejoin.hold(kept, "socket-a") is None
    assert rejoin.hold(taken, "socket-b") is None
    assert rejoin.hold(taken, "socket-c") == "socket-b"  # a newer socket took it over
    assert rejoin.still_held_many([(kept, "socket-a"), (taken, "socket-b"), (taken, "socket-c")]) == [
        True,
        False,
        True,
    ]
    redis = get_redis()
    # Renewed: the holder and the socket's own key live on, for the claim's time-to-live.
    assert 0 < redis.ttl(f"live:consultation:{kept}:holder") <= rejoin.HOLD_TTL_SECONDS
    assert 0 < redis.ttl(f"live:consultation:{kept}:open:socket-a") <= rejoin.HOLD_TTL_SECONDS
    assert redis.get(f"live:consultation:{taken}:holder") == "socket-c"  # the loser changed nothing


def test_checks_asked_together_share_one_hand_off(client: Any, monkeypatch: Any) -> None:
    calls: list[list[tuple[uuid.UUID, str]]] = []
    real = rejoin.still_held_many

    def counted(claims: list[tuple[uuid.UUID, str]]) -> list[bool]:
        calls.append(list(claims))
        return real(claims)

    monkeypatch.setattr(rejoin, "still_held_many", counted)
    ids = [uuid.uuid4() for _ in range(5)]
    for n, consultation in enumerate(ids):
        rejoin.hold(consultation, f"socket-{n}")
    rejoin.hold(ids[0], "newer")

    async def ask() -> list[bool]:
        return await asyncio.gather(*(rejoin.still_held_soon(c, f"socket-{n}") for n, c in enumerate(ids)))

    assert asyncio.run(ask()) == [False, True, True, True, True]
    assert len(calls) == 1 and len(calls[0]) == 5


def test_without_redis_every_socket_keeps_its_consultation(monkeypatch: Any) -> None:
    import redis as redis_module

    class Down:
        def register_script(self, script: str) -> Any:
            raise redis_module.ConnectionError("down")

    monkeypatch.setattr(rejoin, "get_redis", lambda: Down())
    assert rejoin.still_held_many([(uuid.uuid4(), "a"), (uuid.uuid4(), "b")]) == [True, True]
