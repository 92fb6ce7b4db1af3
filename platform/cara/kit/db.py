"""Database engine and sessions.

Tenant tables are declared without a schema; a session is bound to one tenant
with SQLAlchemy's `schema_translate_map={None: schema}` so every statement it
compiles names that tenant's schema explicitly. Platform tables always carry
`schema="platform"` and are unaffected by the map.

We never use `SET search_path` per request: on pooled connections it leaks
from one tenant to the next. Instead every connection starts with a
search_path pointing at an empty schema (`cara_void`), so raw SQL that forgets
to qualify a table fails instead of silently reading the wrong tenant.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractContextManager, asynccontextmanager, contextmanager
from functools import lru_cache
from typing import Any

import psycopg
from psycopg import sql
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import Session, sessionmaker

from cara.config import get_settings

VOID_SCHEMA = "cara_void"


# A pooled connection idle for longer than this is pinged before it is handed out (a restarted
# server or a proxy's idle timeout drops idle connections). One in steady use is not: a ping per
# checkout was a round trip on every request. A connection that still turns out dead fails that
# request (503), and SQLAlchemy then replaces every connection of the pool.
PING_IDLE_AFTER = 10.0
_LAST_USED = "cara_last_used"


def connect_args(transaction_pooling: bool = False) -> dict[str, Any]:
    """psycopg's connect arguments. Straight to PostgreSQL, every connection asks for the empty
    search path at startup. Through a pooler in transaction mode (PgBouncer), server connections
    pass from client to client between transactions: psycopg prepares no statement on the server
    (a later transaction may run on a server connection that never saw it), and no startup option
    is sent (PgBouncer does not pass them on); the pooler or the database gives the empty search
    path instead (ops/deploy/README.md, "PgBouncer")."""
    if transaction_pooling:
        return {"prepare_threshold": None}
    return {"options": f"-c search_path={VOID_SCHEMA}"}


def make_engine(
    url: str, *, pool_size: int = 20, max_overflow: int = 10, transaction_pooling: bool = False
) -> Engine:
    engine = create_engine(
        url,
        pool_size=pool_size,
        max_overflow=max_overflow,
        pool_recycle=1800,
        # Errors and logs show the SQL but never its bound values (names, notes, emails).
        hide_parameters=True,
        connect_args=connect_args(transaction_pooling),
    )
    event.listen(engine.pool, "checkout", _ping_if_idle)
    event.listen(engine.pool, "checkin", _note_last_use)
    return engine


def _note_last_use(dbapi_connection: Any, record: Any) -> None:
    if record is not None:
        record.info[_LAST_USED] = time.monotonic()


def _ping_if_idle(dbapi_connection: Any, record: Any, proxy: Any) -> None:
    last = record.info.get(_LAST_USED)
    if last is None or time.monotonic() - last < PING_IDLE_AFTER:
        return  # fresh from connect(), or in steady use
    try:
        with dbapi_connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        dbapi_connection.rollback()
    except Exception as exc:
        # The pool drops this connection and checks out another (a new one if need be).
        raise DisconnectionError("pooled connection was closed by the server") from exc


@lru_cache
def get_engine() -> Engine:
    settings = get_settings()
    return make_engine(
        settings.database_url,
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_max_overflow,
        transaction_pooling=settings.db_transaction_pooling,
    )


@lru_cache
def _factory() -> sessionmaker[Session]:
    return sessionmaker(bind=get_engine(), expire_on_commit=False)


def platform_session() -> Session:
    """A session for platform tables only (tenant tables would fail: no schema)."""
    return _factory()()


def tenant_session(schema: str) -> Session:
    """A session whose unqualified (tenant) tables resolve to `schema`.

    Platform tables remain reachable through their explicit schema, so one
    session (and one transaction) can write an account and its tenant profile.
    """
    bind = get_engine().execution_options(schema_translate_map={None: schema})
    return Session(bind=bind, expire_on_commit=False)


@contextmanager
def committed(session: Session) -> Iterator[Session]:
    """The block is one transaction of `session`: committed when it ends, rolled back if it
    raises, the session closed either way (what a CLI, an actor or the live relay owns)."""
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def session_scope(schema: str | None = None) -> AbstractContextManager[Session]:
    """A platform session (or one bound to `schema`, without a tenant role) as one transaction."""
    return committed(tenant_session(schema) if schema else platform_session())


_ROLE_KEY = "cara_tenant_role"


def restrict_to_tenant_role(session: Session, role: str) -> None:
    """Run this and every later transaction of `session` as the tenant's own
    database role (see tenants.roles), which cannot touch other tenants.

    No I/O when the session has no transaction yet (a request's principal check on the event
    loop): `SET LOCAL ROLE` then goes out when the transaction begins, before its first
    statement (`_reapply_tenant_role`)."""
    session.info[_ROLE_KEY] = role
    if session.in_transaction():
        # On the session's connection directly: no ORM statement machinery for a fixed command.
        session.connection().exec_driver_sql(f'SET LOCAL ROLE "{role}"')


@event.listens_for(Session, "after_begin")
def _reapply_tenant_role(session: Session, transaction: Any, connection: Connection) -> None:
    # SET LOCAL ends with each transaction; a handler that commits and reads
    # again must still be confined to its tenant.
    role = session.info.get(_ROLE_KEY)
    if role:
        connection.exec_driver_sql(f'SET LOCAL ROLE "{role}"')


# ---------------------------------------------------------------- async connections (hot reads)

# A pooled async connection idle this long is closed rather than reused (a proxy's idle timeout).
ASYNC_IDLE_CLOSE = 300.0


class _AsyncPool:
    """Up to `size` psycopg async connections (autocommit) of one event loop. No background task:
    a connection is opened when none is idle, put back after use if it is idle and healthy, and
    closed otherwise; a loop's pool goes with the loop (the test suite runs several)."""

    def __init__(self, size: int) -> None:
        self.slots = asyncio.Semaphore(size)
        self.idle: list[tuple[float, psycopg.AsyncConnection[Any]]] = []
        self.engine_generation = _engine_generation
        self.conninfo = get_engine().url.set(drivername="postgresql").render_as_string(hide_password=False)

    async def take(self) -> psycopg.AsyncConnection[Any]:
        await self.slots.acquire()
        try:
            while self.idle:
                used, conn = self.idle.pop()
                if time.monotonic() - used < ASYNC_IDLE_CLOSE and not conn.closed:
                    return conn
                await conn.close()
            # Only multi-statement simple queries run here, which PostgreSQL cannot prepare:
            # without a threshold psycopg skips its per-query bookkeeping of what to prepare
            # (every signed-in user's read is a new query text, a new entry each time).
            args = connect_args(get_settings().db_transaction_pooling) | {"prepare_threshold": None}
            return await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True, **args)
        except BaseException:
            self.slots.release()
            raise

    async def give_back(self, conn: psycopg.AsyncConnection[Any]) -> None:
        try:
            if not conn.closed and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
                self.idle.append((time.monotonic(), conn))
            else:
                await conn.close()  # broken, or left inside a failed transaction
        finally:
            self.slots.release()

    async def close(self) -> None:
        while self.idle:
            await self.idle.pop()[1].close()


_async_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _AsyncPool] = weakref.WeakKeyDictionary()
# Moved by reset_engine (tests switch databases): a pool of an older engine is replaced.
_engine_generation = 0


def async_pool_size() -> int:
    """Half of `DB_POOL_SIZE`: each use is one round trip, so few connections serve many
    requests, and the process's total (engine pool + overflow + these) stays within budget."""
    return max(2, get_settings().db_pool_size // 2)


@asynccontextmanager
async def async_connection() -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    """A pooled psycopg async connection (autocommit, at most `async_pool_size()` per loop) for
    the few reads that run on the event loop with no SQLAlchemy session (the signed-in user,
    cara.auth.repository). Through PgBouncer (`DB_TRANSACTION_POOLING`) nothing is prepared on
    the server, as for the engine; otherwise the connection starts with the empty search path."""
    loop = asyncio.get_running_loop()
    pool = _async_pools.get(loop)
    if pool is None or pool.engine_generation != _engine_generation:
        if pool is not None:
            await pool.close()
        pool = _async_pools[loop] = _AsyncPool(async_pool_size())
    conn = await pool.take()
    try:
        yield conn
    finally:
        await pool.give_back(conn)


async def fetch_sets(query: bytes) -> list[list[tuple[Any, ...]]]:
    """The rows of each row-returning statement of `query`, in order, over the async pool.

    `query` is one simple-query string, so one round trip, e.g. `BEGIN READ ONLY; SET LOCAL ROLE
    "r"; SELECT ...; SELECT ...; COMMIT`: the tenant's role is set once for the transaction, as
    for the signed-in user's read (cara.auth.repository). It carries no parameters (a
    multi-statement string cannot): repositories quote every value with psycopg.sql.Literal.
    A pooled connection the server or a proxy closed is dropped and the query sent once more on
    another, as the engine's pre-ping does for an idle one."""
    for attempt in (1, 2):
        try:
            async with async_connection() as conn:
                cursor = await conn.execute(query)
                sets: list[list[tuple[Any, ...]]] = []
                while True:
                    if cursor.description is not None:
                        sets.append([tuple(row) for row in await cursor.fetchall()])
                    if not cursor.nextset():
                        return sets
        except psycopg.OperationalError:
            if attempt == 2:
                raise
    return []


async def close_async_pool() -> None:
    """Close this event loop's idle async connections (the app's shutdown)."""
    pool = _async_pools.pop(asyncio.get_running_loop(), None)
    if pool is not None:
        await pool.close()


def reset_engine() -> None:
    """Forget the cached engine (tests switch databases), and the async pools with it."""
    global _engine_generation
    _engine_generation += 1
    if get_engine.cache_info().currsize:
        get_engine().dispose()
    get_engine.cache_clear()
    _factory.cache_clear()


# ---------------------------------------------------------------- the async reads' transaction


def read_only_preamble(role: str | None) -> sql.Composed:
    """The start of an async read's simple-query string (`fetch_sets`, the signed-in user's read
    in cara.auth.repository): `BEGIN READ ONLY; SET LOCAL ROLE "<role>"; ` (without a role, the
    transaction alone), the role quoted as an identifier. The read runs in one transaction, so
    the role is set once for all of its statements and ends with it (the string ends with
    `COMMIT`). Repositories build it into their per-tenant cached heads, not per request."""
    head = sql.SQL("BEGIN READ ONLY; ")
    if role is None:
        return sql.Composed([head])
    return sql.Composed([head, sql.SQL("SET LOCAL ROLE {}; ").format(sql.Identifier(role))])
