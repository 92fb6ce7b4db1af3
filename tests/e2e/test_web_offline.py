"""Cara with no connection, in Chromium: the installed app opens offline, and a start offline records.

What runs: the Gemini double, the API configured for it, and the project's TCP shaping proxy
(`cara_devstack.netshape`) between Chromium and the API, so "offline" is real: a cut resets every
socket and refuses new ones, whatever the page or its service worker try (the page's own switch,
`context.setOffline`, is set too, for `navigator.onLine` and the `online` event).
The browser script is tests/e2e/web/offline.test.mjs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cara_devstack.netshape import NetShaper
from tests.e2e.conftest import ARTIFACTS, REPO, run_browser_script
from tests.e2e.test_web_consoles import (  # noqa: F401  (fixtures)
    DoubleControl,
    _api_server,
    accounts,
    control,
    gemini,
)
from tests.e2e.test_web_live_network import network_server, shaper, speech_wav  # noqa: F401  (fixtures)

SCRIPT = REPO / "tests" / "e2e" / "web" / "offline.test.mjs"


def test_web_offline(
    shaper: NetShaper,  # noqa: F811
    control: DoubleControl,  # noqa: F811
    accounts: dict[str, Any],  # noqa: F811
    speech_wav: Path,  # noqa: F811
) -> None:
    if not (REPO / "web" / "dist" / "sw.js").exists():
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


RECONNECT_SCRIPT = REPO / "tests" / "e2e" / "web" / "reconnect.test.mjs"


def test_web_reconnect(
    shaper: NetShaper,  # noqa: F811
    control: DoubleControl,  # noqa: F811
    accounts: dict[str, Any],  # noqa: F811
    speech_wav: Path,  # noqa: F811
) -> None:
    """Long cuts and stalls (45 s each; OUTAGE_SECONDS changes it): always retrying, back in 3 s."""
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
        RECONNECT_SCRIPT,
        {
            "BASE_URL": f"http://127.0.0.1:{shaper.listen_port}",
            "SHAPER_URL": f"http://127.0.0.1:{shaper.control_port}",
            "CHROMIUM_ARGS": json.dumps(args),
            "ARTIFACTS_DIR": str(artifacts),
            "FIXTURES": json.dumps(accounts),
        },
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-10000:] + result.stderr[-3000:]
    for line in result.stdout.splitlines():
        if "after the link returned" in line:
            print(line.strip())


UPLINK_SCRIPT = REPO / "tests" / "e2e" / "web" / "uplink.test.mjs"


def test_web_uplink(
    shaper: NetShaper,  # noqa: F811
    control: DoubleControl,  # noqa: F811
    accounts: dict[str, Any],  # noqa: F811
    speech_wav: Path,  # noqa: F811
) -> None:
    """The camera on a 3G-shaped uplink (128 kb/s): stepped down, then paused, on the measured delay."""
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
        UPLINK_SCRIPT,
        {
            "BASE_URL": f"http://127.0.0.1:{shaper.listen_port}",
            "SHAPER_URL": f"http://127.0.0.1:{shaper.control_port}",
            "CHROMIUM_ARGS": json.dumps(args),
            "ARTIFACTS_DIR": str(artifacts),
            "FIXTURES": json.dumps(accounts),
        },
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-10000:] + result.stderr[-3000:]
    for line in result.stdout.splitlines():
        if "3G camera" in line:
            print(line.strip())
