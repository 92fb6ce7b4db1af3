"""Jobs are sent only after the transaction that created their data commits."""

from __future__ import annotations

import time
import uuid
from typing import Any

import dramatiq
import pytest

from cara.kit.db import session_scope
from cara.kit.redis import get_redis
from cara.models import AuditEvent
from workers.broker import broker as the_broker
from workers.middleware import current_tenant
from workers.queue import enqueue_after_commit

RESULTS = "cara:test:job-results"


@dramatiq.actor(broker=the_broker, actor_name="tests.record_audit_row", queue_name="tests", max_retries=0)
def record_audit_row(event_id: int) -> None:
    """Records whether the row the job refers to is visible to the worker, and its tenant."""
    with session_scope() as session:
        found = session.get(AuditEvent, event_id) is not None
    get_redis().rpush(RESULTS, f"{event_id}:{found}:{current_tenant.get()}")


def _results() -> list[str]:
    return list(get_redis().lrange(RESULTS, 0, -1))


def _queued(queue: str) -> int:
    # RedisBroker keeps pending message ids in the list "<namespace>:<queue>".
    return int(get_redis().llen(f"dramatiq:{queue}"))


class TestEnqueueAfterCommit:
    def test_runs_after_commit_and_sees_the_row(self, worker: Any) -> None:
        with session_scope() as session:
            event = AuditEvent(action="test.job", actor_account_id=None, actor_role=None)
            session.add(event)
            session.flush()
            enqueue_after_commit(session, "tests.record_audit_row", tenant="independent", event_id=event.id)
            # Inside the transaction: nothing is on the queue, the worker has nothing to do.
            time.sleep(0.3)
            assert _queued("tests") == 0
            assert _results() == []
            event_id = event.id
        worker.join("tests", timeout=10_000)
        deadline = time.time() + 10
        while not _results() and time.time() < deadline:
            time.sleep(0.05)
        assert _results() == [f"{event_id}:True:independent"]

    def test_rollback_drops_the_job(self, worker: Any) -> None:
        with pytest.raises(RuntimeError), session_scope() as session:
            event = AuditEvent(action="test.job", actor_account_id=None, actor_role=None)
            session.add(event)
            session.flush()
            enqueue_after_commit(session, "tests.record_audit_row", event_id=event.id)
            raise RuntimeError("request failed")
        time.sleep(0.5)
        worker.join("tests", timeout=5_000)
        assert _queued("tests") == 0
        assert _results() == []

    def test_failed_request_enqueues_nothing(self, client: Any, worker: Any) -> None:
        # A reset request for a malformed email fails validation: no row, no job.
        r = client.post("/api/auth/forgot-password", json={"email": "not-an-email"})
        assert r.status_code == 422
        assert _queued("mail") == 0


class TestOutbox:
    def test_job_survives_a_broker_outage_and_is_relayed(self, worker: Any, monkeypatch: Any) -> None:
        from datetime import timedelta

        from sqlalchemy import func, select

        from cara.models import OutboxJob
        from workers import queue

        def broker_down(*args: Any, **kwargs: Any) -> None:
            raise ConnectionError("redis unreachable")

        monkeypatch.setattr(record_audit_row, "send_with_options", broker_down)
        with session_scope() as session:
            event = AuditEvent(action="test.job", actor_account_id=None, actor_role=None)
            session.add(event)
            session.flush()
            enqueue_after_commit(session, "tests.record_audit_row", event_id=event.id)
            event_id = event.id
        with session_scope() as s:
            assert s.scalar(select(func.count()).select_from(OutboxJob)) == 1
        monkeypatch.undo()

        assert queue.relay_pending(older_than=timedelta(0)) == 1
        worker.join("tests", timeout=10_000)
        deadline = time.time() + 10
        while not _results() and time.time() < deadline:
            time.sleep(0.05)
        assert _results() == [f"{event_id}:True:None"]
        with session_scope() as s:
            assert s.scalar(select(func.count()).select_from(OutboxJob)) == 0

    def test_sent_jobs_leave_no_outbox_rows(self, worker: Any) -> None:
        from sqlalchemy import func, select

        from cara.models import OutboxJob

        with session_scope() as session:
            event = AuditEvent(action="test.job", actor_account_id=None, actor_role=None)
            session.add(event)
            session.flush()
            enqueue_after_commit(session, "tests.record_audit_row", event_id=event.id)
        with session_scope() as s:
            assert s.scalar(select(func.count()).select_from(OutboxJob)) == 0


class TestRetries:
    def test_actor_retries_with_backoff_until_it_succeeds(self, worker: Any) -> None:
        key = f"cara:test:attempts:{uuid.uuid4().hex}"

        @dramatiq.actor(
            broker=the_broker,
            actor_name=f"tests.flaky_{key[-6:]}",
            queue_name="tests",
            max_retries=3,
            min_backoff=10,
            max_backoff=50,
        )
        def flaky() -> None:
            if get_redis().incr(key) < 3:
                raise RuntimeError("transient")

        # A worker subscribes to queues at start; the fixture's worker already consumes "tests".
        flaky.send()
        deadline = time.time() + 15
        while int(get_redis().get(key) or 0) < 3 and time.time() < deadline:
            time.sleep(0.05)
        worker.join("tests", timeout=10_000)
        assert int(get_redis().get(key) or 0) == 3
