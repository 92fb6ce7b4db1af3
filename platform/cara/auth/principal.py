"""Who is calling: the token, checked against the account on every request.

Declared once and used in signatures, e.g. `principal: HospitalPrincipal`.
The check compares the token with the account and its tenant, so a deactivated
account, a suspended tenant, a changed password or a token whose tenant claim
does not match the account are all refused at once; then the transaction is
confined to the tenant's database role (SET LOCAL ROLE, sent before the
transaction's first statement, and again in every later transaction).

On the event loop, without a database read or a thread hand-off, when this process
remembers the account's state (cara.auth.account_state: kept current by announcements
after every change, trusted only while the Redis subscriber is alive); otherwise the
account is read with its tenant in the thread pool, as the live socket's checks always do.
Revocation (logout) is looked up in this process's in-memory list, kept current
over Redis pub/sub (cara.auth.tokens), not with a Redis round trip per request;
the live consultations' first message and periodic re-check ask Redis itself.
The account itself (`Principal.account`) is loaded by the handlers that use it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Annotated

import redis
from fastapi import Depends, Request
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from cara.auth import account_state, repository, tokens
from cara.auth.account_state import AccountState
from cara.auth.dependencies import DbSession, _gate, bearer_token, session_for_claims
from cara.kit.db import restrict_to_tenant_role
from cara.kit.errors import Forbidden, ServiceUnavailable, Unauthorized
from cara.models import Account
from tenants.sessions import tenant_role as tenant_role

AUTH_FAILED = "Authentication failed. Please log in again."
NO_TOKEN = "No authentication token found"  # noqa: S105 - a message, not a secret
NO_PERMISSION = "You do not have permission to access this resource."


class Principal:
    """The checked caller. `account` is read from the request's session the first time a
    handler asks for it (the check itself may not have read it)."""

    __slots__ = ("_account", "_session", "claims", "state")

    def __init__(
        self,
        *,
        claims: tokens.TokenClaims,
        state: AccountState,
        session: Session | None = None,
        account: Account | None = None,
    ) -> None:
        self.claims = claims
        self.state = state
        self._session = session
        self._account = account

    @property
    def account(self) -> Account:
        if self._account is None:
            assert self._session is not None, "a principal made without a session carries its account"
            found = self._session.get(Account, self.claims.account_id)
            if found is None:  # deleted since the check
                raise Unauthorized(AUTH_FAILED)
            self._account = found
        return self._account

    @property
    def id(self) -> uuid.UUID:
        return self.claims.account_id

    @property
    def role(self) -> str:
        return self.state.role

    @property
    def hospital_id(self) -> uuid.UUID | None:
        return self.state.hospital_id

    @property
    def tenant_schema(self) -> str | None:
        return self.state.tenant_schema

    @property
    def tenant_kind(self) -> str | None:
        return self.state.tenant_kind


async def authenticate(request: Request, session: DbSession) -> Principal:
    # The header was read and the token decoded once, by the request's session (DbSession).
    claims: tokens.TokenClaims | None = request.state.token_claims
    if claims is None:
        raise Unauthorized(AUTH_FAILED if request.state.bearer_sent else NO_TOKEN)
    if tokens.revocation_list().current():
        if tokens.is_revoked_cached(claims):
            raise Unauthorized(AUTH_FAILED)
        state = account_state.STATES.get(claims.account_id)
        if state is not None:
            # No I/O: the role is sent before the transaction's first statement.
            return _admit(session, claims, state)
    return await run_in_threadpool(principal_for_claims, session, claims, revocation=tokens.is_revoked_cached)


async def authenticate_async(request: Request) -> Principal:
    """The same checks as `authenticate`, for async handlers that read through the async pool
    and never use the request's sync session: no session is opened and no gate taken when
    this process remembers the account's state. Otherwise the account is read in the thread
    pool, through the gate, with a session made for the check and closed after it. The
    principal carries no session: such handlers do not ask for `principal.account`."""
    token = bearer_token(request)
    if token is None:
        raise Unauthorized(NO_TOKEN)
    claims = tokens.decode(token)
    if claims is None:
        raise Unauthorized(AUTH_FAILED)
    if tokens.revocation_list().current():
        if tokens.is_revoked_cached(claims):
            raise Unauthorized(AUTH_FAILED)
        state = account_state.STATES.get(claims.account_id)
        if state is not None:
            _check(claims, state)
            return Principal(claims=claims, state=state)
    async with _gate():
        return await run_in_threadpool(_checked_with_own_session, claims)


def _checked_with_own_session(claims: tokens.TokenClaims) -> Principal:
    session = session_for_claims(claims)
    try:
        principal = principal_for_claims(session, claims, revocation=tokens.is_revoked_cached)
    finally:
        session.close()
    return Principal(claims=claims, state=principal.state)


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
    return session_for_claims(tokens.decode_running(token) if running else tokens.decode(token))


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

    generation = account_state.STATES.generation
    row = repository.account_with_tenant(session, claims.account_id)
    if row is None:
        raise Unauthorized(AUTH_FAILED)
    account, schema, kind, tenant_status = row
    state = account_state.state_of(account, schema, kind, tenant_status)
    account_state.STATES.remember(claims.account_id, state, generation)
    return _admit(session, claims, state, account)


def _admit(
    session: Session, claims: tokens.TokenClaims, state: AccountState, account: Account | None = None
) -> Principal:
    _check(claims, state)
    if state.tenant_schema is not None:
        restrict_to_tenant_role(session, tenant_role(state.tenant_schema))
    return Principal(claims=claims, state=state, session=session, account=account)


def _check(claims: tokens.TokenClaims, state: AccountState) -> None:
    """Refuses a token that no longer matches its account (role, tenant, password change),
    a deactivated account or a suspended tenant."""
    if (
        state.role != claims.role
        or state.tenant_schema != claims.tenant_schema
        or claims.issued_at_ms < state.password_changed_ms
    ):
        raise Unauthorized(AUTH_FAILED)
    if not state.is_active:
        raise Forbidden("Your account has been deactivated. Please contact your administrator.")
    if state.tenant_status is not None and state.tenant_status != "active":
        raise Forbidden("Access for your organisation is suspended. Please contact support.")


class Authenticator:
    """Dependency that authenticates and, if `roles` is given, checks the role."""

    def __init__(self, *roles: str) -> None:
        self.roles = frozenset(roles)

    # async: no I/O here, so no hand-off to the thread pool (authenticate itself reads the database).
    async def __call__(self, principal: Annotated[Principal, Depends(authenticate)]) -> Principal:
        if self.roles and principal.role not in self.roles:
            raise Forbidden(NO_PERMISSION)
        return principal


class AsyncAuthenticator(Authenticator):
    """`Authenticator` for async handlers that never use the request's sync session
    (`authenticate_async`). It calls the check itself rather than declaring it as a dependency
    of its own: FastAPI solves each level of dependencies with a walk of its own, a tenth of
    the CPU of a request whose principal is found without I/O."""

    async def __call__(self, request: Request) -> Principal:  # type: ignore[override]
        principal = await authenticate_async(request)
        if self.roles and principal.role not in self.roles:
            raise Forbidden(NO_PERMISSION)
        return principal


async def optional_principal(request: Request, session: DbSession) -> Principal | None:
    """The principal when a bearer token is sent, else None (public endpoints)."""
    if not request.state.bearer_sent:  # read by the request's session (DbSession)
        return None
    return await authenticate(request, session)


AnyPrincipal = Annotated[Principal, Depends(Authenticator())]
AdminPrincipal = Annotated[Principal, Depends(Authenticator("admin"))]
HospitalPrincipal = Annotated[Principal, Depends(Authenticator("hospital"))]
DoctorPrincipal = Annotated[Principal, Depends(Authenticator("doctor"))]
# Async handlers that read only through the async pool (no DbSession, no `principal.account`).
AsyncAnyPrincipal = Annotated[Principal, Depends(AsyncAuthenticator())]
AsyncDoctorPrincipal = Annotated[Principal, Depends(AsyncAuthenticator("doctor"))]
OptionalPrincipal = Annotated[Principal | None, Depends(optional_principal)]
