"""What a consultation needs to survive a dropped browser socket, kept where every replica reads it.

When the browser's socket drops (network blip, a replica draining with 1012, a laptop asleep), the
console reconnects with the same `consultationId`, possibly to another replica. That replica finds
here, in Redis:

* the latest resumable handle of the provider's session (valid for about two hours at the provider,
  so the key expires with it): the upstream session is resumed with the model's context intact;
  without one, a fresh session is primed with the stored transcript;
* whether the assistant was awake, so a rejoin does not put it back to sleep (or wake it);
* which socket currently holds the consultation: a newer socket takes over and the older one,
  wherever it runs, sees that within a second and ends, storing its open lines, so two sockets
  never relay (and number transcript lines) for one consultation at the same time.

Nothing clinical is kept here: a handle is an opaque provider token, the rest are flags.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import redis

from cara.kit.redis import get_redis

log = logging.getLogger("cara.live")

# The provider's resumption handles are valid for about two hours.
HANDLE_TTL_SECONDS = 2 * 60 * 60
# The holder of a consultation renews its claim every HOLD_RENEW_SECONDS; an abandoned claim
# (a replica killed without a drain) lapses after HOLD_TTL_SECONDS.
HOLD_TTL_SECONDS = 15
HOLD_RENEW_SECONDS = 1.0
_PREFIX = "live:consultation:"


def _key(consultation_id: uuid.UUID) -> str:
    return f"{_PREFIX}{consultation_id}"


@dataclass(frozen=True)
class Saved:
    handle: str | None = None
    awake: bool | None = None


def load(consultation_id: uuid.UUID) -> Saved:
    """The consultation's saved state (empty when Redis does not answer: a fresh, primed session)."""
    try:
        values = get_redis().hmget(_key(consultation_id), ["handle", "awake"])
    except redis.RedisError as exc:
        log.warning("live rejoin state unreadable", extra={"error": type(exc).__name__})
        return Saved()
    handle, awake = values
    return Saved(handle=handle or None, awake=None if awake is None else awake == "1")


def save(consultation_id: uuid.UUID, *, handle: str | None = None, awake: bool | None = None) -> None:
    """Keep the latest handle and/or the wake state (best effort: a failure costs a resumption)."""
    fields: dict[str | bytes, bytes | float | int | str] = {}
    if handle is not None:
        fields["handle"] = handle
    if awake is not None:
        fields["awake"] = "1" if awake else "0"
    if not fields:
        return
    try:
        pipe = get_redis().pipeline()
        pipe.hset(_key(consultation_id), mapping=fields)
        pipe.expire(_key(consultation_id), HANDLE_TTL_SECONDS)
        pipe.execute()
    except redis.RedisError as exc:
        log.warning("live rejoin state not saved", extra={"error": type(exc).__name__})


def forget_handle(consultation_id: uuid.UUID) -> None:
    """A handle the provider refused: the next socket starts a fresh, primed session."""
    with contextlib.suppress(redis.RedisError):
        get_redis().hdel(_key(consultation_id), "handle")


# ------------------------------------------------------------------ who holds the consultation


def _holder(consultation_id: uuid.UUID) -> str:
    return _key(consultation_id) + ":holder"


def _open(consultation_id: uuid.UUID, socket_id: str) -> str:
    """Present while that socket's relay runs; removed once its lines are stored."""
    return _key(consultation_id) + ":open:" + socket_id


def hold(consultation_id: uuid.UUID, socket_id: str) -> str | None:
    """This socket holds the consultation now; returns the socket that held it before, if any
    (it ends within HOLD_RENEW_SECONDS: wait for it with `wait_released`)."""
    try:
        pipe = get_redis().pipeline()
        pipe.set(_holder(consultation_id), socket_id, ex=HOLD_TTL_SECONDS, get=True)
        pipe.set(_open(consultation_id, socket_id), "1", ex=HOLD_TTL_SECONDS)
        previous, _ = pipe.execute()
    except redis.RedisError as exc:
        log.warning("live consultation hold not recorded", extra={"error": type(exc).__name__})
        return None
    return previous if isinstance(previous, str) and previous != socket_id else None


# The holder's renewal in one round trip (it runs every second for every open consultation):
# refuse if a newer socket holds it, else renew both claims.
_RENEW = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('SET', KEYS[2], '1', 'EX', ARGV[2])
return 1
"""


def still_held(consultation_id: uuid.UUID, socket_id: str) -> bool:
    """True while no newer socket took the consultation over (and renews this socket's claim).
    When Redis does not answer, the socket keeps the consultation."""
    try:
        client = get_redis()
        keys = [_holder(consultation_id), _open(consultation_id, socket_id)]
        # EVALSHA, with EVAL once per Redis server that has not seen the script.
        return bool(client.register_script(_RENEW)(keys=keys, args=[socket_id, HOLD_TTL_SECONDS]))
    except redis.RedisError:
        return True


def still_held_many(claims: Sequence[tuple[uuid.UUID, str]]) -> list[bool]:
    """`still_held` for several sockets' claims in one round trip (a pipeline of the script).
    When Redis does not answer, every socket keeps its consultation."""
    if not claims:
        return []
    try:
        client = get_redis()
        renew = client.register_script(_RENEW)
        pipe = client.pipeline(transaction=False)
        for consultation_id, socket_id in claims:
            keys = [_holder(consultation_id), _open(consultation_id, socket_id)]
            renew(keys=keys, args=[socket_id, HOLD_TTL_SECONDS], client=pipe)
        return [bool(held) for held in pipe.execute()]
    except redis.RedisError:
        return [True] * len(claims)


class _Renewals:
    """The claims of one event loop's consultations, renewed together.

    Every open consultation checks its claim every second (`HOLD_RENEW_SECONDS`). One thread
    hand-off and one Redis round trip each was a hundred a second at a hundred consultations:
    worker threads taking the GIL back from the event loop while it relays audio, in the middle
    of its codec calls (stalls of 11-180 ms, ops/bench/live_relay.py). The checks asked within
    `RENEW_WINDOW_SECONDS` of each other go in one pipeline, from one hand-off."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.waiting: list[tuple[uuid.UUID, str, asyncio.Future[bool]]] = []

    async def still_held(self, consultation_id: uuid.UUID, socket_id: str) -> bool:
        answer: asyncio.Future[bool] = self.loop.create_future()
        if not self.waiting:
            self.loop.call_later(RENEW_WINDOW_SECONDS, self._send)
        self.waiting.append((consultation_id, socket_id, answer))
        return await answer

    def _send(self) -> None:
        batch, self.waiting = self.waiting, []
        task = self.loop.create_task(self._renew(batch), name="live-claims")
        _renewing.add(task)
        task.add_done_callback(_renewing.discard)

    async def _renew(self, batch: list[tuple[uuid.UUID, str, asyncio.Future[bool]]]) -> None:
        try:
            held = await asyncio.to_thread(still_held_many, [(c, s) for c, s, _ in batch])
        except Exception:  # not Redis (that keeps the claims): the checks are not left waiting
            log.exception("live consultation claims not renewed")
            held = [True] * len(batch)
        for (_, _, answer), result in zip(batch, held, strict=True):
            if not answer.done():  # its consultation may have ended meanwhile
                answer.set_result(result)


RENEW_WINDOW_SECONDS = 0.2
_renewals: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Renewals] = weakref.WeakKeyDictionary()
_renewing: set[asyncio.Task[None]] = set()


async def still_held_soon(consultation_id: uuid.UUID, socket_id: str) -> bool:
    """`still_held`, renewed with the other claims of this event loop asked about within
    `RENEW_WINDOW_SECONDS` (at most that much later)."""
    loop = asyncio.get_running_loop()
    renewals = _renewals.get(loop)
    if renewals is None:
        renewals = _renewals[loop] = _Renewals(loop)
    return await renewals.still_held(consultation_id, socket_id)


def release(consultation_id: uuid.UUID, socket_id: str) -> None:
    """The socket is done with the consultation and its lines are stored."""
    try:
        client = get_redis()
        client.delete(_open(consultation_id, socket_id))
        if client.get(_holder(consultation_id)) == socket_id:
            client.delete(_holder(consultation_id))
    except redis.RedisError:
        pass


def released(consultation_id: uuid.UUID, socket_id: str) -> bool:
    """True once that socket's relay has stored its lines and let go (or its claim lapsed)."""
    try:
        return not get_redis().exists(_open(consultation_id, socket_id))
    except redis.RedisError:
        return True
