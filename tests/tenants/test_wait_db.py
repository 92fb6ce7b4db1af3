"""`python -m tenants wait-db`: the chart's migration Job waits so for the release's PgBouncer."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tenants.__main__ import main

REPO = Path(__file__).resolve().parents[2]


def test_it_returns_at_once_when_the_database_answers(capsys: object) -> None:
    started = time.monotonic()
    assert main(["wait-db", "--timeout", "30"]) == 0
    assert time.monotonic() - started < 10


def test_it_gives_up_after_its_timeout_without_naming_the_credentials() -> None:
    env = {**os.environ, "DATABASE_URL": "postgresql+psycopg://cara:hunter2-secret@127.0.0.1:1/cara"}
    started = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "tenants", "wait-db", "--timeout", "3"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "database not reachable yet (attempt 1, OperationalError)" in run.stdout
    assert "database not reachable after" in run.stderr
    assert "hunter2" not in run.stdout + run.stderr and "127.0.0.1" not in run.stdout + run.stderr
    # Bounded by --timeout, not by the connection attempts.
    assert time.monotonic() - started < 30
