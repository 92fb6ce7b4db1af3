"""Jobs are sent only after the transaction that created their data commits."""

from __future__ import annotations

import time
import uuid
from typing import Any

import dramatiq
import pytest

from cara.kit import jobs
from cara.kit.db import session_scope
from cara.kit.jobs import current_tenant, enqueue_after_commit
from cara.kit.redis import get_redis
from cara.models import AuditEvent
from workers.broker import broker as the_broker

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
    # RedisBroker keeps pending message ids in the list "<namespace>:<queue>", delayed ones in
    # "<namespace>:<queue>.DQ".
    redis = get_redis()
    return int(redis.llen(f"dramatiq:{queue}")) + int(redis.llen(f"dramatiq:{queue}.DQ"))


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

    def test_failed_request_enqueues_nothing(self, client: Any, monkeypatch: Any) -> None:
        # No worker runs here, so every job sent stays countable on its queue.
        from sqlalchemy import func, select

        from cara.auth import service as auth_service
        from cara.kit.errors import ValidationFailed
        from cara.models import OutboxJob, PasswordReset
        from tests.factories import doctor_payload, signup

        signup(client, doctor_payload(email="known@example.com"))
        signed_up = _queued("mail")  # the sign-up link's mail
        # The same request, succeeding: one mail job on the queue (so the count below can see one).
        r = client.post("/api/auth/forgot-password", json={"email": "known@example.com"})
        assert r.status_code == 202
        assert _queued("mail") == signed_up + 1

        # A reset request for a malformed email fails validation before anything is written.
        r = client.post("/api/auth/forgot-password", json={"email": "not-an-email"})
        assert r.status_code == 422
        # A request that fails after it enqueued: its reset row and its job go with the rollback.
        enqueue = auth_service.enqueue_after_commit

        def enqueue_then_fail(*args: Any, **kwargs: Any) -> None:
            enqueue(*args, **kwargs)
            raise ValidationFailed({"email": "refused after the job was recorded"})

        monkeypatch.setattr(auth_service, "enqueue_after_commit", enqueue_then_fail)
        r = client.post("/api/auth/forgot-password", json={"email": "known@example.com"})
        assert r.status_code == 422

        assert _queued("mail") == signed_up + 1
        with session_scope() as s:
            assert s.scalar(select(func.count()).select_from(PasswordReset)) == 1
            assert s.scalar(select(func.count()).select_from(OutboxJob)) == 0


class TestOutbox:
    def test_job_survives_a_broker_outage_and_is_relayed(self, worker: Any, monkeypatch: Any) -> None:
        from datetime import timedelta

        from sqlalchemy import func, select

        from cara.models import OutboxJob

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

        assert jobs.relay_pending(older_than=timedelta(0)) == 1
        worker.join("tests", timeout=10_000)
        deadline = time.time() + 10
        while not _results() and time.time() < deadline:
            time.sleep(0.05)
        assert _results() == [f"{event_id}:True:None"]
        with session_scope() as s:
            assert s.scalar(select(func.count()).select_from(OutboxJob)) == 0

    def test_without_a_sender_a_committed_job_waits_in_outbox(self, worker: Any, monkeypatch: Any) -> None:
        from datetime import timedelta

        from sqlalchemy import func, select

        from cara.models import OutboxJob

        sender = jobs._sender
        monkeypatch.setattr(jobs, "_sender", None)
        with session_scope() as session:
            event = AuditEvent(action="test.job", actor_account_id=None, actor_role=None)
            session.add(event)
            session.flush()
            enqueue_after_commit(session, "tests.record_audit_row", event_id=event.id)
            event_id = event.id
        with session_scope() as s:
            kept = s.scalars(select(OutboxJob)).one()
            assert (kept.attempts, kept.last_error) == (1, "NoJobSender")
        assert _queued("tests") == 0

        monkeypatch.setattr(jobs, "_sender", sender)
        assert jobs.relay_pending(older_than=timedelta(0)) == 1
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
