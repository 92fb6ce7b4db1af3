"""The heartbeat the worker's and the scheduler's probes read (workers.health).

The probe is healthy only while a live process of its kind has beaten recently; a worker beats
only while its consumer and worker threads all run; the scheduler beats once per loop turn even
when its tick fails, and each removes its file on a clean stop.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import dramatiq
import pytest
from dramatiq.brokers.stub import StubBroker

from workers import health
from workers.middleware import Heartbeat

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def beats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("CARA_HEALTH_DIR", str(tmp_path))
    yield tmp_path


def _wait_for(condition: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition never met"
        time.sleep(0.05)


def test_no_beat_is_unhealthy(beats: Path) -> None:
    assert health.check("worker") == (False, "no live worker process has beaten yet")
    assert health.main(["worker"]) == 1


def test_a_fresh_beat_is_healthy_and_a_stale_one_is_not(beats: Path) -> None:
    health.beat("worker")
    assert health.check("worker", max_age=30)[0]
    assert health.main(["worker", "--max-age", "30"]) == 0
    old = time.time() - 120
    os.utime(health.beat_path("worker"), (old, old))
    healthy, reason = health.check("worker", max_age=60)
    assert not healthy and "last beat 120 s ago" in reason
    assert health.main(["worker", "--max-age", "60"]) == 1


def test_the_beats_of_exited_processes_are_ignored_and_removed(beats: Path) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    stale = health.beat_path("worker", int(gone.stdout))
    stale.touch()
    os.utime(stale, (0, 0))
    health.beat("worker")
    assert health.check("worker", max_age=30)[0]
    assert not stale.exists()
    # The scheduler's beats are not the worker's.
    assert not health.check("scheduler")[0]


def test_one_stuck_process_of_several_fails_the_probe(beats: Path) -> None:
    health.beat("worker")
    sibling = health.beat_path("worker", os.getppid())  # a live process of the same kind
    sibling.touch()
    os.utime(sibling, (time.time() - 90, time.time() - 90))
    assert not health.check("worker", max_age=60)[0]


def test_a_worker_beats_while_its_threads_run_and_stops_when_one_dies(beats: Path) -> None:
    broker = StubBroker(middleware=[Heartbeat(interval=0.05)])  # type: ignore[no-untyped-call]
    broker.declare_queue("default")
    worker = dramatiq.Worker(broker, worker_threads=1, worker_timeout=50)
    path = health.beat_path("worker")
    worker.start()
    try:
        _wait_for(path.exists)
        first = path.stat().st_mtime_ns
        _wait_for(lambda: path.stat().st_mtime_ns > first)
        assert health.check("worker", max_age=1)[0]
        # The queue's consumer thread ends: its messages are no longer read, and the beats stop.
        consumer = worker.consumers["default"]
        consumer.stop()
        consumer.join(timeout=5)
        assert not consumer.is_alive()
        time.sleep(0.2)
        stopped = path.stat().st_mtime_ns
        time.sleep(0.5)
        assert path.stat().st_mtime_ns == stopped
        assert not health.check("worker", max_age=0.4)[0]
    finally:
        worker.stop()
    assert not path.exists(), "a clean stop removes the heartbeat"


def test_the_scheduler_beats_even_when_its_tick_fails_and_cleans_up_on_sigterm(beats: Path) -> None:
    env = {
        **os.environ,
        "CARA_HEALTH_DIR": str(beats),
        # Nothing answers there: each tick fails, and the loop must beat all the same.
        "REDIS_URL": "redis://127.0.0.1:1/0",
        "OTEL_TRACES_EXPORTER": "none",
        "OTEL_METRICS_EXPORTER": "none",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "workers.scheduler"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    path = beats / f"scheduler-{process.pid}"
    try:
        _wait_for(path.exists, timeout=60)
        probe = subprocess.run(
            [sys.executable, "-m", "workers.health", "scheduler", "--max-age", "30"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
        )
        assert probe.returncode == 0, probe.stderr
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    assert not path.exists()


def test_an_exited_process_not_yet_reaped_counts_as_gone(beats: Path) -> None:
    """A worker process that died stays a zombie until its parent reaps it: its beat is ignored."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    _wait_for(lambda: Path(f"/proc/{child.pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z")
    try:
        health.beat_path("worker", child.pid).parent.mkdir(parents=True, exist_ok=True)
        health.beat_path("worker", child.pid).touch()
        assert health.check("worker") == (False, "no live worker process has beaten yet")
    finally:
        child.wait()
