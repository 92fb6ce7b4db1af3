"""Abuse limits: sign-in per account and per address, sign-up, password reset, certificate
upload and the assistant; 429 with Retry-After in the error shape; and the client address,
which X-Forwarded-For sets only when the peer is a configured proxy."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from starlette.requests import Request

from cara.config import get_settings
from cara.kit import throttle
from cara.kit.client import client_address
from cara.kit.db import session_scope
from cara_doubles.gemini import GeminiDouble
from tests.cara.live.conftest import Browser, live_server  # noqa: F401  (fixture)
from tests.factories import auth, doctor_payload, hospital_payload, signup

LOGIN = "/api/auth/login"


@pytest.fixture
def limits(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Set a limit for this test: limits(rate_limit_chat="2 per hour")."""

    def set_(**values: str | list[str]) -> None:
        for name, value in values.items():
            monkeypatch.setattr(get_settings(), name, value)

    return set_


@pytest.fixture
def behind_proxy(app: Any, limits: Any) -> Iterator[TestClient]:
    """The app as a proxy at 10.0.0.7 reaches it, with that proxy trusted."""
    limits(trusted_proxies=["10.0.0.0/8"])
    with TestClient(app, client=("10.0.0.7", 40000)) as c:
        yield c


def _login(client: Any, email: str, password: str, forwarded: str | None = None) -> Any:
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    return client.post(LOGIN, json={"email": email, "password": password, "role": "doctor"}, headers=headers)


def _assert_429(r: Any, starts: str = "Too many") -> None:
    assert r.status_code == 429, r.text
    body = r.json()
    assert set(body) == {"message", "fields"} and body["fields"] == {}
    assert body["message"].startswith(starts)
    assert 0 < int(r.headers["retry-after"]) <= 3600


# ---------------------------------------------------------------- the client address


def _request(peer: str, *forwarded: str) -> Request:
    headers = [(b"x-forwarded-for", f.encode()) for f in forwarded]
    return Request({"type": "http", "client": (peer, 1234), "headers": headers})


def test_forwarded_for_is_ignored_unless_the_peer_is_a_trusted_proxy(limits: Any) -> None:
    assert client_address(_request("198.51.100.9", "203.0.113.5")) == "198.51.100.9"
    limits(trusted_proxies=["10.0.0.0/8", "192.0.2.1"])
    assert client_address(_request("198.51.100.9", "203.0.113.5")) == "198.51.100.9"
    assert client_address(_request("10.1.2.3", "203.0.113.5")) == "203.0.113.5"
    # Read from the right, past every trusted proxy; what the client itself wrote on the left is not used.
    assert client_address(_request("10.1.2.3", "1.1.1.1, 203.0.113.5, 192.0.2.1")) == "203.0.113.5"
    assert client_address(_request("10.1.2.3", "1.1.1.1", "203.0.113.5")) == "203.0.113.5"
    # Not an address, or nothing: the proxy itself is the client.
    assert client_address(_request("10.1.2.3", "nonsense")) == "10.1.2.3"
    assert client_address(_request("10.1.2.3")) == "10.1.2.3"


def test_rotating_forwarded_for_does_not_escape_the_login_limit(client: Any) -> None:
    payload = doctor_payload()
    signup(client, payload)
    for n in range(get_settings().login_max_failures):
        assert _login(client, payload["email"], "wrong-pass", f"203.0.113.{n}").status_code == 401
    # A new X-Forwarded-For, even with the right password: still the same client, refused.
    r = _login(client, payload["email"], payload["password"], "198.51.100.77")
    _assert_429(r, "Too many failed login attempts")


def test_behind_a_trusted_proxy_each_client_has_its_own_count(behind_proxy: TestClient) -> None:
    payload = doctor_payload()
    signup(behind_proxy, payload)
    for _ in range(get_settings().login_max_failures):
        assert _login(behind_proxy, payload["email"], "wrong-pass", "203.0.113.1").status_code == 401
    _assert_429(_login(behind_proxy, payload["email"], payload["password"], "203.0.113.1"))
    # Another client behind the same proxy is not locked out by the first one's failures.
    assert _login(behind_proxy, payload["email"], payload["password"], "203.0.113.2").status_code == 200


# ---------------------------------------------------------------- sign-in


def _assert_step_up(r: Any) -> None:
    assert r.status_code == 202, r.text
    assert r.json() == {
        "message": "For your security we sent a sign-in link to your email. "
        "If no email arrives, check your password and try again.",
        "stepUp": "email",
    }


def test_one_account_guessed_from_many_addresses(behind_proxy: TestClient, limits: Any) -> None:
    # Past the account's limit a new address gets no answer about the password, right or
    # wrong (cara.auth.service.login; the owner's way in is tests/cara/auth/test_lockout.py).
    limits(rate_limit_login_account="3 per 15 minutes")
    payload = doctor_payload()
    signup(behind_proxy, payload)
    for n in range(3):
        assert _login(behind_proxy, payload["email"], "wrong-pass", f"203.0.113.{n}").status_code == 401
    _assert_step_up(_login(behind_proxy, payload["email"], "wrong-again", "203.0.113.98"))
    _assert_step_up(_login(behind_proxy, payload["email"], payload["password"], "203.0.113.99"))


def test_one_password_tried_across_many_accounts(client: Any, limits: Any) -> None:
    limits(rate_limit_login_address="4 per 15 minutes")
    emails = [doctor_payload()["email"] for _ in range(5)]
    for email in emails[:4]:
        assert _login(client, email, "Summer2026!").status_code == 401
    # The spray goes on blind: no account after the limit says whether the password fits.
    _assert_step_up(_login(client, emails[4], "Summer2026!"))


# ---------------------------------------------------------------- sign-up


def test_signups_per_address(client: Any, limits: Any) -> None:
    limits(rate_limit_signup_address="2 per hour")
    signup(client, doctor_payload())
    signup(client, doctor_payload())
    r = client.post("/api/auth/signup", json=doctor_payload())
    _assert_429(r)


def test_a_hospital_adding_its_doctors_is_not_held_by_the_signup_limit(client: Any, limits: Any) -> None:
    from tests.factories import add_staff

    limits(rate_limit_signup_address="1 per hour")
    hospital = signup(client, hospital_payload())
    for _ in range(2):
        add_staff(client, doctor_payload(isHospitalCreated=True), hospital["token"])


def _hospital_schemas() -> int:
    with session_scope() as session:
        return int(
            session.execute(
                text("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'hospital\\_%'")
            ).scalar_one()
        )


def test_hospital_signup_flood_is_refused_before_any_schema_is_made(
    behind_proxy: TestClient, limits: Any
) -> None:
    limits(rate_limit_hospital_signup_address="2 per hour", rate_limit_hospital_signups="3 per hour")
    one = {"X-Forwarded-For": "203.0.113.1"}
    for _ in range(2):
        assert behind_proxy.post("/api/auth/signup", json=hospital_payload(), headers=one).status_code == 202
    _assert_429(behind_proxy.post("/api/auth/signup", json=hospital_payload(), headers=one))
    # Other addresses, until the platform-wide hourly total is reached.
    other = {"X-Forwarded-For": "203.0.113.2"}
    assert behind_proxy.post("/api/auth/signup", json=hospital_payload(), headers=other).status_code == 202
    before = _hospital_schemas()
    for n in range(3, 8):
        r = behind_proxy.post(
            "/api/auth/signup", json=hospital_payload(), headers={"X-Forwarded-For": f"203.0.113.{n}"}
        )
        _assert_429(r, "Too many new hospitals")
    assert _hospital_schemas() == before == 0  # a schema is made only when a mailed link is followed
    # Doctors still sign up.
    assert behind_proxy.post("/api/auth/signup", json=doctor_payload(), headers=other).status_code == 202


# ---------------------------------------------------------------- password reset


def test_forgot_password_per_email_and_per_address(behind_proxy: TestClient, limits: Any) -> None:
    limits(rate_limit_forgot_password_email="2 per hour", rate_limit_forgot_password_address="3 per hour")
    for email in ("known@example.com", "unknown@example.com"):
        for n in range(2):
            r = behind_proxy.post(
                "/api/auth/forgot-password",
                json={"email": email},
                headers={"X-Forwarded-For": f"203.0.113.{n}"},
            )
            assert r.status_code == 202
        # Known or not, the third request for one address is refused alike.
        r = behind_proxy.post(
            "/api/auth/forgot-password", json={"email": email}, headers={"X-Forwarded-For": "203.0.113.50"}
        )
        _assert_429(r)
    one = {"X-Forwarded-For": "198.51.100.1"}
    for n in range(3):
        r = behind_proxy.post("/api/auth/forgot-password", json={"email": f"x{n}@example.com"}, headers=one)
        assert r.status_code == 202
    _assert_429(behind_proxy.post("/api/auth/forgot-password", json={"email": "x9@example.com"}, headers=one))


def test_reset_password_per_address(client: Any, limits: Any) -> None:
    limits(rate_limit_reset_password_address="2 per hour")
    for _ in range(2):
        r = client.post("/api/auth/reset-password", json={"token": "guess", "password": "new-password"})
        assert r.status_code == 400
    _assert_429(client.post("/api/auth/reset-password", json={"token": "guess", "password": "new-password"}))


# ---------------------------------------------------------------- files and the assistant


def test_certificate_uploads_per_doctor(client: Any, limits: Any) -> None:
    limits(rate_limit_certificate_upload="2 per hour")
    token = signup(client, doctor_payload())["token"]
    pdf = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    for _ in range(2):
        r = client.post(
            "/api/auth/doctor/certificates",
            files={"file": ("licence.pdf", pdf, "application/pdf")},
            headers=auth(token),
        )
        assert r.status_code == 201, r.text
    r = client.post(
        "/api/auth/doctor/certificates",
        files={"file": ("licence.pdf", pdf, "application/pdf")},
        headers=auth(token),
    )
    _assert_429(r)


def test_chat_messages_per_doctor(
    client: Any, limits: Any, doctors_on_trial: None, gemini: GeminiDouble
) -> None:
    limits(rate_limit_chat="2 per hour")
    headers = auth(signup(client, doctor_payload(specialty="Radiotherapist"))["token"])
    for _ in range(2):
        r = client.post(
            "/api/radiotherapy-chat/messages", json={"message": "Cord tolerance?"}, headers=headers
        )
        assert r.status_code == 200, r.text
    _assert_429(client.post("/api/radiotherapy-chat/messages", json={"message": "Again?"}, headers=headers))
    # Another doctor has a count of their own.
    other = auth(signup(client, doctor_payload(specialty="Radiotherapist"))["token"])
    assert (
        client.post("/api/radiotherapy-chat/messages", json={"message": "Hi"}, headers=other).status_code
        == 200
    )


def test_summaries_per_doctor(client: Any, limits: Any, doctors_on_trial: None) -> None:
    spec = "1 per hour"
    limits(rate_limit_summaries=spec)
    user = signup(client, doctor_payload())
    throttle.hit("summaries", spec, user["user"]["_id"])  # the one summary of this hour
    r = client.post("/api/summarize", json={"transcript": "Patient stable."}, headers=auth(user["token"]))
    _assert_429(r)


def test_live_consultations_opened_per_doctor(
    live_server: str,  # noqa: F811  (fixture)
    client: Any,
    limits: Any,
    doctors_on_trial: None,
) -> None:
    spec = "1 per hour"
    limits(rate_limit_live_connects=spec)
    user = signup(client, doctor_payload())
    throttle.hit("live", spec, user["user"]["_id"])  # this hour's one consultation
    browser = Browser(f"{live_server}?specialty=radiologist", user["token"])
    try:
        status = browser.until(lambda f: f.get("type") == "status" and f.get("state") == "error")
        assert status["message"].startswith("Too many requests")
        assert browser.closed()[0] == 1013
    finally:
        browser.close()


def test_a_limit_the_library_cannot_read_is_refused_at_start() -> None:
    from pydantic import ValidationError

    from cara.config import Settings

    with pytest.raises(ValidationError, match="rate_limit_chat"):
        Settings(rate_limit_chat="lots")
    with pytest.raises(ValidationError, match="trusted_proxies"):
        Settings(trusted_proxies=["not-a-network"])


# ---------------------------------------------------------------- input


def test_text_direction_controls_are_refused_in_names(client: Any) -> None:
    r = client.post("/api/auth/signup", json=doctor_payload(name="Dr \u202eevil"))
    assert r.status_code == 422
    assert r.json()["fields"]["name"] == "Name must not contain text-direction control characters"


def test_text_direction_controls_are_removed_from_stored_file_names() -> None:
    from cara.profiles.certificates import safe_file_name

    # '\u202egnp.pdf' displays as 'fdp.png'.
    assert safe_file_name("\u202egnp.pdf", "application/pdf") == "gnp.pdf"
    assert safe_file_name("lic\u2066ence\u2069.pdf", "application/pdf") == "licence.pdf"


def test_forgot_password_for_an_unknown_address_goes_through_the_outbox_too(client: Any) -> None:
    from cara.kit.jobs import install_sender
    from cara.models import OutboxJob

    class Held:
        def queue_name(self, actor_name: str) -> str:
            return "mail"

        def send(self, actor_name: str, kwargs: dict[str, Any], options: dict[str, Any]) -> None:
            sent.append((actor_name, kwargs))

    sent: list[tuple[str, dict[str, Any]]] = []
    from workers import sender as job_sender

    install_sender(Held())
    try:
        payload = doctor_payload()
        signup(client, payload)
        for email in (payload["email"], "nobody-here@example.com"):
            assert client.post("/api/auth/forgot-password", json={"email": email}).status_code == 202
    finally:
        job_sender.install()
    # The sign-up's own link mail goes first; this test is about the two reset mails after it.
    mails = [(name, kwargs) for name, kwargs in sent if name.startswith("mail.password_reset")]
    assert next(name for name, _ in sent if name.startswith("mail.")) == "mail.signup_link"
    assert [name for name, _ in mails] == ["mail.password_reset", "mail.password_reset_no_account"]
    assert mails[1][1] == {"email": "nobody-here@example.com"}
    with session_scope() as session:
        assert session.query(OutboxJob).count() == 0
