"""The admin console in Chromium against the real API and database.

Seeds hospitals, doctors, payments and rollups, then runs
tests/e2e/admin-web/console.test.mjs (playwright-core): sign-in, the four
cards and both charts, every list, verifying a hospital, Arabic right to
left, and a non-admin sent away. Screenshots land in artifacts/e2e/admin-web.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from cara.analytics import rollups
from cara.kit.db import session_scope
from tests.cara.admin_console.seed import pay, subscribe
from tests.e2e.conftest import ARTIFACTS, REPO, run_browser_script
from tests.factories import add_staff, doctor_payload, hospital_payload, signup

SCRIPT = REPO / "tests" / "e2e" / "admin-web" / "console.test.mjs"


@pytest.fixture
def seeded(client: Any, admin_token: str) -> dict[str, str]:
    hospitals = [
        signup(client, hospital_payload(name="Korle Bu Teaching Hospital", state="Accra")),
        signup(client, hospital_payload(name="Aga Khan University Hospital", state="Nairobi")),
    ]
    add_staff(client, doctor_payload(isHospitalCreated=True, specialty="Cardiologist"), hospitals[0]["token"])
    clinician = doctor_payload(specialty="Radiologist")
    signup(client, clinician)
    subscribe(hospitals[0]["user"]["email"], "hospital-silver")
    pay(hospitals[0]["user"]["email"], "hospital-silver", 24_900, datetime.now(UTC))
    with session_scope() as s:
        rollups.refresh_all(s)
    return {"email": clinician["email"], "password": clinician["password"]}


def test_admin_console(live_server: str, seeded: dict[str, str], tmp_path: Path) -> None:
    if not (REPO / "admin-web" / "dist" / "index.html").exists():
        pytest.fail("admin-web is not built: run ./ops/test, which builds it first")
    artifacts = ARTIFACTS / "admin-web"
    artifacts.mkdir(parents=True, exist_ok=True)
    result = run_browser_script(
        SCRIPT,
        {
            "BASE_URL": live_server,
            "ADMIN_EMAIL": "root-admin@example.com",
            "ADMIN_PASSWORD": "root-password",
            # an independent doctor, signed in on the console's origin from the clinician app's side
            "CLINICIAN_EMAIL": seeded["email"],
            "CLINICIAN_PASSWORD": seeded["password"],
            "ARTIFACTS_DIR": str(artifacts),
            # what the seed above must show once rolled up
            "EXPECTED_STATS": json.dumps(
                {
                    "stat-hospitals": 2,
                    "stat-doctors": 2,
                    "stat-active-subscriptions": 1,
                    "stat-monthly-revenue": "$249.00",
                }
            ),
        },
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert (artifacts / "dashboard.png").exists()


MFA_SCRIPT = REPO / "tests" / "e2e" / "admin-web" / "mfa.test.mjs"


@pytest.fixture
def admins_need_mfa(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server started after this requires two-factor sign-in of admins."""
    monkeypatch.setenv("ADMIN_MFA_REQUIRED", "true")


def test_admin_two_factor(admins_need_mfa: None, live_server: str, admin_token: str) -> None:
    """An admin without two-factor enrols right after the password, then signs in with a code."""
    if not (REPO / "admin-web" / "dist" / "index.html").exists():
        pytest.fail("admin-web is not built: run ./ops/test, which builds it first")
    artifacts = ARTIFACTS / "admin-web"
    artifacts.mkdir(parents=True, exist_ok=True)
    result = run_browser_script(
        MFA_SCRIPT,
        {
            "BASE_URL": live_server,
            "ADMIN_EMAIL": "root-admin@example.com",
            "ADMIN_PASSWORD": "root-password",
            "ARTIFACTS_DIR": str(artifacts),
        },
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
