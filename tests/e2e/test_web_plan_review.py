"""The radiotherapist console's plan review in Chromium: the real API (with the Gemini double, so
the console connects), a real worker computing the DVHs, and phantom RTSTRUCT / RTDOSE / RTPLAN
files uploaded through the page; driven by tests/e2e/web/plan-review.test.mjs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cara.clinical.dvh import phantoms
from tests.e2e.conftest import ARTIFACTS, REPO, run_browser_script
from tests.e2e.test_web_consoles import (  # noqa: F401  (the fixtures)
    MEDIA_ARGS,
    DoubleControl,
    accounts,
    ai_server,
    ai_settings,
    control,
    gemini,
)

SCRIPT = REPO / "tests" / "e2e" / "web" / "plan-review.test.mjs"


def _plan_files(directory: Path) -> Path:
    # 30 Gy + 0.5 Gy/mm along x in 5 fractions: the cord's Dmax fails, the heart's V25 fails.
    grid = phantoms.dose_grid((-30, -30, -30), (30, 30, 30), (3.0, 3.0, 3.0), lambda x, y, z: 30 + 0.5 * x)
    cord = phantoms.box((-5, -5, -10), (5, 5, 10), 2.0, name="Spinal Cord")
    heart = phantoms.box((-20, -20, -10), (-10, -10, 10), 2.0, name="Heart")
    ptv = phantoms.box((0, 0, -6), (10, 10, 6), 2.0, name="PTV_30")
    files = phantoms.plan_files([cord, heart, ptv], grid, fractions=5, prescription_gy=30)
    for kind, data in files.items():
        (directory / f"{kind}.dcm").write_bytes(data)
    (directory / "notes.txt").write_bytes(b"not a DICOM file\n" * 8)
    return directory


def test_web_plan_review(
    ai_server: str,  # noqa: F811
    ai_settings: None,  # noqa: F811
    worker: Any,
    control: DoubleControl,  # noqa: F811
    accounts: dict[str, Any],  # noqa: F811
    tmp_path: Path,
) -> None:
    if not (REPO / "web" / "dist" / "index.html").exists():
        pytest.fail("web is not built: run `npm run build` in web/ (./ops/test does it first)")
    artifacts = ARTIFACTS / "web"
    artifacts.mkdir(parents=True, exist_ok=True)
    result = run_browser_script(
        SCRIPT,
        {
            "BASE_URL": ai_server,
            "CHROMIUM_ARGS": json.dumps(MEDIA_ARGS),
            "ARTIFACTS_DIR": str(artifacts),
            "FIXTURES": json.dumps(accounts),
            "PLAN_DIR": str(_plan_files(tmp_path)),
        },
        timeout=240,
    )
    assert result.returncode == 0, result.stdout[-10000:] + result.stderr[-3000:]
