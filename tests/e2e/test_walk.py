"""The screen walk: every screen of both apps at a phone size (390x844) and a
desktop size (1280x800), in English and Arabic, in one Chromium.

Seeds one account per role, then runs tests/e2e/walk/walk.test.mjs
(playwright-core), which on every screen checks: no horizontal overflow of the
page, no button or input covered by another element (hit-test of its centre),
a dialog's actions visible without scrolling, axe with no serious or critical
violation, and no console error or warning. Screenshots of every screen are
kept (not compared) under artifacts/screens/<app>/<size>/<lang>-<theme>/<screen>.png.

WALK_BEFORE_DIR (set by ops/screens-before) points at a checkout whose web/dist
and admin-web/dist were built from an older commit: the walk then serves those
apps in front of this API (a small proxy), only takes the screenshots, into
WALK_SCREENS_DIR (default artifacts/screens-before), and checks nothing.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import mimetypes
import os
import struct
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.cara.admin_console.seed import subscribe
from tests.e2e.conftest import REPO, run_browser_script
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup

SCRIPT = REPO / "tests" / "e2e" / "walk" / "walk.test.mjs"
SCREENS = REPO / "artifacts" / "screens"


def totp(secret: str, at: float | None = None) -> str:
    """The authenticator app's current six-digit code for `secret` (RFC 6238, SHA-1, 30 s)."""
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    step = int((time.time() if at is None else at) // 30)
    digest = hmac.new(key, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset : offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def recorded_consultation(client: Any, headers: dict[str, str], console: str, *, sign: bool) -> str:
    """A consultation as the record keeps one: a stored transcript, a report draft, a note
    (signed when `sign`)."""
    from cara.kit.db import tenant_session
    from cara.models import ConsultationDraft
    from tests.cara.consultations.conftest import add_lines, schema_and_account

    r = client.post(
        "/api/consultations",
        json={
            "console": console,
            "consent": True,
            "patientReference": {"recordNumber": "MRN-0042", "name": "Abena Owusu"},
        },
        headers=headers,
    )
    assert r.status_code in (200, 201), r.text
    cid: str = r.json()["id"]
    add_lines(
        headers,
        cid,
        [
            ("user", "Screening mammogram, no symptoms, mother had breast cancer at 52."),
            ("assistant", "Noted: family history. Any previous imaging for comparison?"),
            ("user", "Two years ago, reported normal. Today a 9 mm spiculated mass, upper outer left."),
        ],
    )
    schema, _ = schema_and_account(headers)
    with tenant_session(schema) as s:
        s.add(
            ConsultationDraft(
                consultation_id=uuid.UUID(cid),
                kind="report",
                text="Findings\n9 mm spiculated mass, upper outer quadrant of the left breast.",
                sections={"findings": "9 mm spiculated mass.", "impression": ["Suspicious mass."]},
                evidence=[],
                model="walk",
                prompt_version="walk",
            )
        )
        s.commit()
    r = client.put(
        f"/api/consultations/{cid}/note",
        json={"text": "Findings\n9 mm spiculated mass.\n\nImpression\nSuspicious mass: core biopsy."},
        headers=headers,
    )
    assert r.status_code == 200, r.text
    if sign:
        r = client.post(f"/api/consultations/{cid}/note/sign", headers=headers)
        assert r.status_code == 200, r.text
    return cid


@pytest.fixture
def walk_accounts(client: Any, admin_token: str) -> dict[str, Any]:
    """One account per role the walk signs in as."""
    radiologist = doctor_payload(specialty="Radiologist", name="Ama Mensah")
    radiologist_token = signup(client, radiologist)["token"]
    subscribe(radiologist["email"], "doctor-basic")
    consultation = recorded_consultation(client, auth(radiologist_token), "radiologist", sign=False)

    radiotherapist = doctor_payload(specialty="Radiotherapist", name="Kwame Boateng")
    signup(client, radiotherapist)
    subscribe(radiotherapist["email"], "doctor-professional", status="trialing")

    practitioner = doctor_payload(specialty="General Practitioner", name="Kofi Adjei")
    signup(client, practitioner)
    subscribe(practitioner["email"], "doctor-basic")

    nurse = doctor_payload(specialty="Nurse", name="Akosua Frimpong")
    signup(client, nurse)
    subscribe(nurse["email"], "doctor-basic")

    unsubscribed = doctor_payload(specialty="General Practitioner", name="Zainab Okafor")
    signup(client, unsubscribed)

    hospital = hospital_payload(name="Komfo Anokye Teaching Hospital")
    created = signup(client, hospital)
    subscribe(hospital["email"], "hospital-bronze")
    staff = doctor_payload(specialty="Cardiologist", name="Yaw Asante", isHospitalCreated=True)
    staffed = add_staff(client, staff, created["token"])
    signed = recorded_consultation(client, auth(staffed["token"]), "cardiologist", sign=True)
    staff_id = staffed["user"].get("_id") or staffed["user"]["id"]
    r = client.get(f"/api/admin/doctors/{staff_id}", headers=auth(admin_token))
    assert r.status_code == 200, r.text
    hospital_id = r.json()["hospitalId"]

    # A hospital with two-factor sign-in on, which requires it of its doctors: its sign-in asks
    # for a code, its doctor's first sign-in for an enrolment.
    guarded = hospital_payload(name="Ridge Hospital")
    guarded_token = signup(client, guarded)["token"]
    subscribe(guarded["email"], "hospital-bronze")
    guarded_staff = doctor_payload(specialty="Nurse", name="Efua Sarpong", isHospitalCreated=True)
    add_staff(client, guarded_staff, guarded_token)
    r = client.put("/api/auth/mfa/policy", json={"requireForDoctors": True}, headers=auth(guarded_token))
    assert r.status_code == 200, r.text
    secret = client.post("/api/auth/mfa/setup", headers=auth(guarded_token)).json()["secret"]
    r = client.post("/api/auth/mfa/enable", json={"code": totp(secret)}, headers=auth(guarded_token))
    assert r.status_code == 200, r.text

    def login(body: dict[str, Any]) -> dict[str, str]:
        return {"email": body["email"], "password": body["password"], "name": body["name"]}

    return {
        "admin": {"email": "root-admin@example.com", "password": "root-password", "name": "Admin"},
        "radiologist": login(radiologist),
        "radiotherapist": login(radiotherapist),
        "unsubscribedDoctor": login(unsubscribed),
        "generalPractitioner": login(practitioner),
        "nurse": login(nurse),
        "hospital": login(hospital),
        "hospitalDoctor": login(staff),
        "mfaHospital": login(guarded),
        "mfaDoctor": login(guarded_staff),
        "consultation": consultation,
        "signedConsultation": signed,
        "hospitalDoctorId": staff_id,
        "hospitalId": hospital_id,
    }


_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-encoding", "content-length", "host"}


@contextmanager
def _proxy(api: str, before: Path) -> Iterator[str]:
    """Serve `before`'s built apps (SPA fallback to index.html) and pass /api/ on to `api`."""
    client = httpx.Client(base_url=api, timeout=30)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _api(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
            answer = client.request(
                self.command, self.path, headers=headers, content=self.rfile.read(length) if length else None
            )
            self.send_response(answer.status_code)
            for key, value in answer.headers.multi_items():
                if key.lower() not in _HOP_BY_HOP:
                    self.send_header(key, value)
            self.send_header("content-length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        def _static(self) -> None:
            path = self.path.split("?", 1)[0]
            app, rest = ("admin-web", path[len("/admin") :]) if path.startswith("/admin") else ("web", path)
            dist = (before / app / "dist").resolve()
            file = (dist / rest.lstrip("/")).resolve()
            if not file.is_file() or dist not in file.parents:
                file = dist / "index.html"
            body = file.read_bytes()
            self.send_response(200)
            self.send_header("content-type", mimetypes.guess_type(file.name)[0] or "application/octet-stream")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _handle(self) -> None:
            if self.path.startswith("/api/"):
                self._api()
            else:
                self._static()

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _handle

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        client.close()


# About 440 screen variants with axe each (two page loads per screen): minutes on a busy 2-core machine.
@pytest.mark.timeout(900)
def test_walk_every_screen(live_server: str, walk_accounts: dict[str, Any]) -> None:
    before = Path(os.environ["WALK_BEFORE_DIR"]) if os.environ.get("WALK_BEFORE_DIR") else None
    for app in ("web", "admin-web"):
        if not ((before or REPO) / app / "dist" / "index.html").exists():
            pytest.fail(f"{app} is not built: run ./ops/test, which builds it first")
    with ExitStack() as stack:
        if before is None:
            base, env = live_server, {"SCREENS_DIR": str(SCREENS)}
        else:
            base = stack.enter_context(_proxy(live_server, before))
            folder = os.environ.get("WALK_SCREENS_DIR") or str(REPO / "artifacts" / "screens-before")
            env = {"SCREENS_DIR": folder, "WALK_CAPTURE_ONLY": "1"}
        result = run_browser_script(
            SCRIPT, {"BASE_URL": base, "FIXTURES": json.dumps(walk_accounts), **env}, timeout=860
        )
    assert result.returncode == 0, result.stdout[-12000:] + result.stderr[-3000:]
