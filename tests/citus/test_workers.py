"""Background work on the cluster: a real Dramatiq worker (the `worker` fixture) runs against the
coordinator, the analytics rollups count hospitals whose schemas live on different workers, and a
job sent from inside a hospital's transaction reads that hospital's schema on its worker, as the
hospital's own database role."""

from __future__ import annotations

import time
from datetime import UTC, date, datetime
from typing import Any

import dramatiq
from sqlalchemy import func, select, text

from cara.analytics import rollups
from cara.analytics.periods import period_start, previous_start
from cara.kit.db import get_engine, restrict_to_tenant_role, session_scope, tenant_session
from cara.kit.jobs import current_tenant, enqueue_after_commit
from cara.kit.redis import get_redis
from cara.models import DoctorProfile, PeriodRollup, Tenant, TenantAuditEvent, TenantRollup
from tenants import citus
from tenants.roles import role_for
from tests.cara.analytics.test_rollups import seed
from tests.factories import auth
from workers.broker import broker as the_broker

RESULTS = "cara:test:citus-job-results"


@dramatiq.actor(broker=the_broker, actor_name="tests.citus_tenant_read", queue_name="tests", max_retries=0)
def tenant_read(event_id: int) -> None:
    """Reads, as the job's tenant role, the audit row and the doctors of the job's tenant."""
    schema = current_tenant.get()
    assert schema is not None
    with tenant_session(schema) as session:
        restrict_to_tenant_role(session, role_for(str(get_engine().url.database), schema))
        found = session.get(TenantAuditEvent, event_id) is not None
        doctors = session.scalar(select(func.count()).select_from(DoctorProfile))
    get_redis().rpush(RESULTS, f"{schema}:{event_id}:{found}:{doctors}")


def _hospital_schemas() -> dict[str, str]:
    """Hospital name -> schema."""
    with session_scope() as s:
        rows = s.execute(
            text(
                "SELECT h.name, t.schema_name FROM platform.hospitals h"
                " JOIN platform.tenants t ON t.id = h.tenant_id"
            )
        ).all()
    return {str(name): str(schema) for name, schema in rows}


def _doctor_rows(schema: str) -> int:
    with get_engine().connect() as conn:
        return int(conn.execute(text(f'SELECT count(*) FROM "{schema}".doctors')).scalar_one())


def test_the_rollup_actor_counts_hospitals_on_every_worker(
    client: Any, worker: Any, admin_token: str
) -> None:
    seed(client)  # Korle Bu (3 doctors, one deactivated), Ridge (1), 2 independent doctors
    schemas = _hospital_schemas()
    with get_engine().connect() as conn:
        placements = citus.schema_placements(conn)
    port = get_engine().url.port
    assert port is not None
    for schema in (*schemas.values(), "independent"):
        assert placements[schema] in (port + 1, port + 2), f"{schema} is not on a worker"

    worker.get_actor("analytics.refresh_rollups").send()
    worker.join("analytics", timeout=30_000)

    with session_scope() as s:
        rows = s.execute(
            select(
                Tenant.schema_name,
                TenantRollup.doctors_total,
                TenantRollup.doctors_active,
                TenantRollup.active_subscriptions,
                TenantRollup.plan_name,
            ).join(Tenant, Tenant.id == TenantRollup.tenant_id)
        ).all()
        october = s.get(PeriodRollup, ("month", date(2026, 10, 1)))
        granularities = set(s.scalars(select(PeriodRollup.granularity)))
    by_schema = {row[0]: tuple(row[1:]) for row in rows}
    assert by_schema == {
        schemas["Korle Bu"]: (3, 2, 1, "Gold"),
        schemas["Ridge"]: (1, 1, 0, None),
        "independent": (2, 2, 1, None),
    }
    # The rollups count platform accounts; each tenant's own rows, on its worker, agree.
    for schema, (total, *_rest) in by_schema.items():
        assert _doctor_rows(schema) == total, schema
    assert granularities == {"week", "month", "year"}
    # The actor refreshed the current and the previous period of each granularity.
    current = period_start("month", datetime.now(UTC).date())
    if date(2026, 10, 1) in (current, previous_start("month", current)):
        assert october is not None and october.revenue_cents == 49_900 + 9_900
    else:
        assert october is None
    with session_scope() as s:
        figures = rollups.rollup_period(s, "month", date(2026, 10, 1))
    assert (figures["revenue_cents"], figures["payments_count"]) == (49_900 + 9_900, 2)
    with session_scope() as s:
        now = s.get(PeriodRollup, ("month", current))
    assert now is not None and (now.hospitals_total, now.doctors_total) == (2, 6)

    r = client.get("/api/admin/stats", headers=auth(admin_token), params={"timeRange": "yearly"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["totalHospitals"], body["totalDoctors"]) == (2, 6)
    assert body["activeSubscriptions"] == 2


def test_a_job_sent_from_a_hospital_transaction_reads_that_hospital_on_its_worker(
    client: Any, worker: Any
) -> None:
    seed(client)
    schemas = _hospital_schemas()
    sent = []
    for name in ("Korle Bu", "Ridge"):
        schema = schemas[name]
        with tenant_session(schema) as session:
            event = TenantAuditEvent(action="test.job", actor_account_id=None)
            session.add(event)
            session.flush()
            enqueue_after_commit(session, "tests.citus_tenant_read", tenant=schema, event_id=event.id)
            sent.append(f"{schema}:{event.id}:True:{_doctor_rows(schema)}")
            session.commit()
    worker.join("tests", timeout=15_000)
    deadline = time.time() + 10
    while get_redis().llen(RESULTS) < len(sent) and time.time() < deadline:
        time.sleep(0.05)
    assert sorted(get_redis().lrange(RESULTS, 0, -1)) == sorted(sent)
    assert sent[0].split(":")[-1] == "3" and sent[1].split(":")[-1] == "1"
