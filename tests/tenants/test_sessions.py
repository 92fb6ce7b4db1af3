"""Sessions of work outside a request (actors, the live relay): bound to one tenant, under its
role, one transaction per block or per step, committed by the caller's block and nothing else."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import ProgrammingError
from sqlalchemy.orm import Session

from cara.kit.db import platform_session
from cara.models import Tenant, TenantAuditEvent
from tenants.sessions import TenantTransactions, tenant_role, tenant_transaction
from tests.factories import hospital_payload, signup


@pytest.fixture
def two_schemas(client: Any) -> tuple[str, str]:
    for name in ("A", "B"):
        signup(client, hospital_payload(name=f"Hospital {name}"))
    with platform_session() as s:
        found = list(
            s.scalars(select(Tenant.schema_name).where(Tenant.kind == "hospital").order_by(Tenant.created_at))
        )
    return found[0], found[1]


def _audit_count(session: Session, schema: str) -> int:
    return int(session.execute(text(f'SELECT count(*) FROM "{schema}".audit_events')).scalar_one())


def test_a_tenant_transaction_runs_under_the_tenants_role_and_not_another_tenants(
    two_schemas: tuple[str, str],
) -> None:
    mine, theirs = two_schemas
    with tenant_transaction(mine) as session:
        assert session.execute(text("SELECT current_user")).scalar_one() == tenant_role(mine)
        _audit_count(session, mine)
    with pytest.raises(ProgrammingError, match="permission denied"), tenant_transaction(mine) as session:
        _audit_count(session, theirs)


def test_each_step_is_its_own_transaction_committed_when_it_returns(two_schemas: tuple[str, str]) -> None:
    schema, _ = two_schemas
    steps = TenantTransactions(schema)

    def write(session: Session, detail: str) -> int:
        session.add(TenantAuditEvent(action="test.step", target_type="test", detail={"step": detail}))
        session.flush()
        return _audit_count(session, schema)

    def fail(session: Session) -> None:
        write(session, "lost")
        raise RuntimeError("the step failed")

    before = steps.run(_audit_count, schema)
    assert steps.run(write, "kept") == before + 1
    with pytest.raises(RuntimeError):
        steps.run(fail)
    # The first step's row was committed by its own transaction; the failed step's was not.
    assert steps.run(_audit_count, schema) == before + 1
