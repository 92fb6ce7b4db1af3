"""Access tokens: signed JWTs with an expiry, revocable by id.

Claims: `sub` account id, `role`, `tnt` tenant schema (absent for admins),
`jti` token id, `iat`/`exp`, and `iat_ms` (millisecond issue time, compared
with the account's password change so older tokens die with the password).
Revoked token ids are kept in Redis until the token would have expired.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

import jwt

from cara.config import get_settings
from cara.kit.redis import get_redis

_ALGORITHM = "HS256"
_REVOKED_PREFIX = "cara:revoked-token:"


@dataclass(frozen=True)
class TokenClaims:
    account_id: uuid.UUID
    role: str
    tenant_schema: str | None
    token_id: str
    issued_at_ms: int
    expires_at: int


def issue(*, account_id: uuid.UUID, role: str, tenant_schema: str | None) -> str:
    settings = get_settings()
    now = time.time()
    payload: dict[str, object] = {
        "sub": str(account_id),
        "role": role,
        "jti": uuid.uuid4().hex,
        "iat": int(now),
        "iat_ms": int(now * 1000),
        "exp": int(now + settings.jwt_ttl_minutes * 60),
    }
    if tenant_schema:
        payload["tnt"] = tenant_schema
    return jwt.encode(payload, settings.jwt_secret, algorithm=_ALGORITHM)


def decode(token: str) -> TokenClaims | None:
    """Verify signature and expiry; None when the token is not acceptable."""
    try:
        payload = jwt.decode(
            token,
            get_settings().jwt_secret,
            algorithms=[_ALGORITHM],
            options={"require": ["sub", "role", "jti", "exp", "iat"]},
        )
        return TokenClaims(
            account_id=uuid.UUID(str(payload["sub"])),
            role=str(payload["role"]),
            tenant_schema=str(payload["tnt"]) if payload.get("tnt") else None,
            token_id=str(payload["jti"]),
            issued_at_ms=int(payload.get("iat_ms", int(payload["iat"]) * 1000)),
            expires_at=int(payload["exp"]),
        )
    except (jwt.PyJWTError, ValueError, TypeError):
        return None


def revoke(claims: TokenClaims) -> None:
    ttl = max(1, claims.expires_at - int(time.time()))
    get_redis().set(_REVOKED_PREFIX + claims.token_id, "1", ex=ttl)


def is_revoked(claims: TokenClaims) -> bool:
    return bool(get_redis().exists(_REVOKED_PREFIX + claims.token_id))
