"""Plan features are enforced on the server: report drafts, the radiotherapy plan review chat and
camera and screen sharing only on the plans that list them (403 naming the plan; a live socket
says so once and drops the frames); a sign-up trial tries everything; a hospital-created doctor
has what the hospital's plan includes."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from cara.config import get_settings
from cara.live.permission import not_in_plan
from cara.plans.catalog import CAMERA_AND_SCREEN, PLAN_REVIEW_CHAT, REPORT_DRAFTS, entitlements_of
from cara.summaries.service import NO_CONVERSATION
from cara_doubles.gemini import GeminiDouble
from tests.cara.admin_console.seed import subscribe
from tests.cara.live.conftest import Browser
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup

REPORT = {"transcript": "", "kind": "report"}
SUMMARY = {"transcript": "", "kind": "summary"}
CHAT = {"message": " "}


@pytest.fixture
def no_trial(monkeypatch: Any) -> None:
    monkeypatch.setattr(get_settings(), "trial_days", 0)


def _doctor(
    client: Any, plan: str | None, specialty: str = "Radiotherapist", **status: str
) -> dict[str, str]:
    body = doctor_payload(specialty=specialty)
    token = signup(client, body)["token"]
    if plan is not None:
        subscribe(body["email"], plan, **status)
    return auth(token)


def _answer(client: Any, path: str, body: dict[str, str], headers: dict[str, str]) -> tuple[int, str]:
    r = client.post(path, json=body, headers=headers)
    return r.status_code, r.json()["message"]


def test_the_catalog_names_what_each_plan_includes() -> None:
    assert entitlements_of("doctor-basic") == frozenset()
    assert entitlements_of("doctor-professional") == {REPORT_DRAFTS, PLAN_REVIEW_CHAT, CAMERA_AND_SCREEN}
    assert entitlements_of("hospital-bronze") == {CAMERA_AND_SCREEN}
    assert {REPORT_DRAFTS, PLAN_REVIEW_CHAT} <= entitlements_of("hospital-silver")


def test_basic_has_summaries_but_not_report_drafts_nor_the_chat(client: Any, no_trial: None) -> None:
    basic = _doctor(client, "doctor-basic")
    assert _answer(client, "/api/summarize", SUMMARY, basic) == (422, NO_CONVERSATION)
    assert _answer(client, "/api/summarize", REPORT, basic) == (403, not_in_plan(REPORT_DRAFTS, "Basic"))
    assert "Basic plan" in not_in_plan(REPORT_DRAFTS, "Basic")
    chat = _answer(client, "/api/radiotherapy-chat/messages", CHAT, basic)
    assert chat == (403, not_in_plan(PLAN_REVIEW_CHAT, "Basic"))


def test_professional_and_a_signup_trial_have_them(client: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(get_settings(), "trial_days", 0)
    professional = _doctor(client, "doctor-professional")
    monkeypatch.setattr(get_settings(), "trial_days", 14)
    on_trial = _doctor(client, None)
    for headers in (professional, on_trial):
        assert _answer(client, "/api/summarize", REPORT, headers)[0] == 422
        assert _answer(client, "/api/radiotherapy-chat/messages", CHAT, headers)[0] == 422


def test_a_hospital_doctor_has_the_hospitals_plan(client: Any, no_trial: None) -> None:
    for plan, name, report in (("hospital-bronze", "Bronze", 403), ("hospital-silver", "Silver", 422)):
        hospital = hospital_payload()
        created = signup(client, hospital)
        subscribe(hospital["email"], plan)
        staff = add_staff(
            client, doctor_payload(specialty="Cardiologist", isHospitalCreated=True), created["token"]
        )
        status, message = _answer(client, "/api/summarize", REPORT, auth(staff["token"]))
        assert status == report
        if report == 403:
            assert message == not_in_plan(REPORT_DRAFTS, name)
        assert _answer(client, "/api/summarize", SUMMARY, auth(staff["token"]))[0] == 422


def test_basic_live_consoles_take_no_camera_frames(
    client: Any, gemini: GeminiDouble, open_console: Any, no_trial: None
) -> None:
    basic = _doctor(client, "doctor-basic", specialty="Radiologist")
    browser: Browser = open_console(basic["Authorization"].removeprefix("Bearer "))
    browser.status("connected")
    jpeg = b"\xff\xd8\xff\xe0" + bytes(100)
    frame = {"type": "video", "data": base64.b64encode(jpeg).decode()}
    browser.send(frame)
    browser.send(frame)
    browser.send({"type": "text", "text": "What do you see?"})
    refused = browser.until(lambda m: m.get("type") == "error")
    assert "Camera and screen sharing are not part of your plan" in refused["message"]
    assert refused["code"] == "camera_not_in_plan"  # the console stops the camera on it
    session = gemini.session(0)
    session.wait_for(lambda m: m.get("realtimeInput", {}).get("text") == "What do you see?")
    assert not any("video" in m.get("realtimeInput", {}) for m in session.received)
    # Said once, not for every frame.
    assert len([m for m in browser.seen if m.get("type") == "error"]) == 1
