"""The clinician and hospital web app (web/) in Chromium against the real API.

Seeds accounts through the API (and subscriptions directly, the billing domain
owns their creation), runs a real Dramatiq worker in this process with an SMTP
mailbox so emailed links can be followed, then runs each browser script in
tests/e2e/web/ (playwright-core, node --test). Screenshots land in
artifacts/e2e/web.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cara.admin_console.seed import subscribe
from tests.e2e.conftest import ARTIFACTS, REPO, run_browser_script
from tests.e2e.mailbox import mail_into
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup

# The consoles, the consultation record and the live console on a shaped network need the Gemini
# double and their own servers: tests/e2e/test_web_consoles.py, test_web_consultations.py,
# test_web_live_network.py and test_web_capture.py.
OWN_RUNNER = {
    "consoles.test.mjs",
    "consultations.test.mjs",
    "live-network.test.mjs",
    "capture.test.mjs",
    # tests/e2e/test_web_offline.py: through the shaping proxy
    "offline.test.mjs",
    "reconnect.test.mjs",
    "uplink.test.mjs",
    # tests/e2e/test_web_imaging.py (with Orthanc) and test_web_plan_review.py (with the worker)
    "imaging.test.mjs",
    "plan-review.test.mjs",
}
SCRIPTS = sorted(p for p in (REPO / "tests" / "e2e" / "web").glob("*.test.mjs") if p.name not in OWN_RUNNER)


@pytest.fixture
def mailbox(tmp_path: Path, live_server: str, worker: Any) -> Iterator[Path]:
    """Mail sent by the in-process worker lands in a folder the browser test reads."""
    with mail_into(tmp_path / "mailbox", live_server) as folder:
        yield folder


@pytest.fixture
def accounts(client: Any, admin_token: str) -> dict[str, Any]:
    """The accounts the browser scripts sign in with (passed as FIXTURES)."""
    radiologist = doctor_payload(specialty="Radiologist", name="Ama Mensah")
    signup(client, radiologist)
    subscribe(radiologist["email"], "doctor-basic")

    radiotherapist = doctor_payload(specialty="Radiotherapist", name="Kwame Boateng")
    signup(client, radiotherapist)
    subscribe(radiotherapist["email"], "doctor-professional", status="trialing")

    unsubscribed = doctor_payload(specialty="General Practitioner", name="Zainab Okafor")
    signup(client, unsubscribed)

    hospital = hospital_payload(name="Korle Bu Teaching Hospital")
    created = signup(client, hospital)
    staff = doctor_payload(specialty="Cardiologist", name="Yaw Asante", isHospitalCreated=True)
    add_staff(client, staff, created["token"])  # its hospital has no subscription

    # Subscription screens (tests/e2e/web/subscriptions.test.mjs): accounts that buy a plan on the
    # Stripe double, kept apart from the ones other scripts expect to stay unsubscribed.
    checkout_doctor = doctor_payload(specialty="Nurse", name="Efua Owusu")
    signup(client, checkout_doctor)
    checkout_hospital = hospital_payload(name="Tamale Teaching Hospital")
    signup(client, checkout_hospital)

    # Doctor management and profiles (tests/e2e/web/hospitals.test.mjs, profile.test.mjs).
    managing = hospital_payload(name="Komfo Anokye Teaching Hospital")
    managing_created = signup(client, managing)
    subscribe(managing["email"], "hospital-bronze")  # 5 doctors
    managed = doctor_payload(specialty="Radiologist", name="Kofi Mensah", isHospitalCreated=True)
    add_staff(client, managed, managing_created["token"])
    # A hospital at its plan's doctor limit: Bronze allows 5, it has 5.
    full = hospital_payload(name="Tema General Hospital")
    full_token = signup(client, full)["token"]
    for n in range(5):
        add_staff(client, doctor_payload(specialty="Nurse", name=f"Nurse Tema {n + 1}"), full_token)
    subscribe(full["email"], "hospital-bronze")
    profile_doctor = doctor_payload(specialty="Cardiologist", name="Adwoa Sarpong")
    signup(client, profile_doctor)
    subscribe(profile_doctor["email"], "doctor-basic")

    invite = client.post(
        "/api/admin/invitations", json={"email": "new-admin@example.com"}, headers=auth(admin_token)
    )
    assert invite.status_code == 201, invite.text

    def login(body: dict[str, Any]) -> dict[str, str]:
        return {"email": body["email"], "password": body["password"], "name": body["name"]}

    return {
        "admin": {"email": "root-admin@example.com", "password": "root-password", "name": "Admin"},
        "radiologist": login(radiologist),
        "radiotherapist": login(radiotherapist),
        "unsubscribedDoctor": login(unsubscribed),
        "hospital": login(hospital),
        "hospitalDoctor": login(staff),
        "checkoutDoctor": login(checkout_doctor),
        "checkoutHospital": login(checkout_hospital),
        "managingHospital": login(managing),
        "managedDoctor": login(managed),
        "fullHospital": login(full),
        "profileDoctor": login(profile_doctor),
        "adminInvitation": {"email": "new-admin@example.com", "url": invite.json()["invitationUrl"]},
    }


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name.removesuffix(".test.mjs") for p in SCRIPTS])
def test_web_app(script: Path, live_server: str, accounts: dict[str, Any], mailbox: Path) -> None:
    if not (REPO / "web" / "dist" / "index.html").exists():
        pytest.fail("web is not built: run ./ops/test, which builds it first")
    artifacts = ARTIFACTS / "web"
    artifacts.mkdir(parents=True, exist_ok=True)
    # The invitation link was built before the server's address was known.
    invitation = accounts["adminInvitation"]
    invitation["url"] = live_server + invitation["url"][invitation["url"].index("/admin-register") :]
    result = run_browser_script(
        script,
        {
            "BASE_URL": live_server,
            "ARTIFACTS_DIR": str(artifacts),
            "MAILBOX_DIR": str(mailbox),
            "FIXTURES": json.dumps(accounts),
        },
    )
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-3000:]
