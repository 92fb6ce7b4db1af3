"""GET /api/live/status: what a console shows before connecting."""

from __future__ import annotations

from typing import Any

from cara.config import get_settings
from cara_doubles.gemini import GeminiDouble
from tests.factories import auth, doctor_payload, signup


def test_configured_and_demo(client: Any, gemini: GeminiDouble, monkeypatch: Any) -> None:
    headers = auth(signup(client, doctor_payload())["token"])
    body = client.get("/api/live/status", headers=headers).json()
    assert body["configured"] is True and body["demo"] is False and body["message"] is None
    assert "general-practitioner" in body["consoles"] and "generic" in body["consoles"]
    monkeypatch.setattr(get_settings(), "cara_demo_ai", True)
    assert client.get("/api/live/status", headers=headers).json()["demo"] is True


def test_not_configured(client: Any, no_ai: None) -> None:
    headers = auth(signup(client, doctor_payload())["token"])
    body = client.get("/api/live/status", headers=headers).json()
    assert body["configured"] is False
    assert body["message"] == "The AI service is not configured. Please contact your administrator."
    assert client.get("/api/live/status").status_code == 401
