"""Access tokens: signed JWTs with an expiry, revocable by id.

Claims: `sub` account id, `role`, `tnt` tenant schema (absent for admins),
`jti` token id, `iat`/`exp`, and `iat_ms` (millisecond issue time, compared
with the account's password change so older tokens die with the password).
Revoked token ids are kept in Redis until the token would have expired, and announced on a
Redis channel: every API process keeps the revoked ids in memory (`RevocationList`, fed by
that channel, loaded from the keys whenever it (re)subscribes), so a request checks revocation
without a Redis round trip and a logout reaches every replica within milliseconds. While the
list is not known to be current (starting, or its connection lost for more than
`STALE_AFTER` s) the check asks Redis itself, which fails closed when Redis is down.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass

import jwt
import redis

from cara.config import get_settings
from cara.kit import account_events
from cara.kit.redis import get_redis

log = logging.getLogger("cara.auth.revocation")
_ALGORITHM = "HS256"
_REVOKED_PREFIX = "cara:revoked-token:"
# Also carries the account-state announcements (cara.kit.account_events): one subscriber for both.
REVOKED_CHANNEL = account_events.CHANNEL
# The in-memory list is trusted only while its subscriber has proved alive this recently.
STALE_AFTER = 1.0


@dataclass(frozen=True)
class TokenClaims:
    account_id: uuid.UUID
    role: str
    tenant_schema: str | None
    token_id: str
    issued_at_ms: int
    expires_at: int
    # The browser session family the token was issued to (`fam`), None for API clients.
    family_id: str | None = None


def issue(
    *,
    account_id: uuid.UUID,
    role: str,
    tenant_schema: str | None,
    family_id: str | None = None,
    ttl_minutes: int | None = None,
) -> str:
    settings = get_settings()
    now = time.time()
    minutes = settings.jwt_ttl_minutes if ttl_minutes is None else ttl_minutes
    payload: dict[str, object] = {
        "sub": str(account_id),
        "role": role,
        "jti": uuid.uuid4().hex,
        "iat": int(now),
        "iat_ms": int(now * 1000),
        "exp": int(now + minutes * 60),
    }
    if tenant_schema:
        payload["tnt"] = tenant_schema
    if family_id:
        payload["fam"] = family_id
    return jwt.encode(payload, settings.jwt_secret, algorithm=_ALGORITHM)


# Tokens whose signature was verified, by their exact text: a client sends the same token on
# every request, and the HMAC, base64 and JSON work of PyJWT was a visible part of each. The
# expiry is still checked at every use; the secret is part of the key (tests change it).
_VERIFIED: OrderedDict[tuple[str, str], TokenClaims] = OrderedDict()
_VERIFIED_MAX = 10_000


def decode(token: str) -> TokenClaims | None:
    """Verify signature and expiry; None when the token is not acceptable."""
    key = (get_settings().jwt_secret, token)
    known = _VERIFIED.get(key)
    if known is not None:
        # Leeway as PyJWT's (none): expired the second `exp` is reached.
        return known if time.time() < known.expires_at else None
    claims = _verify(token)
    if claims is not None:
        _VERIFIED[key] = claims
        while len(_VERIFIED) > _VERIFIED_MAX:
            try:
                _VERIFIED.popitem(last=False)
            except KeyError:
                break
    return claims


def decode_running(token: str) -> TokenClaims | None:
    """For a connection opened with this token and still running (the live socket's periodic
    re-check): a browser session's access token lives minutes, so past its expiry it is still
    accepted while its family is not revoked (checked with the token's own revocation)."""
    claims = decode(token)
    if claims is not None:
        return claims
    claims = _verify(token, verify_exp=False)
    return claims if claims is not None and claims.family_id is not None else None


def _verify(token: str, *, verify_exp: bool = True) -> TokenClaims | None:
    try:
        payload = jwt.decode(
            token,
            get_settings().jwt_secret,
            algorithms=[_ALGORITHM],
            options={"require": ["sub", "role", "jti", "exp", "iat"], "verify_exp": verify_exp},
        )
        return TokenClaims(
            account_id=uuid.UUID(str(payload["sub"])),
            role=str(payload["role"]),
            tenant_schema=str(payload["tnt"]) if payload.get("tnt") else None,
            token_id=str(payload["jti"]),
            issued_at_ms=int(payload.get("iat_ms", int(payload["iat"]) * 1000)),
            expires_at=int(payload["exp"]),
            family_id=str(payload["fam"]) if payload.get("fam") else None,
        )
    except (jwt.PyJWTError, ValueError, TypeError):
        return None


def revoke(claims: TokenClaims) -> None:
    revoke_id(claims.token_id, claims.expires_at)


def revoke_family(family_id: str) -> None:
    """Every access token issued to a session family: they carry its id (`fam`), which is
    revoked like a token id for as long as the longest of them can live."""
    settings = get_settings()
    longest = max(settings.access_token_ttl_minutes, settings.jwt_ttl_minutes)
    revoke_id(family_id, int(time.time()) + longest * 60)


def revoke_id(revoked_id: str, expires_at: int) -> None:
    ttl = max(1, expires_at - int(time.time()))
    client = get_redis()
    # The key first: a replica that (re)subscribes after the message still finds it.
    client.set(_REVOKED_PREFIX + revoked_id, str(expires_at), ex=ttl)
    client.publish(REVOKED_CHANNEL, f"{revoked_id} {expires_at}")
    _list().add(revoked_id, expires_at)


def is_revoked(claims: TokenClaims) -> bool:
    """Asked of Redis itself (the live consultations' periodic re-check)."""
    keys = [_REVOKED_PREFIX + claims.token_id]
    if claims.family_id:
        keys.append(_REVOKED_PREFIX + claims.family_id)
    return bool(get_redis().exists(*keys))


def is_revoked_cached(claims: TokenClaims) -> bool:
    """From this process's in-memory list while it is current, else from Redis (`is_revoked`)."""
    revoked = _list()
    if revoked.current():
        return revoked.contains(claims.token_id) or (
            claims.family_id is not None and revoked.contains(claims.family_id)
        )
    return is_revoked(claims)


class RevocationList:
    """The revoked token ids, kept current by a daemon thread subscribed to `REVOKED_CHANNEL`.

    On every (re)subscription the thread first subscribes, then reads every revoked-token key,
    so a revocation published while it was away is not missed. `current()` is true only while
    the subscription is up and its thread answered within `STALE_AFTER` s (it wakes at least
    every `tick` s). `client` makes the thread's own Redis connection.
    """

    def __init__(self, client: redis.Redis[str] | None = None, *, tick: float = 0.25) -> None:
        self._client = client
        self._tick = tick
        self._revoked: dict[str, int] = {}
        self._alive_at = 0.0
        self._subscribed = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> RevocationList:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="cara-revocations", daemon=True)
                self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def current(self) -> bool:
        return self._subscribed and time.monotonic() - self._alive_at < STALE_AFTER

    def contains(self, token_id: str) -> bool:
        return token_id in self._revoked

    def add(self, token_id: str, expires_at: int) -> None:
        self._revoked[token_id] = expires_at

    def _run(self) -> None:
        backoff = 0.1
        while not self._stop.is_set():
            try:
                self._follow()
                backoff = 0.1
            except (redis.RedisError, OSError) as exc:
                if not self._stop.is_set():
                    log.warning("revocation list lost its subscription", extra={"error": type(exc).__name__})
            finally:
                self._subscribed = False
            self._stop.wait(backoff)
            backoff = min(backoff * 2, 2.0)

    def _follow(self) -> None:
        client = self._client or get_redis()
        pubsub = client.pubsub()
        try:
            pubsub.subscribe(REVOKED_CHANNEL)
            deadline = time.monotonic() + 5
            while (confirmed := pubsub.get_message(timeout=self._tick)) is None or confirmed[
                "type"
            ] != "subscribe":
                if time.monotonic() > deadline:
                    raise redis.TimeoutError("no subscription confirmation")
            # Subscribed for sure: a revocation from now on arrives as a message, any before is a key.
            self._load(client)
            # Account changes announced while away were missed: forget every remembered state.
            account_events.dispatch(account_events.PREFIX + "all *")
            self._subscribed = True
            purged_at = time.monotonic()
            while not self._stop.is_set():
                self._alive_at = time.monotonic()
                message = pubsub.get_message(timeout=self._tick)
                if message is None:
                    # A quiet channel: prove the connection is still there.
                    pubsub.ping()
                elif message.get("type") == "message" and str(message["data"]).startswith(
                    account_events.PREFIX
                ):
                    account_events.dispatch(str(message["data"]))
                elif message.get("type") == "message":
                    token_id, _, expires = str(message["data"]).partition(" ")
                    self.add(token_id, int(expires) if expires.isdigit() else int(time.time()) + 86400)
                if time.monotonic() - purged_at > 60:
                    self._purge()
                    purged_at = time.monotonic()
        finally:
            pubsub.close()

    def _load(self, client: redis.Redis[str]) -> None:
        now = int(time.time())
        keys = list(client.scan_iter(match=_REVOKED_PREFIX + "*", count=1000))
        for key, value in zip(keys, client.mget(keys) if keys else [], strict=True):
            # Keys written before the expiry was stored hold "1": keep them a full token lifetime.
            expires = int(value) if value and value.isdigit() and value != "1" else now + 86400
            self.add(key.removeprefix(_REVOKED_PREFIX), expires)

    def _purge(self) -> None:
        now = int(time.time())
        for token_id, expires in list(self._revoked.items()):
            if expires < now:
                self._revoked.pop(token_id, None)


_process_list: tuple[int, RevocationList] | None = None
_process_lock = threading.Lock()


def revocation_list() -> RevocationList:
    """This process's list (started on first use): `current()` also says whether the
    account states remembered in memory (cara.auth.account_state) may be trusted."""
    return _list()


def _list() -> RevocationList:
    """This process's list, started on first use (again in a forked child)."""
    global _process_list
    found = _process_list
    if found is None or found[0] != os.getpid():
        with _process_lock:
            found = _process_list
            if found is None or found[0] != os.getpid():
                found = (os.getpid(), RevocationList().start())
                _process_list = found
    return found[1]
