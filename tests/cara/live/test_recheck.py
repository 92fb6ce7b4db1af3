"""An open consultation checks the doctor's token and access again every LIVE_RECHECK_SECONDS.

A doctor deactivated, removed or signed out, or whose subscription lapses, loses the consultation
within an interval, after its transcript is stored; an outage of the database or Redis does not
end it. Real socket, real API, the Gemini double.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import redis
from sqlalchemy import exc as sa_exc
from sqlalchemy import update

from cara.auth import tokens
from cara.auth.principal import AUTH_FAILED
from cara.config import get_settings
from cara.kit.db import session_scope
from cara.live import endpoints
from cara.live.messages import CLOSE_CODES
from cara.live.permission import NEEDS_SUBSCRIPTION
from cara.models import Subscription
from cara.models.base import utcnow
from cara_doubles.gemini import GeminiDouble
from tests.cara.admin_console.seed import subscribe
from tests.cara.live.conftest import Browser, Json, doctor_token
from tests.cara.live.test_relay import b64, connect, consultation_row, stored
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup

Open = Callable[..., Browser]
INTERVAL = 0.2
DEACTIVATED = "Your account has been deactivated. Please contact your administrator."


@pytest.fixture(autouse=True)
def _recheck_often(monkeypatch: Any) -> None:
    monkeypatch.setattr(get_settings(), "live_recheck_seconds", INTERVAL)


@dataclass(frozen=True)
class HospitalDoctor:
    hospital_token: str
    token: str
    id: str
    schema: str


def hospital_doctor(client: Any, specialty: str = "Radiotherapist") -> HospitalDoctor:
    """A doctor of a subscribed hospital, with what the hospital needs to manage them."""
    hospital_body = hospital_payload()
    hospital = signup(client, hospital_body)
    subscribe(hospital_body["email"], "hospital-bronze")  # its doctors may use the assistant
    doctor = add_staff(client, doctor_payload(specialty=specialty, isHospitalCreated=True), hospital["token"])
    claims = tokens.decode(doctor["token"])
    assert claims is not None and claims.tenant_schema
    return HospitalDoctor(hospital["token"], doctor["token"], doctor["user"]["_id"], claims.tenant_schema)


def quiet(browser: Browser, seconds: float) -> list[Json]:
    """What the browser receives in `seconds` (the socket must stay open meanwhile)."""
    deadline = time.monotonic() + seconds
    got: list[Json] = []
    while (left := deadline - time.monotonic()) > 0:
        try:
            got.append(browser.recv(left))
        except TimeoutError:
            break
    return got


def errors(messages: list[Json]) -> list[Json]:
    return [m for m in messages if m.get("type") == "status" and m.get("state") == "error"]


def still_relays(browser: Browser, session: Any, chunk: bytes) -> None:
    """Audio sent now reaches the provider (what it received so far plus this chunk)."""
    before = len(session.audio)
    browser.send({"type": "audio", "data": b64(chunk)})
    assert session.wait_for_audio(before + len(chunk))[before:] == chunk


# ------------------------------------------------------------------ access withdrawn


def test_deactivated_by_the_hospital_ends_the_consultation_after_storing_it(
    client: Any, gemini: GeminiDouble, open_console: Open, caplog: Any
) -> None:
    caplog.set_level(logging.DEBUG)
    doctor = hospital_doctor(client)
    browser, consultation = connect(open_console, doctor.token)
    session = gemini.session(0)
    session.send_input_transcription("Hey Cara, left breast, 40 Gy in 15")
    session.send_turn_complete()
    browser.until(lambda m: m.get("type") == "turnComplete")
    session.send_input_transcription("and a boost to the bed")  # still open when access ends
    browser.until(lambda m: m.get("type") == "transcript" and m["text"] == "and a boost to the bed")

    r = client.put(f"/api/doctors/{doctor.id}", json={"isActive": False}, headers=auth(doctor.hospital_token))
    assert r.status_code == 200 and r.json()["isActive"] is False

    error = browser.status("error")
    assert error["code"] == "forbidden"
    assert "Your account has been deactivated" in error["message"]
    assert browser.closed() == (4403, DEACTIVATED)
    # Closed after the transcript was stored and the consultation ended, not before.
    assert consultation_row(doctor.schema, consultation).ended_at is not None
    assert stored(doctor.schema, consultation, 2, timeout=0) == [
        (0, "user", "Hey Cara, left breast, 40 Gy in 15"),
        (1, "user", "and a boost to the bed"),
    ]
    assert session.closed.wait(5), "the provider connection is closed too"
    assert session.close_code == 1000

    logged = "\n".join(f"{r.getMessage()} {r.__dict__}" for r in caplog.records)
    assert "live access withdrawn" in logged
    for secret in (doctor.token, "40 Gy", "boost"):
        assert secret not in logged


def test_signing_out_ends_the_consultation_with_4401(
    client: Any, gemini: GeminiDouble, open_console: Open
) -> None:
    token = doctor_token(client)
    browser, consultation = connect(open_console, token)
    assert client.post("/api/auth/logout", headers=auth(token)).status_code == 200

    error = browser.status("error")
    assert error["code"] == "unauthorized" and error["message"] == AUTH_FAILED
    assert browser.closed() == (4401, AUTH_FAILED)
    assert consultation_row("independent", consultation).ended_at is not None
    assert gemini.session(0).closed.wait(5)


def test_removal_by_the_hospital_ends_the_consultation(
    client: Any, gemini: GeminiDouble, open_console: Open
) -> None:
    doctor = hospital_doctor(client, "Nurse")
    browser, _ = connect(open_console, doctor.token)
    r = client.request("DELETE", f"/api/doctors/{doctor.id}", headers=auth(doctor.hospital_token))
    assert r.status_code == 200, r.text

    error = browser.status("error")
    code, _reason = browser.closed()
    assert code is not None and 4400 <= code < 4500
    assert code == CLOSE_CODES[error["code"]]
    assert gemini.session(0).closed.wait(5)


def test_a_lapsed_subscription_ends_the_consultation_with_4403(
    client: Any, gemini: GeminiDouble, open_console: Open
) -> None:
    token = doctor_token(client)
    browser, _ = connect(open_console, token)
    claims = tokens.decode(token)
    assert claims is not None
    with session_scope() as s:  # the signup trial ends (what the clock does, days later)
        s.execute(
            update(Subscription)
            .where(Subscription.account_id == claims.account_id)
            .values(trial_end=utcnow())
        )

    error = browser.status("error")
    assert error["code"] == "forbidden" and error["message"] == NEEDS_SUBSCRIPTION
    assert browser.closed()[0] == 4403


# ------------------------------------------------------------------ access kept


def _count_checks(monkeypatch: Any) -> list[float]:
    """Times at which the live check asks about the doctor's access (from now on)."""
    calls: list[float] = []
    original = endpoints.check_assistant_permission

    def counted(*args: Any, **kwargs: Any) -> None:
        calls.append(time.monotonic())
        original(*args, **kwargs)

    monkeypatch.setattr(endpoints, "check_assistant_permission", counted)
    return calls


def test_an_active_doctor_is_not_disturbed(
    client: Any, gemini: GeminiDouble, open_console: Open, monkeypatch: Any
) -> None:
    browser, _ = connect(open_console, doctor_token(client))
    session = gemini.session(0)
    calls = _count_checks(monkeypatch)
    still_relays(browser, session, b"\x01\x00" * 256)
    assert not errors(quiet(browser, 6 * INTERVAL))
    assert len(calls) >= 3, "checked again every interval"
    still_relays(browser, session, b"\x02\x00" * 256)
    assert not session.closed.is_set()


def _redis_down(calls: list[float]) -> Callable[..., Any]:
    def unreachable() -> Any:
        calls.append(time.monotonic())
        raise redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    return unreachable


def _database_down(calls: list[float]) -> Callable[..., Any]:
    def unreachable(*args: Any, **kwargs: Any) -> Any:
        calls.append(time.monotonic())
        raise sa_exc.OperationalError("SELECT", {}, Exception("connection refused"))

    return unreachable


@pytest.mark.parametrize(
    ("outage", "target", "error_type"),
    [
        pytest.param("redis", (tokens, "get_redis"), "ConnectionError", id="redis"),
        pytest.param("database", (endpoints, "authenticate_token"), "OperationalError", id="database"),
    ],
)
def test_an_outage_during_the_recheck_does_not_end_the_consultation(
    client: Any,
    gemini: GeminiDouble,
    open_console: Open,
    monkeypatch: Any,
    caplog: Any,
    outage: str,
    target: tuple[Any, str],
    error_type: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    token = doctor_token(client)
    browser, _ = connect(open_console, token)
    session = gemini.session(0)
    calls: list[float] = []
    down = _redis_down(calls) if outage == "redis" else _database_down(calls)
    with monkeypatch.context() as patch:
        patch.setattr(*target, down)
        still_relays(browser, session, b"\x03\x00" * 256)
        assert not errors(quiet(browser, 6 * INTERVAL))
        assert len(calls) >= 3, "the check ran (and failed) several times"
        still_relays(browser, session, b"\x04\x00" * 256)
    assert not session.closed.is_set()

    warnings = [r for r in caplog.records if r.getMessage() == "live access re-check could not run"]
    assert warnings and {getattr(r, "error", None) for r in warnings} == {error_type}
    assert all(r.levelno == logging.WARNING for r in warnings)
    logged = "\n".join(f"{r.getMessage()} {r.__dict__}" for r in caplog.records)
    assert token not in logged and "Connection refused" not in logged

    # Once it answers again, a withdrawal is enforced.
    assert client.post("/api/auth/logout", headers=auth(token)).status_code == 200
    assert browser.status("error")["code"] == "unauthorized"
    assert browser.closed()[0] == 4401


def test_an_unexpected_error_of_the_recheck_is_logged_and_the_consultation_goes_on(
    client: Any, gemini: GeminiDouble, open_console: Open, monkeypatch: Any, caplog: Any
) -> None:
    browser, _ = connect(open_console, doctor_token(client))
    session = gemini.session(0)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(endpoints, "check_assistant_permission", broken)
    assert not errors(quiet(browser, 4 * INTERVAL))
    still_relays(browser, session, b"\x05\x00" * 256)
    failed = [r for r in caplog.records if r.getMessage() == "live access re-check failed"]
    assert failed and {getattr(r, "error", None) for r in failed} == {"RuntimeError"}
