"""`python -m cara.serve`: how many server processes it runs, and that each of them drains."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from cara import serve

REPO = Path(__file__).resolve().parents[2]


def test_cgroup_v2_quota_caps_the_cores(tmp_path: Path) -> None:
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert serve._cgroup_cpu_limit(tmp_path) == 1.5
    assert serve.usable_cores(tmp_path) == min(len(os.sched_getaffinity(0)), 2)
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert serve._cgroup_cpu_limit(tmp_path) is None
    assert serve.usable_cores(tmp_path) == len(os.sched_getaffinity(0))


def test_cgroup_v1_quota(tmp_path: Path) -> None:
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("50000\n")
    (tmp_path / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert serve._cgroup_cpu_limit(tmp_path) == 0.5
    assert serve.usable_cores(tmp_path) == 1  # never fewer than one process
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")
    assert serve._cgroup_cpu_limit(tmp_path) is None


def test_no_cgroup_files_means_no_quota(tmp_path: Path) -> None:
    assert serve._cgroup_cpu_limit(tmp_path) is None


def test_web_concurrency(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    assert serve.web_concurrency() == 3
    assert serve.web_concurrency("1") == 1  # --workers wins over the environment
    monkeypatch.setenv("WEB_CONCURRENCY", "")
    assert serve.web_concurrency() == serve.usable_cores()
    monkeypatch.delenv("WEB_CONCURRENCY")
    assert serve.web_concurrency() == serve.usable_cores()
    for bad in ("0", "-2", "two"):
        with pytest.raises(SystemExit, match="WEB_CONCURRENCY must be a positive integer"):
            serve.web_concurrency(bad)


def test_config_passes_the_process_count_to_uvicorn() -> None:
    cfg = serve.config(workers=2)
    assert cfg.workers == 2
    assert cfg.app == "cara.main:app"  # an import string: each process loads the app itself


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_two_processes_serve_and_each_drains_on_sigterm(tmp_path: Path) -> None:
    port = _free_port()
    ready_url = f"http://127.0.0.1:{port}/api/health/ready"
    log_path = tmp_path / "serve.log"
    env = {**os.environ, "WEB_CONCURRENCY": "2", "CARA_DRAIN_SECONDS": "5"}
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "cara.serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 120
            ready = False
            while time.monotonic() < deadline and process.poll() is None:
                try:
                    ready = httpx.get(ready_url, timeout=2).status_code == 200
                except httpx.HTTPError:
                    ready = False
                if ready and log_path.read_text().count("Application startup complete") >= 2:
                    break
                time.sleep(0.2)
            assert ready, log_path.read_text()[-2000:]
            process.send_signal(signal.SIGTERM)
            assert process.wait(60) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)
    entries = [json.loads(line) for line in log_path.read_text().splitlines() if line.startswith("{")]
    messages = [entry.get("msg") for entry in entries]
    assert messages.count("starting server processes") == 1
    # Each server process went through cara.serve's drain, not uvicorn's plain shutdown.
    assert messages.count("live consultations drained") == 2
    assert not [entry for entry in entries if entry.get("level") == "error"], entries
