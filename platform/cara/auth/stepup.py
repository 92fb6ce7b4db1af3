"""Where an account signs in from, and the emailed link that lets a new place in.

The per-account and per-address sign-in counts (`cara.auth.ratelimit`) are run up by anyone,
so past them the password alone is not refused but no longer enough from a place the account
has not used: this module says which places those are.

- **Known places.** Each full sign-in remembers, per account in Redis for `LOGIN_PLACE_DAYS`,
  the client address and the browser's device id. Both are kept as keyed hashes (HMAC under a
  key derived from `JWT_SECRET`), so Redis holds no address.
- **The device cookie** (`cara_device`, HttpOnly, SameSite=Lax, Path `/api/auth`, Secure as the
  session cookies) holds `<device id>.<HMAC of it>`: one random id per browser, signed so that
  no caller can make one up. It names the browser, not the account: a shared clinic computer
  is a known place for each account that signed in on it. A new address (a doctor moving
  between sites) is then still known by its browser.
- **The sign-in link.** A right password from an unknown place past those limits is answered
  like a wrong one (202) and mails a link; its token is kept (hashed) in Redis for
  `LOGIN_UNLOCK_TTL_MINUTES`, taken once with GETDEL, and dies with a password change.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
import uuid
from dataclasses import dataclass

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from starlette.requests import Request
from starlette.responses import Response

from cara.auth import sessions
from cara.config import get_settings
from cara.kit.redis import get_redis
from cara.models import Account

DEVICE_COOKIE = "cara_device"
DEVICE_COOKIE_PATH = "/api/auth"
# The newest places kept per account: enough for every site and browser a doctor uses, and a
# bound on what a stream of sign-ins can store.
MAX_PLACES = 50


def _key(info: bytes) -> bytes:
    secret = get_settings().jwt_secret.encode()
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(secret)


def _mac(info: bytes, value: str) -> str:
    return hmac.new(_key(info), value.encode(), hashlib.sha256).hexdigest()[:32]


def _places_key(account_id: uuid.UUID) -> str:
    return f"cara:sign-in-places:{account_id}"


def _members(client: str, device: str | None) -> list[str]:
    members = [f"a:{_mac(b'cara sign-in address', client)}"]
    if device is not None:
        members.append(f"d:{_mac(b'cara sign-in device', device)}")
    return members


# ---------------------------------------------------------------- the device cookie


def device_of(cookie: str | None) -> str | None:
    """The device id a cookie names, None when absent or not signed by this server."""
    device, _, signature = (cookie or "").partition(".")
    if not device or len(cookie or "") > 200:
        return None
    expected = _mac(b"cara device cookie", device)
    return device if hmac.compare_digest(signature, expected) else None


def _cookie_value(device: str) -> str:
    return f"{device}.{_mac(b'cara device cookie', device)}"


def device_cookie(request: Request) -> str | None:
    return request.cookies.get(DEVICE_COOKIE)


def set_device_cookie(response: Response, request: Request, device: str) -> None:
    # Lax, not Strict: the first sign-in after following the emailed link must carry it.
    response.set_cookie(
        DEVICE_COOKIE,
        _cookie_value(device),
        max_age=get_settings().login_place_days * 86400,
        path=DEVICE_COOKIE_PATH,
        secure=sessions.cookie_secure(request),
        httponly=True,
        samesite="lax",
    )


# ---------------------------------------------------------------- known places


def is_known(account_id: uuid.UUID, client: str, cookie: str | None) -> bool:
    """Whether the account signed in from this address, or on this browser, within
    `LOGIN_PLACE_DAYS`."""
    horizon = time.time() - get_settings().login_place_days * 86400
    scores = get_redis().zmscore(_places_key(account_id), _members(client, device_of(cookie)))  # type: ignore[no-untyped-call]  # redis-py leaves zmscore untyped
    return any(score is not None and score >= horizon for score in scores)


def remember(account_id: uuid.UUID, client: str, cookie: str | None) -> str:
    """A full sign-in: the address and the browser become known places. Returns the device id
    for the cookie (the browser's own when it sent a valid one, else a new one)."""
    device = device_of(cookie) or secrets.token_urlsafe(16)
    days = get_settings().login_place_days
    now = time.time()
    key = _places_key(account_id)
    pipe = get_redis().pipeline(transaction=False)
    pipe.zadd(key, dict.fromkeys(_members(client, device), now))
    pipe.zremrangebyscore(key, "-inf", now - days * 86400)
    pipe.zremrangebyrank(key, 0, -MAX_PLACES - 1)
    pipe.expire(key, days * 86400)
    pipe.execute()
    return device


# ---------------------------------------------------------------- the sign-in link


@dataclass(frozen=True)
class Unlock:
    account_id: uuid.UUID
    password_changed_at_s: int


def _unlock_key(token: str) -> str:
    return f"cara:login-unlock:{hashlib.sha256(token.encode()).hexdigest()}"


def _password_changed_s(account: Account) -> int:
    return int(account.password_changed_at.timestamp()) if account.password_changed_at else 0


def issue_unlock(account: Account) -> str:
    token = secrets.token_urlsafe(32)
    value = json.dumps({"account": str(account.id), "pwc": _password_changed_s(account)})
    get_redis().set(_unlock_key(token), value, ex=get_settings().login_unlock_ttl_minutes * 60)
    return token


def _parse(raw: str | None) -> Unlock | None:
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        return Unlock(account_id=uuid.UUID(data["account"]), password_changed_at_s=int(data["pwc"]))
    except (ValueError, KeyError, TypeError):
        return None


def take_unlock(token: str) -> Unlock | None:
    """The link's sign-in, once: a second use (or an expired link) finds nothing."""
    if not token or len(token) > 200:
        return None
    return _parse(get_redis().getdel(_unlock_key(token)))


def pending_unlock(token: str) -> Unlock | None:
    """The link, if still unused and unexpired (the mail job skips a dead one)."""
    return _parse(get_redis().get(_unlock_key(token)))


def unlock_matches(unlock: Unlock, account: Account) -> bool:
    """A password change since the link was mailed ends it."""
    return unlock.account_id == account.id and unlock.password_changed_at_s == _password_changed_s(account)
