"""Fault case: a worker killed with SIGKILL in the middle of a job.

A real worker process (`python -m dramatiq workers.registry`, as the image runs it) takes the note
a visit's end asks for, and is killed -9 (its whole process group, as a lost container) while the
model call is in flight. A second worker is started, as Kubernetes would restart the container.
Dramatiq delivers at least once: the message the dead worker held goes back to its queue once its
broker heartbeat is BROKER_HEARTBEAT_TIMEOUT_MS old, and the job is idempotent (a note already
written is not written again). The case prints what was acknowledged and what was found after:
the note is written exactly once, nothing is lost.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cara.consultations import service as consultations
from cara_doubles.gemini import GeminiDouble
from tenants.sessions import TenantTransactions
from tests.cara.consultations.conftest import add_lines, schema_and_account, start
from tests.factories import auth, doctor_payload, signup

pytestmark = [pytest.mark.chaos, pytest.mark.slow, pytest.mark.timeout(180)]

REPO = Path(__file__).resolve().parents[3]
VISIT = [
    ("user", "Ama Owusu, 61, breathless on exertion for a month, ankles swollen by evening."),
    ("user", "Heart sounds normal; fine crackles at both bases. Start furosemide 40 mg each morning."),
]
# Redelivery within seconds rather than Dramatiq's 60 s: the dead worker's heartbeat is soon old,
# and every broker command runs the maintenance that requeues its messages.
HEARTBEAT_TIMEOUT_MS = 3_000
WORKER_OPTIONS = ("--processes", "1", "--threads", "2", "--queues", "summaries")


def _wait_for(what: str, condition: Callable[[], Any], timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = condition()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _probe(env: dict[str, str]) -> int:
    """The chart's liveness probe of a worker container, run as the kubelet would."""
    command = [sys.executable, "-m", "workers.health", "worker", "--max-age", "60"]
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, check=False).returncode


class WorkerProcess:
    """`python -m dramatiq workers.registry` in a process group of its own."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dramatiq", "workers.registry", *WORKER_OPTIONS],
            cwd=REPO,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def kill(self) -> None:
        """SIGKILL to every process of the group: no shutdown hook, no acknowledgement runs."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()


@pytest.fixture
def workers_env(gemini: GeminiDouble, tmp_path: Path) -> Iterator[dict[str, str]]:
    from workers.registry import broker

    broker.flush_all()
    yield {
        **os.environ,
        "GEMINI_API_KEY": gemini.api_key,
        "GEMINI_BASE_URL": gemini.base_url,
        "GEMINI_CA_FILE": str(gemini.ca_file),
        "BROKER_HEARTBEAT_TIMEOUT_MS": str(HEARTBEAT_TIMEOUT_MS),
        "BROKER_MAINTENANCE_CHANCE": "1000000",
        "OTEL_TRACES_EXPORTER": "none",
        "OTEL_METRICS_EXPORTER": "none",
        "CARA_HEALTH_DIR": str(tmp_path / "health"),
    }
    broker.flush_all()


def test_a_worker_killed_mid_note_leaves_the_job_to_be_redelivered_and_done_once(
    client: Any, gemini: GeminiDouble, workers_env: dict[str, str], doctors_on_trial: None
) -> None:
    doctor = auth(signup(client, doctor_payload(specialty="Nurse"))["token"])
    cid = start(client, doctor, console="nurse").json()["id"]
    add_lines(doctor, cid, VISIT, end=False)
    schema, account = schema_and_account(doctor)

    def drafts() -> list[Any]:
        return list(client.get(f"/api/consultations/{cid}", headers=doctor).json()["drafts"])

    # The model takes its time, so the first worker is surely inside the job when it dies.
    gemini.generate_delay_seconds = 30.0
    first = WorkerProcess(workers_env)
    second: WorkerProcess | None = None
    try:
        # Acknowledged: the visit's end is committed, and with it the job that writes its note.
        TenantTransactions(schema).run(consultations.end_live, account, uuid.UUID(cid), 0, schema)
        _wait_for("the first worker's model call", lambda: gemini.generate_requests, timeout=90)
        # Its liveness probe passes: a long job does not stop the heartbeat.
        assert _probe(workers_env) == 0
        first.kill()
        killed_at = time.monotonic()
        calls_when_killed = len(gemini.generate_requests)
        assert drafts() == [], "the job was cut before it wrote anything"

        # The dead worker's heartbeat file is left behind; the probe ignores a dead process's.
        assert _probe(workers_env) == 1
        gemini.generate_delay_seconds = 0.0
        second = WorkerProcess(workers_env)
        written = _wait_for("the redelivered note", drafts, timeout=90)
        redelivered_after = time.monotonic() - killed_at
        time.sleep(HEARTBEAT_TIMEOUT_MS / 1000 + 2)  # room for a second, wrong, delivery
        found = drafts()
    finally:
        first.kill()
        if second is not None:
            second.stop()

    calls = len(gemini.generate_requests)
    print(
        "\nchaos: worker kill -9 mid-job (consultations note at the visit's end)\n"
        "  acknowledged: 1 visit end committed, 1 note job enqueued\n"
        f"  killed: the first worker, with {calls_when_killed} model call in flight\n"
        f"  found after: {len(found)} note draft(s); {calls} model calls in all; "
        f"redelivered and written {redelivered_after:.1f} s after the kill\n"
        f"  jobs lost: {1 - min(len(found), 1)}, jobs done twice: {max(len(found) - 1, 0)}"
    )
    assert len(written) == 1 and len(found) == 1, found
    assert found[0]["kind"] == "note"
    assert calls == calls_when_killed + 1, "one redelivery, one more model call"
