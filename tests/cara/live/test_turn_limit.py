"""Typed turns in a live consultation are limited per doctor and minute: each one has the model
answer. One past the limit gets an error frame, is not sent upstream and not stored; the
consultation goes on."""

from __future__ import annotations

import time
from typing import Any

import pytest

from cara.config import get_settings
from cara_doubles.gemini import GeminiDouble
from tests.cara.live.conftest import doctor_token
from tests.cara.live.test_relay import Open, connect, stored


@pytest.fixture
def two_turns_a_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(get_settings(), "rate_limit_live_turns", "2 per minute")


def test_typed_turns_past_the_limit_are_refused(
    client: Any, gemini: GeminiDouble, open_console: Open, two_turns_a_minute: None
) -> None:
    browser, consultation = connect(open_console, doctor_token(client, "Cardiologist"))
    for n in range(5):
        browser.send({"type": "text", "text": f"Question {n}"})
    errors: list[Any] = []
    browser.until(lambda m: m.get("type") == "error" and len(errors.append(m) or errors) == 3)
    refused = errors[0]
    assert all(e["message"] == refused["message"] for e in errors)
    assert refused["message"].startswith("You are sending messages faster than Cara can answer")
    session = gemini.session(0)
    sent = [
        session.wait_for(lambda m, n=n: m.get("realtimeInput", {}).get("text") == f"Question {n}")
        for n in range(2)
    ]
    assert len(sent) == 2
    time.sleep(0.5)  # what would have followed had the limit let more through
    typed = [m["realtimeInput"]["text"] for m in session.received if "text" in m.get("realtimeInput", {})]
    assert typed == ["Question 0", "Question 1"]
    assert [line[2] for line in stored("independent", consultation, 2)] == ["Question 0", "Question 1"]
    # The socket stays open: the consultation goes on.
    browser.send({"type": "audioStreamEnd"})
    session.wait_for(lambda m: m.get("realtimeInput", {}).get("audioStreamEnd") is True)
