"""A short seeded run of ./ops/fuzz: Schemathesis over the whole OpenAPI document against a real
server, as each role (anonymous, independent doctor, hospital, hospital doctor, admin).

0 server errors and 0 answers that disagree with the document (status, content type, headers,
body schema, 405 + Allow), for every role. The long run is ./ops/fuzz (README, "Fuzzing").
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cara.config import get_settings
from cara_devstack import fuzz
from cara_doubles.gemini import GeminiDouble
from tests.e2e.conftest import REPO, _free_port

SEED = 20261125
MAX_EXAMPLES = 2
# The coverage phase (every boundary and malformed value of every field, every other method
# of every path) for the two roles that reach the most code; the others get examples and random
# requests, which keeps the run near a minute and a half on a quiet machine. ./ops/fuzz runs
# every phase for all.
COVERAGE_ROLES = {"doctor", "hospital"}
PHASES = "examples,coverage,fuzzing"
LIGHT_PHASES = "examples,fuzzing"


@pytest.fixture
def gemini(monkeypatch: pytest.MonkeyPatch) -> Iterator[GeminiDouble]:
    """The AI operations answer for real: the server and the in-process worker (summaries) both
    talk to the Gemini double."""
    double = GeminiDouble().start()
    settings = get_settings()
    monkeypatch.setattr(settings, "gemini_api_key", double.api_key)
    monkeypatch.setattr(settings, "gemini_base_url", double.base_url)
    monkeypatch.setattr(settings, "gemini_ca_file", double.ca_file)
    try:
        yield double
    finally:
        double.stop()


@pytest.fixture
def fuzz_server(tmp_path: Path, gemini: GeminiDouble, worker: Any, admin_token: str) -> Iterator[str]:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, **gemini.settings(), "PUBLIC_BASE_URL": base, "SUMMARY_TIMEOUT_SECONDS": "20"}
    with open(tmp_path / "server.log", "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cara.serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=REPO,
        )
        try:
            deadline = time.time() + 180  # a cold start on a busy machine
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


@pytest.mark.timeout(900)  # a loaded machine slows every request; the work itself is bounded
def test_whole_document_as_every_role(fuzz_server: str, tmp_path: Path) -> None:
    accounts = fuzz.make_accounts(fuzz_server, "root-admin@example.com", "root-password")
    assert set(accounts) == set(fuzz.ROLES)
    results = [
        fuzz.fuzz_role(
            fuzz_server,
            role,
            headers,
            seed=SEED,
            max_examples=MAX_EXAMPLES,
            report_dir=tmp_path,
            workers=2,
            phases=PHASES if role in COVERAGE_ROLES else LIGHT_PHASES,
            echo=False,
        )
        for role, headers in accounts.items()
    ]
    for result in results:
        assert result.operations > 50, f"{result.role}: {result.operations} operations fuzzed"
    problems = [f"{r.role}: {failure}" for r in results for failure in r.failures]
    summary = {r.role: (r.server_errors, r.mismatches) for r in results}
    print({r.role: round(r.seconds) for r in results})  # seconds per role, with -s
    assert not problems, f"(server errors, mismatches) per role: {summary}\n\n" + "\n\n".join(problems)
