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

from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker

from cara.config import get_settings

VOID_SCHEMA = "cara_void"


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
    return create_engine(
        url,
        pool_size=pool_size,
        max_overflow=max_overflow,
        pool_pre_ping=True,
        # Errors and logs show the SQL but never its bound values (names, notes, emails).
        hide_parameters=True,
        connect_args=connect_args(transaction_pooling),
    )


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
def session_scope(schema: str | None = None) -> Iterator[Session]:
    """Open a session, commit on success, roll back on error (CLI and workers)."""
    session = tenant_session(schema) if schema else platform_session()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


_ROLE_KEY = "cara_tenant_role"


def restrict_to_tenant_role(session: Session, role: str) -> None:
    """Run this and every later transaction of `session` as the tenant's own
    database role (see tenants.roles), which cannot touch other tenants."""
    session.info[_ROLE_KEY] = role
    session.execute(text(f'SET LOCAL ROLE "{role}"'))


@event.listens_for(Session, "after_begin")
def _reapply_tenant_role(session: Session, transaction: Any, connection: Connection) -> None:
    # SET LOCAL ends with each transaction; a handler that commits and reads
    # again must still be confined to its tenant.
    role = session.info.get(_ROLE_KEY)
    if role:
        connection.exec_driver_sql(f'SET LOCAL ROLE "{role}"')


def reset_engine() -> None:
    """Forget the cached engine (tests switch databases)."""
    if get_engine.cache_info().currsize:
        get_engine().dispose()
    get_engine.cache_clear()
    _factory.cache_clear()
