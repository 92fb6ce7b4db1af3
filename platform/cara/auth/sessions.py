"""Browser sessions: a short-lived access token in the page's memory, renewed with a rotating
refresh token that page script cannot read.

A sign-in from one of the two browser apps (the request carries `X-Requested-With`) starts a
session family (`platform.session_families`): the refresh token `<family id>.<secret>` goes in
an HttpOnly, SameSite=Strict cookie (Secure over TLS or with SESSION_COOKIE_SECURE) whose name
and lifetime are the app's own (`cara_session` for the clinician app, `cara_admin_session` for
the admin console, Path `/api/auth/refresh`), and the access tokens issued to it live
ACCESS_TOKEN_TTL_MINUTES and carry the family's id (`fam`). `POST /api/auth/refresh` swaps the
cookie's token for a new one and a new access token. A token presented after it was rotated
(past REFRESH_REUSE_GRACE_SECONDS, which lets two tabs refresh at once) means two holders:
the whole family is revoked, and its access tokens with it through the revocation list
(`tokens.revoke_family`). Logout revokes the family; a password or email change revokes every
family of the account. API clients that sign in without the header get a bearer token as before.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal
from urllib.parse import urlsplit

from sqlalchemy.orm import Session
from starlette.requests import Request
from starlette.responses import Response

from cara.audit import service as audit
from cara.auth import repository, tokens
from cara.auth.schemas import UserOut
from cara.auth.users import load_user_of_tenant
from cara.config import get_settings
from cara.kit.errors import Forbidden, Unauthorized
from cara.models import Account, SessionFamily
from cara.models.base import utcnow

App = Literal["web", "admin"]
COOKIE_NAMES: dict[str, str] = {"web": "cara_session", "admin": "cara_admin_session"}
COOKIE_PATH = "/api/auth/refresh"
CSRF_HEADER = "X-Requested-With"
SESSION_ENDED = "Your session has ended. Please log in again."


class ReusedRefreshToken(Unauthorized):
    """A rotated refresh token came back: the family is revoked (to be committed)."""


@dataclass(frozen=True)
class Renewal:
    access_token: str
    refresh_token: str | None  # None: not rotated (a concurrent refresh within the grace)
    user: UserOut
    app: str
    expires_at_s: int


def _sha256(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def app_of_role(role: str) -> App:
    return "admin" if role == "admin" else "web"


def wants_browser_session(request: Request) -> bool:
    """The browser apps send the custom header (which no cross-site form can)."""
    return bool(request.headers.get(CSRF_HEADER, "").strip())


def check_csrf(request: Request) -> None:
    """Cookie-authenticated calls need the custom header, and an Origin, when sent, of this host."""
    if not wants_browser_session(request):
        raise Forbidden(f"The {CSRF_HEADER} header is required.")
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc.lower() != request.headers.get("host", "").lower():
        raise Forbidden("Cross-site requests are refused.")


def _access_token(account: Account, schema: str | None, family_id: uuid.UUID) -> str:
    return tokens.issue(
        account_id=account.id,
        role=account.role,
        tenant_schema=schema,
        family_id=family_id.hex,
        ttl_minutes=get_settings().access_token_ttl_minutes,
    )


def start(session: Session, claims: tokens.TokenClaims) -> tuple[str, str, str]:
    """A new family for the account a fresh sign-in's token names: (access token, refresh
    token, app)."""
    account = session.get(Account, claims.account_id)
    if account is None:
        raise Unauthorized(SESSION_ENDED)
    secret = secrets.token_urlsafe(32)
    family = SessionFamily(
        id=uuid.uuid4(),
        account_id=account.id,
        app=app_of_role(account.role),
        current_hash=_sha256(secret),
        expires_at=utcnow() + timedelta(minutes=get_settings().refresh_token_ttl_minutes),
        created_at=utcnow(),
    )
    session.add(family)
    session.flush()
    access = _access_token(account, claims.tenant_schema, family.id)
    return access, f"{family.id.hex}.{secret}", family.app


def _parse(raw: str | None) -> tuple[uuid.UUID, str] | None:
    family_hex, _, secret = (raw or "").partition(".")
    if not secret or len(raw or "") > 200:
        return None
    try:
        return uuid.UUID(hex=family_hex), secret
    except ValueError:
        return None


def _revoke(session: Session, family: SessionFamily, action: str | None = None) -> None:
    if family.revoked_at is None:
        family.revoked_at = utcnow()
    tokens.revoke_family(family.id.hex)
    if action:
        audit.record_platform(
            session,
            action=action,
            actor_id=family.account_id,
            actor_role=None,
            target_type="account",
            target_id=family.account_id,
        )


def refresh(session: Session, raw: str | None, app: str) -> Renewal:
    parsed = _parse(raw)
    if parsed is None:
        raise Unauthorized(SESSION_ENDED)
    family_id, secret = parsed
    family = repository.session_family_for_update(session, family_id)
    now = utcnow()
    if family is None or family.app != app or family.revoked_at is not None or family.expires_at <= now:
        raise Unauthorized(SESSION_ENDED)
    presented = _sha256(secret)
    rotate = secrets.compare_digest(presented, family.current_hash)
    if not rotate:
        grace = timedelta(seconds=get_settings().refresh_reuse_grace_seconds)
        concurrent = (
            family.previous_hash is not None
            and family.rotated_at is not None
            and now - family.rotated_at <= grace
            and secrets.compare_digest(presented, family.previous_hash)
        )
        if not concurrent:
            _revoke(session, family, "session.refresh_token_reused")
            raise ReusedRefreshToken(SESSION_ENDED)
    row = repository.account_with_tenant(session, family.account_id)
    if row is None:
        raise Unauthorized(SESSION_ENDED)
    account, schema, _kind, tenant_status = row
    changed_at = account.password_changed_at
    if (
        not account.is_active
        or app_of_role(account.role) != app
        or (tenant_status is not None and tenant_status != "active")
        or (changed_at is not None and changed_at > family.created_at)
    ):
        _revoke(session, family)
        raise Unauthorized(SESSION_ENDED)
    new_refresh: str | None = None
    if rotate:
        new_secret = secrets.token_urlsafe(32)
        family.previous_hash, family.current_hash = family.current_hash, _sha256(new_secret)
        family.rotated_at = now
        new_refresh = f"{family.id.hex}.{new_secret}"
    return Renewal(
        access_token=_access_token(account, schema, family.id),
        refresh_token=new_refresh,
        user=load_user_of_tenant(session, account, schema),
        app=app,
        expires_at_s=int(family.expires_at.timestamp()),
    )


def end(session: Session, claims: tokens.TokenClaims) -> str | None:
    """Logout: the family of the token (if any) is revoked; its app, for the cookie to clear."""
    if claims.family_id is None:
        return None
    try:
        family = repository.session_family_for_update(session, uuid.UUID(hex=claims.family_id))
    except ValueError:
        return None
    if family is None:
        return None
    _revoke(session, family)
    return family.app


def family_app(session: Session, claims: tokens.TokenClaims) -> str | None:
    """The app of the token's family, None for an API client's token."""
    if claims.family_id is None:
        return None
    try:
        family = session.get(SessionFamily, uuid.UUID(hex=claims.family_id))
    except ValueError:
        return None
    return family.app if family is not None else None


# ---------------------------------------------------------------- the cookie


def cookie_secure(request: Request) -> bool:
    """The Secure flag of the auth cookies: SESSION_COOKIE_SECURE, else the request's scheme."""
    configured = get_settings().session_cookie_secure
    return request.url.scheme == "https" if configured is None else configured


def set_cookie(
    response: Response, request: Request, app: str, refresh_token: str, *, max_age: int | None = None
) -> None:
    response.set_cookie(
        COOKIE_NAMES[app],
        refresh_token,
        max_age=get_settings().refresh_token_ttl_minutes * 60 if max_age is None else max(1, max_age),
        path=COOKIE_PATH,
        secure=cookie_secure(request),
        httponly=True,
        samesite="strict",
    )


def clear_cookie(response: Response, request: Request, app: str) -> None:
    response.delete_cookie(
        COOKIE_NAMES[app], path=COOKIE_PATH, secure=cookie_secure(request), httponly=True, samesite="strict"
    )


def cookie_value(request: Request, app: str) -> str | None:
    return request.cookies.get(COOKIE_NAMES[app])
