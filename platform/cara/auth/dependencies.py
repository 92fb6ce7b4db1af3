"""Request-scoped dependencies shared by every domain: the auth domain's public surface for endpoints.

`DbSession` is one SQLAlchemy session per request. When the request carries a
bearer token, the session is bound to the tenant schema named in the token
(`session_for_claims`); the principal check (cara.auth.principal) then confirms
from the database that the account really belongs to that tenant before any
handler runs. The header is read and the token decoded here, once a request: the
check takes the claims from `request.state`. Handlers
own the transaction: they call `session.commit()` when their work is done;
anything uncommitted is rolled back when the request ends.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from typing import Annotated

from anyio import CapacityLimiter, to_thread
from fastapi import Depends, Request
from sqlalchemy.orm import Session

from cara.auth import tokens
from cara.config import get_settings
from cara.kit.db import platform_session, tenant_session
from tenants import naming


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def session_for_claims(claims: tokens.TokenClaims | None) -> Session:
    """The session for a token's claims: bound to the tenant schema they name, else a platform
    session (no token or no acceptable one, an account without a tenant, or a name that is not
    a tenant schema's). Opening it does no I/O. Binding it is not trusting it: the principal
    check confirms that the account belongs to that tenant before anything is read for it."""
    schema = claims.tenant_schema if claims is not None else None
    if schema and naming.is_valid_schema(schema):
        return tenant_session(schema)
    return platform_session()


_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = weakref.WeakKeyDictionary()


def _gate() -> asyncio.Semaphore:
    """At most `DB_POOL_SIZE` request sessions at once per process (one per event loop).

    A request holds its pooled connection from the principal check to the closing rollback,
    across several thread hand-offs. Unbounded, a burst of requests took every pooled and
    overflow connection, churned overflow connections (a new PostgreSQL connection each) and
    left thread-pool threads blocked waiting for one; gated, the excess waits here, on the
    event loop, at no cost.
    """
    loop = asyncio.get_running_loop()
    gate = _gates.get(loop)
    if gate is None:
        gate = _gates[loop] = asyncio.Semaphore(max(1, get_settings().db_pool_size))
    return gate


async def _session(request: Request) -> AsyncIterator[Session]:
    # async: opening a session does no I/O (the connection is taken at the first statement), so
    # this runs on the event loop instead of costing two hand-offs to the thread pool.
    token = bearer_token(request)
    claims = tokens.decode(token) if token else None
    # For the principal check (cara.auth.principal), which does not read the header again:
    # whether a bearer token was sent at all (401 "no token" else "authentication failed").
    request.state.bearer_sent = token is not None
    request.state.token_claims = claims
    async with _gate():
        session = session_for_claims(claims)
        try:
            yield session
        finally:
            # close() rolls back whatever the handler did not commit: a round trip, so off the
            # event loop, unless no transaction is open (nothing read, or committed). Not with
            # the thread pool's own tokens: with every token taken by requests waiting for a
            # pooled connection, the sessions holding those connections could never close
            # (FastAPI's sync dependencies exit through a limiter of their own likewise).
            if session.in_transaction():
                await to_thread.run_sync(session.close, limiter=CapacityLimiter(1))
            else:
                session.close()


DbSession = Annotated[Session, Depends(_session, scope="function")]
