"""Fixtures for the AI assistant: the project's Gemini double, and Cara pointed at it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from cara.config import get_settings
from cara_doubles.gemini import GeminiDouble


@pytest.fixture(scope="session")
def gemini_server() -> Iterator[GeminiDouble]:
    """One TLS double for the run (its own thread and throwaway CA)."""
    double = GeminiDouble().start()
    try:
        yield double
    finally:
        double.stop()


@pytest.fixture
def gemini(gemini_server: GeminiDouble, monkeypatch: Any) -> GeminiDouble:
    """Cara configured for the double, as an operator would: key, base URL, CA file."""
    gemini_server.reset()
    settings = get_settings()
    monkeypatch.setattr(settings, "gemini_api_key", gemini_server.api_key)
    monkeypatch.setattr(settings, "gemini_base_url", gemini_server.base_url)
    monkeypatch.setattr(settings, "gemini_ca_file", gemini_server.ca_file)
    monkeypatch.setattr(settings, "live_reconnect_backoff_seconds", 0.05)
    return gemini_server


@pytest.fixture
def no_ai(monkeypatch: Any) -> None:
    """No provider key at all."""
    monkeypatch.setattr(get_settings(), "gemini_api_key", None)


@pytest.fixture
def doctors_on_trial(monkeypatch: Any) -> None:
    """New independent doctors start on a free trial, so the assistant lets them in."""
    from cara.config import get_settings

    monkeypatch.setattr(get_settings(), "trial_days", 14)
