"""Record now, process later, in Chromium: the capture journey of tests/e2e/web/capture.test.mjs.

What runs: the Gemini double, the API configured for it (demo flag on), an in-process worker
pointed at the double (it transcribes the upload and drafts the note), and Chromium with the fake
microphone playing espeak-ng speech. The browser goes offline with the page's own network switch
(`context.setOffline`), and uploads are made to fail by intercepting their requests.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cara_doubles.gemini import GeminiDouble
from tests.e2e.conftest import ARTIFACTS, REPO, run_browser_script
from tests.e2e.test_web_consoles import (  # noqa: F401  (fixtures)
    _api_server,
    accounts,
    ai_settings,
    gemini,
)
from tests.e2e.test_web_live_network import speech_wav  # noqa: F401  (fixture)

SCRIPT = REPO / "tests" / "e2e" / "web" / "capture.test.mjs"


@pytest.fixture
def capture_server(tmp_path: Path, gemini: GeminiDouble) -> Iterator[str]:  # noqa: F811
    """The API using the double (demo flag on), one server process: quick to start on a busy machine."""
    env = {**gemini.settings(), "CARA_DEMO_AI": "true", "WEB_CONCURRENCY": "1"}
    with _api_server(tmp_path / "capture-server.log", env) as base:
        yield base


def test_web_capture(
    capture_server: str,
    ai_settings: None,  # noqa: F811
    worker: Any,
    accounts: dict[str, Any],  # noqa: F811
    speech_wav: Path,  # noqa: F811
) -> None:
    if not (REPO / "web" / "dist" / "index.html").exists():
        pytest.fail("web is not built: run `npm run build` in web/ (./ops/test does it first)")
    artifacts = ARTIFACTS / "web"
    artifacts.mkdir(parents=True, exist_ok=True)
    args = [
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-audio-capture={speech_wav}",
    ]
    result = run_browser_script(
        SCRIPT,
        {
            "BASE_URL": capture_server,
            "CHROMIUM_ARGS": json.dumps(args),
            "ARTIFACTS_DIR": str(artifacts),
            "FIXTURES": json.dumps(accounts),
        },
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-10000:] + result.stderr[-3000:]
