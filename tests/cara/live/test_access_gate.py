"""The assistant is refused to doctors without a subscription (spec §6)."""

from __future__ import annotations

from typing import Any

import pytest

from cara.auth.principal import NO_PERMISSION
from cara.chat.service import EMPTY_MESSAGE
from cara.config import get_settings
from cara.live.permission import CHAT_ONLY_RADIOTHERAPISTS, NEEDS_SUBSCRIPTION
from cara.summaries.service import NO_CONVERSATION
from tests.cara.admin_console.seed import subscribe
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup


@pytest.fixture
def no_trial(monkeypatch: Any) -> None:
    monkeypatch.setattr(get_settings(), "trial_days", 0)


def test_doctor_without_subscription_is_refused_until_subscribed(client: Any, no_trial: None) -> None:
    body = doctor_payload(specialty="Radiotherapist")
    token = signup(client, body)["token"]
    r = client.post("/api/summarize", json={"transcript": "Patient stable."}, headers=auth(token))
    assert r.status_code == 403
    assert r.json()["message"] == NEEDS_SUBSCRIPTION
    r = client.post("/api/radiotherapy-chat/messages", json={"message": "Hi"}, headers=auth(token))
    assert r.status_code == 403
    assert r.json()["message"] == NEEDS_SUBSCRIPTION

    subscribe(body["email"], "doctor-professional")  # its plan includes the plan review chat
    # Now past the gate: each request reaches its own validation, the next step after the gate.
    r = client.post("/api/summarize", json={"transcript": ""}, headers=auth(token))
    assert (r.status_code, r.json()["message"]) == (422, NO_CONVERSATION)
    r = client.post("/api/radiotherapy-chat/messages", json={"message": " "}, headers=auth(token))
    assert (r.status_code, r.json()["message"]) == (422, EMPTY_MESSAGE)


def test_only_doctors_use_the_assistant(client: Any) -> None:
    hospital = signup(client, hospital_payload())
    for path, body in (
        ("/api/summarize", {"transcript": "x"}),
        ("/api/radiotherapy-chat/messages", {"message": "x"}),
    ):
        r = client.post(path, json=body, headers=auth(hospital["token"]))
        assert (r.status_code, r.json()["message"]) == (403, NO_PERMISSION)


def test_radiotherapy_chat_is_for_radiotherapists_only(client: Any, no_trial: None) -> None:
    body = doctor_payload(specialty="Cardiologist")
    token = signup(client, body)["token"]
    subscribe(body["email"], "doctor-basic")
    r = client.post("/api/radiotherapy-chat/messages", json={"message": "Hi"}, headers=auth(token))
    assert (r.status_code, r.json()["message"]) == (403, CHAT_ONLY_RADIOTHERAPISTS)
    # The other assistant features are open to every subscribed specialty.
    r = client.post("/api/summarize", json={"transcript": ""}, headers=auth(token))
    assert (r.status_code, r.json()["message"]) == (422, NO_CONVERSATION)


def test_hospital_doctor_needs_the_hospital_subscription(client: Any, no_trial: None) -> None:
    hospital = signup(client, hospital_payload())
    doctor = add_staff(client, doctor_payload(isHospitalCreated=True), hospital["token"])
    r = client.post("/api/summarize", json={"transcript": "x"}, headers=auth(doctor["token"]))
    assert r.status_code == 403
    assert r.json()["message"] == NEEDS_SUBSCRIPTION


def test_live_socket_refuses_an_unsubscribed_doctor(live_server: str, client: Any, no_trial: None) -> None:
    from tests.cara.live.conftest import Browser

    token = signup(client, doctor_payload())["token"]
    browser = Browser(f"{live_server}?specialty=radiologist", token)
    try:
        status = browser.recv()
        while status.get("state") not in ("error", "connected"):
            status = browser.recv()
        assert status["state"] == "error"
        assert status["code"] == "forbidden"
        assert status["message"] == NEEDS_SUBSCRIPTION
    finally:
        browser.close()
