"""The live console on the networks doctors have, in Chromium: drops, stalls and a 3G-shaped link.

What runs: the Gemini double and its control server (as tests/e2e/test_web_consoles.py), the API
configured for it, and the project's TCP shaping proxy (`cara_devstack.netshape`) between Chromium and
the API, so a cut destroys the browser's sockets and refuses new ones, a stall freezes them, and a
shape limits the link as a 3G cell would (CDP's network emulation does not throttle an open
WebSocket). Chromium's fake microphone plays sentences spoken by Debian's `espeak-ng`.
The browser script is tests/e2e/web/live-network.test.mjs.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cara_devstack.netshape import NetShaper
from cara_doubles.gemini import GeminiDouble
from tests.e2e.conftest import ARTIFACTS, REPO, run_browser_script
from tests.e2e.test_web_consoles import (  # noqa: F401  (fixtures)
    DoubleControl,
    _api_server,
    accounts,
    control,
    gemini,
)

SCRIPT = REPO / "tests" / "e2e" / "web" / "live-network.test.mjs"
SENTENCES = (
    "The patient is a fifty two year old man with chest pain for two days. "
    "He has a history of hypertension and smokes ten cigarettes a day. "
    "Please review the chest X ray and tell me if you see any consolidation."
)


@pytest.fixture
def speech_wav(tmp_path: Path) -> Path:
    """Real speech for the fake microphone, spoken by espeak-ng (installed by ops/lib/bootstrap.sh)."""
    if shutil.which("espeak-ng") is None:
        pytest.fail("espeak-ng is missing: ./ops/test installs it (apt-get install espeak-ng)")
    wav = tmp_path / "speech.wav"
    subprocess.run(["espeak-ng", "-s", "150", "-w", str(wav), SENTENCES], check=True, capture_output=True)
    return wav


@pytest.fixture
def network_server(tmp_path: Path, gemini: GeminiDouble) -> Iterator[str]:  # noqa: F811
    env = {**gemini.settings(), "CARA_DEMO_AI": "true", "LIVE_RECONNECT_BACKOFF_SECONDS": "0.05"}
    with _api_server(tmp_path / "network-server.log", env) as base:
        yield base


@pytest.fixture
def shaper(network_server: str) -> Iterator[NetShaper]:
    port = int(network_server.rsplit(":", 1)[1])
    proxy = NetShaper(target_port=port).start_in_thread(control=True)
    try:
        yield proxy
    finally:
        proxy.stop()


def test_web_live_network(
    shaper: NetShaper,
    control: DoubleControl,  # noqa: F811
    accounts: dict[str, Any],  # noqa: F811
    speech_wav: Path,
) -> None:
    if not (REPO / "web" / "dist" / "index.html").exists():
        pytest.fail("web is not built: run `npm run build` in web/ (./ops/test does it first)")
    artifacts = ARTIFACTS / "web"
    artifacts.mkdir(parents=True, exist_ok=True)
    args = [
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-audio-capture={speech_wav}",
        "--autoplay-policy=no-user-gesture-required",
    ]
    result = run_browser_script(
        SCRIPT,
        {
            "BASE_URL": f"http://127.0.0.1:{shaper.listen_port}",
            "SHAPER_URL": f"http://127.0.0.1:{shaper.control_port}",
            "CONTROL_URL": control.url,
            "CHROMIUM_ARGS": json.dumps(args),
            "ARTIFACTS_DIR": str(artifacts),
            "FIXTURES": json.dumps(accounts),
        },
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-10000:] + result.stderr[-3000:]
    # The figure of the 3G case (shown with `pytest -s`).
    for line in result.stdout.splitlines():
        if "3G link" in line:
            print(line.strip())
