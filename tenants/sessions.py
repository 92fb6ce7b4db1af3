"""Sessions bound to one tenant, for work outside a request: actors and the live relay.

A request gets its tenant session from its principal (cara.auth). Everything else that writes
into a tenant schema (a scheduled job, a worker job, the live relay storing lines) gets it here,
bound to the schema and running under the tenant's own database role, so it is confined exactly
as the doctor's requests are. The caller owns the transaction: services and repositories are
handed the session and never commit (tests/ops/test_transactions.py holds them to it).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Concatenate, ParamSpec, TypeVar

from sqlalchemy.orm import Session

from cara.kit.db import committed, get_engine, restrict_to_tenant_role, tenant_session
from tenants.roles import role_for

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True)
class TenantScope:
    """Where a doctor's rows live and the database role that confines them."""

    schema: str
    role: str
    account_id: uuid.UUID


def tenant_role(schema: str) -> str:
    """The database role of a tenant schema of the database the engine is connected to."""
    return role_for(str(get_engine().url.database), schema)


def worker_session(schema: str, role: str | None = None) -> Session:
    """A session bound to `schema`, every transaction of it under the tenant's role."""
    session = tenant_session(schema)
    restrict_to_tenant_role(session, role or tenant_role(schema))
    return session


def tenant_transaction(schema: str, role: str | None = None) -> AbstractContextManager[Session]:
    """One transaction in a tenant schema under its role (kit.db.committed)."""
    return committed(worker_session(schema, role))


class TenantTransactions:
    """What a caller hands a job of several steps (a recording: read the audio, transcribe it
    with no transaction open, store the consultation): each `run` is one transaction of its own,
    committed when the step returns. The job decides the steps; the caller decides the sessions."""

    def __init__(self, schema: str, role: str | None = None) -> None:
        self.schema = schema
        self.role = role

    @classmethod
    def of(cls, scope: TenantScope) -> TenantTransactions:
        return cls(scope.schema, scope.role)

    def run(self, work: Callable[Concatenate[Session, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        with tenant_transaction(self.schema, self.role) as session:
            return work(session, *args, **kwargs)
