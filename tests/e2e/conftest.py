"""Browser tests: a real API server (uvicorn, subprocess) on the test database,
driven by Debian's Chromium through playwright-core scripts run with node."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts" / "e2e"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[str]:
    """The API on a free port, sharing this run's database and Redis."""
    port = _free_port()
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115  (closed below)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cara.serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env={**os.environ, "PUBLIC_BASE_URL": f"http://127.0.0.1:{port}"},
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=REPO,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("API server did not start:\n" + (tmp_path / "server.log").read_text())
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def run_browser_script(
    script: Path, env: dict[str, str], timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    """Run a node --test browser script; its output is returned for the assertion message."""
    if not Path("/usr/bin/chromium").exists():
        pytest.fail("Chromium is missing: ./ops/test installs it (apt-get install chromium)")
    return subprocess.run(
        ["node", "--test", "--test-reporter=spec", str(script)],
        env={**os.environ, **env},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
