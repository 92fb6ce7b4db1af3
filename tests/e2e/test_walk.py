"""The screen walk: every screen of both apps at a phone size (390x844) and a
desktop size (1280x800), in English and Arabic, in one Chromium.

Seeds one account per role, then runs tests/e2e/walk/walk.test.mjs
(playwright-core), which on every screen checks: no horizontal overflow of the
page, no button or input covered by another element (hit-test of its centre),
a dialog's actions visible without scrolling, axe with no serious or critical
violation, and no console error or warning. Screenshots of every screen are
kept (not compared) under artifacts/screens/<app>/<size>/<lang>/<screen>.png.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.cara.admin_console.seed import subscribe
from tests.e2e.conftest import REPO, run_browser_script
from tests.factories import add_staff, doctor_payload, hospital_payload, signup

SCRIPT = REPO / "tests" / "e2e" / "walk" / "walk.test.mjs"
SCREENS = REPO / "artifacts" / "screens"


@pytest.fixture
def walk_accounts(client: Any, admin_token: str) -> dict[str, Any]:
    """One account per role the walk signs in as."""
    radiologist = doctor_payload(specialty="Radiologist", name="Ama Mensah")
    signup(client, radiologist)
    subscribe(radiologist["email"], "doctor-basic")

    radiotherapist = doctor_payload(specialty="Radiotherapist", name="Kwame Boateng")
    signup(client, radiotherapist)
    subscribe(radiotherapist["email"], "doctor-professional", status="trialing")

    unsubscribed = doctor_payload(specialty="General Practitioner", name="Zainab Okafor")
    signup(client, unsubscribed)

    hospital = hospital_payload(name="Komfo Anokye Teaching Hospital")
    created = signup(client, hospital)
    subscribe(hospital["email"], "hospital-bronze")
    staff = doctor_payload(specialty="Cardiologist", name="Yaw Asante", isHospitalCreated=True)
    add_staff(client, staff, created["token"])

    def login(body: dict[str, Any]) -> dict[str, str]:
        return {"email": body["email"], "password": body["password"], "name": body["name"]}

    return {
        "admin": {"email": "root-admin@example.com", "password": "root-password", "name": "Admin"},
        "radiologist": login(radiologist),
        "radiotherapist": login(radiotherapist),
        "unsubscribedDoctor": login(unsubscribed),
        "hospital": login(hospital),
        "hospitalDoctor": login(staff),
    }


# About 270 screen variants with axe each (two page loads per screen): minutes on a busy 2-core machine.
@pytest.mark.timeout(900)
def test_walk_every_screen(live_server: str, walk_accounts: dict[str, Any]) -> None:
    for app in ("web", "admin-web"):
        if not (REPO / app / "dist" / "index.html").exists():
            pytest.fail(f"{app} is not built: run ./ops/test, which builds it first")
    result = run_browser_script(
        SCRIPT,
        {"BASE_URL": live_server, "SCREENS_DIR": str(SCREENS), "FIXTURES": json.dumps(walk_accounts)},
        timeout=860,
    )
    assert result.returncode == 0, result.stdout[-12000:] + result.stderr[-3000:]
