"""Who is calling: the token, checked against the database on every request.

Declared once and used in signatures, e.g. `principal: HospitalPrincipal`.
The check loads the account together with its tenant, so a deactivated
account, a suspended tenant, a changed password or a token whose tenant claim
does not match the account are all refused at once; then the transaction is
confined to the tenant's database role (SET LOCAL ROLE, once per transaction).
Revocation (logout) is looked up in this process's in-memory list, kept current
over Redis pub/sub (cara.auth.tokens), not with a Redis round trip per request;
the live consultations' first message and periodic re-check ask Redis itself.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

import redis
from fastapi import Depends, Request
from sqlalchemy.orm import Session

from cara.auth import repository, tokens
from cara.auth.dependencies import DbSession, bearer_token
from cara.kit.db import platform_session, restrict_to_tenant_role, tenant_session
from cara.kit.errors import Forbidden, ServiceUnavailable, Unauthorized
from cara.models import Account
from tenants import naming

AUTH_FAILED = "Authentication failed. Please log in again."
NO_TOKEN = "No authentication token found"  # noqa: S105 - a message, not a secret
NO_PERMISSION = "You do not have permission to access this resource."


@dataclass(frozen=True)
class Principal:
    account: Account
    claims: tokens.TokenClaims
    tenant_schema: str | None
    tenant_kind: str | None

    @property
    def id(self) -> uuid.UUID:
        return self.account.id

    @property
    def role(self) -> str:
        return self.account.role

    @property
    def hospital_id(self) -> uuid.UUID | None:
        return self.account.hospital_id


def authenticate(request: Request, session: DbSession) -> Principal:
    token = bearer_token(request)
    if token is None:
        raise Unauthorized(NO_TOKEN)
    claims: tokens.TokenClaims | None = getattr(request.state, "token_claims", None)
    if claims is None:
        raise Unauthorized(AUTH_FAILED)
    return principal_for_claims(session, claims, revocation=tokens.is_revoked_cached)


def authenticate_token(session: Session, token: str, *, running: bool = False) -> Principal:
    """The same checks for a token that did not come in a header (the live assistant's
    WebSocket sends it in its first message, so it never appears in a URL or log).
    `session` must be bound to the token's tenant (`session_for_token`). `running`: the
    re-check of a connection already open (`tokens.decode_running`)."""
    claims = tokens.decode_running(token) if running else tokens.decode(token)
    if claims is None:
        raise Unauthorized(AUTH_FAILED)
    return principal_for_claims(session, claims)


def session_for_token(token: str, *, running: bool = False) -> Session:
    """A session bound to the tenant the token names, as the request session is (auth.dependencies)."""
    claims = tokens.decode_running(token) if running else tokens.decode(token)
    schema = claims.tenant_schema if claims else None
    return tenant_session(schema) if schema and naming.is_valid_schema(schema) else platform_session()


def principal_for_claims(
    session: Session,
    claims: tokens.TokenClaims,
    *,
    revocation: Callable[[tokens.TokenClaims], bool] = tokens.is_revoked,
) -> Principal:
    try:
        if revocation(claims):
            raise Unauthorized(AUTH_FAILED)
    except redis.RedisError as exc:
        # Fail closed: without the revocation list we cannot tell a logged-out token.
        raise ServiceUnavailable("Service temporarily unavailable. Please try again shortly.") from exc

    row = repository.account_with_tenant(session, claims.account_id)
    if row is None:
        raise Unauthorized(AUTH_FAILED)
    account, schema, kind, tenant_status = row
    if (
        account.role != claims.role
        or schema != claims.tenant_schema
        or claims.issued_at_ms < int(account.password_changed_at.timestamp() * 1000)
    ):
        raise Unauthorized(AUTH_FAILED)
    if not account.is_active:
        raise Forbidden("Your account has been deactivated. Please contact your administrator.")
    if tenant_status is not None and tenant_status != "active":
        raise Forbidden("Access for your organisation is suspended. Please contact support.")
    if schema is not None:
        restrict_to_tenant_role(session, tenant_role(schema))
    return Principal(account=account, claims=claims, tenant_schema=schema, tenant_kind=kind)


def tenant_role(schema: str) -> str:
    """The database role that confines a request of this tenant (tenants.roles)."""
    from cara.kit.db import get_engine
    from tenants.roles import role_for

    return role_for(str(get_engine().url.database), schema)


class Authenticator:
    """Dependency that authenticates and, if `roles` is given, checks the role."""

    def __init__(self, *roles: str) -> None:
        self.roles = frozenset(roles)

    # async: no I/O here, so no hand-off to the thread pool (authenticate itself reads the database).
    async def __call__(self, principal: Annotated[Principal, Depends(authenticate)]) -> Principal:
        if self.roles and principal.role not in self.roles:
            raise Forbidden(NO_PERMISSION)
        return principal


def optional_principal(request: Request, session: DbSession) -> Principal | None:
    """The principal when a bearer token is sent, else None (public endpoints)."""
    if bearer_token(request) is None:
        return None
    return authenticate(request, session)


AnyPrincipal = Annotated[Principal, Depends(Authenticator())]
AdminPrincipal = Annotated[Principal, Depends(Authenticator("admin"))]
HospitalPrincipal = Annotated[Principal, Depends(Authenticator("hospital"))]
DoctorPrincipal = Annotated[Principal, Depends(Authenticator("doctor"))]
OptionalPrincipal = Annotated[Principal | None, Depends(optional_principal)]
