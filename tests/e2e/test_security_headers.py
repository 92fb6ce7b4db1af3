"""Both built apps and the API documentation under the Content-Security-Policy, in Chromium:
every page renders and the browser reports no violation (tests/e2e/security/csp.test.mjs)."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import REPO, run_browser_script

SCRIPT = REPO / "tests" / "e2e" / "security" / "csp.test.mjs"


def test_apps_run_under_the_content_security_policy(live_server: str, tmp_path: Path) -> None:
    result = run_browser_script(SCRIPT, {"BASE_URL": live_server}, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
