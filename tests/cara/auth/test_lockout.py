"""Sign-in limits that strangers cannot turn against an account's owner.

The attacks: wrong passwords spread over a few addresses run the per-account count past its
limit; wrong passwords on many accounts from a clinic's one address run the per-address count
past it. Neither may keep the owner (or the clinic's doctors) out: a right password from an
address the account signed in from, or a browser holding its device cookie, goes in; from a
new place it gets a step-up (an emailed sign-in link, usable once), never a block. Only the
failing address itself is refused (429). A password reset starts the account's count again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cara.config import get_settings
from tests.factories import auth, doctor_payload, signup

LOGIN = "/api/auth/login"
UNLOCK = "/api/auth/login/unlock"
BROWSER = {"X-Requested-With": "XMLHttpRequest"}
STEP_UP = {
    "message": "For your security we sent a sign-in link to your email. "
    "If no email arrives, check your password and try again.",
    "stepUp": "email",
}
OWNER_HOME = "198.51.100.10"
ATTACKERS = [f"203.0.113.{n}" for n in range(1, 5)]


@pytest.fixture
def proxied(app: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], TestClient]]:
    """Clients (each with its own cookie jar) behind a trusted proxy, so that X-Forwarded-For
    sets each request's address. The sign-in limits are the shipped ones (the suite's
    configuration raises every limit out of the way)."""
    settings = get_settings()
    monkeypatch.setattr(settings, "trusted_proxies", ["10.0.0.0/8"])
    monkeypatch.setattr(settings, "rate_limit_login_account", "20 per 15 minutes")
    monkeypatch.setattr(settings, "rate_limit_login_address", "20 per 15 minutes")
    monkeypatch.setattr(settings, "rate_limit_login_unlock_mail", "3 per hour")
    opened: list[TestClient] = []

    def open_() -> TestClient:
        c = TestClient(app, client=("10.0.0.7", 40000))
        c.__enter__()
        opened.append(c)
        return c

    yield open_
    for c in opened:
        c.__exit__(None, None, None)


def _login(c: TestClient, email: str, password: str, address: str, *, browser: bool = False) -> Any:
    headers = {"X-Forwarded-For": address, **(BROWSER if browser else {})}
    return c.post(LOGIN, json={"email": email, "password": password, "role": "doctor"}, headers=headers)


def _spray(c: TestClient, email: str) -> None:
    """The finding's attack: every wrong password an address may send, from four addresses
    (4 x LOGIN_MAX_FAILURES = the per-account limit of 20)."""
    for address in ATTACKERS:
        for _ in range(get_settings().login_max_failures):
            assert _login(c, email, "wrong-pass", address).status_code == 401


def _assert_429(r: Any) -> None:
    assert r.status_code == 429, r.text
    assert r.json()["message"].startswith("Too many failed login attempts")
    assert 0 < int(r.headers["retry-after"]) <= 900


def _signed_in(r: Any) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    assert body["message"] == "Login successful!" and body["token"]
    return body


def _unlock_links(caplog: pytest.LogCaptureFixture) -> list[str]:
    bodies = [str(getattr(record, "mail_body", "")) for record in caplog.records]
    return [body.split("?unlock=")[1].split()[0] for body in bodies if "?unlock=" in body]


def _wait_for_links(worker: Any, caplog: pytest.LogCaptureFixture, count: int) -> list[str]:
    worker.join("mail", timeout=10_000)
    deadline = time.time() + 5
    while len(_unlock_links(caplog)) < count and time.time() < deadline:
        time.sleep(0.05)
    return _unlock_links(caplog)


def test_failures_from_four_addresses_do_not_block_the_owner_at_a_known_address(
    proxied: Callable[[], TestClient],
) -> None:
    c = proxied()
    payload = doctor_payload()
    signup(c, payload)
    _signed_in(_login(c, payload["email"], payload["password"], OWNER_HOME))

    _spray(c, payload["email"])

    # The owner, from where they signed in before: in, with the right password only.
    _signed_in(_login(c, payload["email"], payload["password"], OWNER_HOME))
    assert _login(c, payload["email"], "wrong-pass", OWNER_HOME).status_code == 401
    # The attacker's own addresses stay refused, even with the right password.
    for address in ATTACKERS:
        _assert_429(_login(c, payload["email"], payload["password"], address))


def test_nor_on_a_browser_holding_its_device_cookie(proxied: Callable[[], TestClient]) -> None:
    owner, attacker = proxied(), proxied()
    payload = doctor_payload()
    signup(owner, payload)
    first = _login(owner, payload["email"], payload["password"], OWNER_HOME, browser=True)
    _signed_in(first)
    cookie = next(v for k, v in first.headers.multi_items() if k == "set-cookie" and "cara_device=" in v)
    lowered = cookie.lower()
    assert "httponly" in lowered and "samesite=lax" in lowered and "path=/api/auth" in lowered

    _spray(attacker, payload["email"])

    # The owner on the same laptop at another site (an address the account never used).
    _signed_in(_login(owner, payload["email"], payload["password"], "192.0.2.50", browser=True))
    # A cookie the server did not sign is no device: the attacker with the password still
    # only gets the step-up.
    device = owner.cookies.get("cara_device")
    assert device
    forged = device.split(".")[0] + "." + "0" * 32
    attacker.cookies.set("cara_device", forged, domain="testserver.local", path="/api/auth")
    r = _login(attacker, payload["email"], payload["password"], "192.0.2.51", browser=True)
    assert (r.status_code, r.json()) == (202, STEP_UP)


def test_from_a_new_place_the_right_password_gets_an_emailed_link_that_works_once(
    proxied: Callable[[], TestClient], worker: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="cara.mail")
    c = proxied()
    payload = doctor_payload()
    signup(c, payload)
    _spray(c, payload["email"])
    new_place = "192.0.2.77"

    # Right and wrong passwords are answered alike: the step-up is no password oracle.
    wrong = _login(c, payload["email"], "wrong-again", new_place)
    right = _login(c, payload["email"], payload["password"], new_place)
    assert (wrong.status_code, wrong.json()) == (right.status_code, right.json()) == (202, STEP_UP)

    links = _wait_for_links(worker, caplog, 1)
    assert len(links) == 1  # only the right password mailed one
    token = links[0]
    record = next(r for r in caplog.records if "?unlock=" in str(getattr(r, "mail_body", "")))
    assert f"/doctor-login?unlock={token}" in record.mail_body

    headers = {"X-Forwarded-For": new_place, **BROWSER}
    body = _signed_in(c.post(UNLOCK, json={"token": token}, headers=headers))
    assert body["user"]["email"] == payload["email"]
    assert c.get("/api/auth/user", headers=auth(body["token"])).status_code == 200
    again = c.post(UNLOCK, json={"token": token}, headers=headers)
    assert again.status_code == 400
    assert again.json()["message"].startswith("This sign-in link is invalid")
    assert c.post(UNLOCK, json={"token": "made-up"}, headers=headers).status_code == 400

    # The link made the place known and started the account's count again.
    _signed_in(_login(c, payload["email"], payload["password"], new_place))
    _signed_in(_login(c, payload["email"], payload["password"], "192.0.2.78"))


def test_a_clinic_address_past_its_limit_still_admits_its_doctors(
    proxied: Callable[[], TestClient],
) -> None:
    c = proxied()
    clinic = "198.51.100.200"
    colleague, newcomer = doctor_payload(), doctor_payload()
    signup(c, colleague)
    signup(c, newcomer)
    _signed_in(_login(c, colleague["email"], colleague["password"], clinic))

    # One password tried on many accounts from the clinic's one address, to its limit.
    for _ in range(20):
        assert _login(c, doctor_payload()["email"], "Summer2026!", clinic).status_code == 401

    _signed_in(_login(c, colleague["email"], colleague["password"], clinic))
    # A doctor new to this address is asked for the emailed link, not refused.
    r = _login(c, newcomer["email"], newcomer["password"], clinic)
    assert (r.status_code, r.json()) == (202, STEP_UP)


def test_a_password_reset_starts_the_account_count_again(
    proxied: Callable[[], TestClient], worker: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="cara.mail")
    c = proxied()
    payload = doctor_payload()
    signup(c, payload)
    _spray(c, payload["email"])

    assert c.post("/api/auth/forgot-password", json={"email": payload["email"]}).status_code == 202
    worker.join("mail", timeout=10_000)
    deadline = time.time() + 5
    bodies: list[str] = []
    while not bodies and time.time() < deadline:
        bodies = [
            str(r.mail_body)
            for r in caplog.records
            if "/forgot-password?token=" in str(getattr(r, "mail_body", ""))
        ]
        time.sleep(0.05)
    token = bodies[0].split("/forgot-password?token=")[1].split()[0]
    r = c.post("/api/auth/reset-password", json={"token": token, "password": "brand-new-pass"})
    assert r.status_code == 200, r.text

    # From an address the account never used: the new password alone signs in.
    _signed_in(_login(c, payload["email"], "brand-new-pass", "192.0.2.99"))


def test_unlock_mails_are_capped_and_the_answer_does_not_change_past_the_cap(
    proxied: Callable[[], TestClient], worker: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A stranger holding the password cannot flood the owner's inbox with sign-in links: past
    `rate_limit_login_unlock_mail` (3 an hour) no more are sent, and the answer stays the same
    (it says nothing about whether a mail went)."""
    caplog.set_level(logging.INFO, logger="cara.mail")
    c = proxied()
    payload = doctor_payload()
    signup(c, payload)
    _spray(c, payload["email"])
    for n in range(6):
        r = _login(c, payload["email"], payload["password"], f"192.0.2.{100 + n}")
        assert (r.status_code, r.json()) == (202, STEP_UP)
    links = _wait_for_links(worker, caplog, 4)
    time.sleep(0.5)  # a fourth mail, were one sent, would have arrived by now
    assert len(_unlock_links(caplog)) == len(links) == 3


def test_for_a_two_factor_account_the_link_leads_to_the_code_step(
    proxied: Callable[[], TestClient], worker: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The mailed link stands in for the place, never for the second factor: redeemed, it
    answers the two-factor challenge, and only the code signs in."""
    from tests.cara.auth.test_mfa import _enrol, _next_code

    caplog.set_level(logging.INFO, logger="cara.mail")
    c = proxied()
    payload = doctor_payload()
    token = signup(c, payload)["token"]
    secret, _codes, step = _enrol(c, token)
    _spray(c, payload["email"])
    new_place = "192.0.2.88"
    r = _login(c, payload["email"], payload["password"], new_place)
    assert (r.status_code, r.json()) == (202, STEP_UP)
    link = _wait_for_links(worker, caplog, 1)[0]

    headers = {"X-Forwarded-For": new_place, **BROWSER}
    unlocked = c.post(UNLOCK, json={"token": link}, headers=headers)
    assert unlocked.status_code == 200, unlocked.text
    body = unlocked.json()
    assert body["mfaRequired"] == "code" and "token" not in body
    code, _ = _next_code(secret, after_step=step)
    done = c.post("/api/auth/login/mfa", json={"challenge": body["challenge"], "code": code}, headers=headers)
    _signed_in(done)
