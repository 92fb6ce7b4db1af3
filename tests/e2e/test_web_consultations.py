"""The consultation record in Chromium (tests/e2e/web/consultations.test.mjs).

The same parts as the consoles' browser test (tests/e2e/test_web_consoles.py,
whose fixtures this reuses): the API configured for the project's Gemini
double, a real Dramatiq worker in this process that writes the report draft
from the stored transcript, the double's control server, and Chromium with a
fake microphone. The accounts: a hospital on an active plan and one of its
radiologists, so the hospital can read the note its doctor signed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.cara.admin_console.seed import subscribe
from tests.e2e.conftest import ARTIFACTS, REPO, run_browser_script
from tests.e2e.test_web_consoles import (  # noqa: F401  (fixtures)
    MEDIA_ARGS,
    DoubleControl,
    ai_server,
    ai_settings,
    control,
    gemini,
)
from tests.factories import add_staff, doctor_payload, hospital_payload, signup

SCRIPT = REPO / "tests" / "e2e" / "web" / "consultations.test.mjs"


@pytest.fixture
def record_accounts(client: Any) -> dict[str, Any]:
    hospital = hospital_payload(name="Ridge Regional Hospital")
    created = signup(client, hospital)
    subscribe(hospital["email"], "hospital-silver")  # its doctors draft reports
    doctor = doctor_payload(specialty="Radiologist", name="Esi Quaye", isHospitalCreated=True)
    add_staff(client, doctor, created["token"])

    def login(body: dict[str, Any]) -> dict[str, str]:
        return {"email": body["email"], "password": body["password"], "name": body["name"]}

    return {"recordDoctor": login(doctor), "recordHospital": login(hospital)}


def test_web_consultations(
    ai_server: str,  # noqa: F811
    ai_settings: None,  # noqa: F811
    worker: Any,
    control: DoubleControl,  # noqa: F811
    record_accounts: dict[str, Any],
) -> None:
    if not (REPO / "web" / "dist" / "index.html").exists():
        pytest.fail("web is not built: run `npm run build` in web/ (./ops/test does it first)")
    artifacts = ARTIFACTS / "web"
    artifacts.mkdir(parents=True, exist_ok=True)
    result = run_browser_script(
        SCRIPT,
        {
            "BASE_URL": ai_server,
            "CONTROL_URL": control.url,
            "CHROMIUM_ARGS": json.dumps(MEDIA_ARGS),
            "ARTIFACTS_DIR": str(artifacts),
            "FIXTURES": json.dumps(record_accounts),
        },
        timeout=420,
    )
    assert result.returncode == 0, result.stdout[-10000:] + result.stderr[-3000:]
