"""What the server tells Gemini for each console: it builds the setup, the browser cannot."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cara.config import get_settings
from cara_doubles.gemini import GeminiDouble
from tests.cara.live.conftest import Browser, doctor_token

CONSOLES = [
    # console, doctor specialty, voice, words of its role, obeys 'Go to sleep', dose tool
    ("radiologist", "Radiologist", "Zephyr", "draft radiology reports", False, False),
    ("radiotherapist", "Radiotherapist", "Zephyr", "dose-constraint guidance", False, True),
    ("cardiologist", "Cardiologist", "Aoede", "cardiologist. Review cases and results", True, False),
    (
        "general-practitioner",
        "General Practitioner",
        "Leda",
        "primary care. Review cases and results",
        True,
        False,
    ),
    ("nurse", "Nurse", "Kore", "You support a nurse", False, False),
]


def instruction(setup: dict[str, Any]) -> str:
    return " ".join(part["text"] for part in setup["systemInstruction"]["parts"])


@pytest.mark.parametrize(("console", "specialty", "voice", "role", "sleeps", "dose_tool"), CONSOLES)
def test_setup_per_specialty(
    client: Any,
    gemini: GeminiDouble,
    open_console: Callable[..., Browser],
    monkeypatch: Any,
    console: str,
    specialty: str,
    voice: str,
    role: str,
    sleeps: bool,
    dose_tool: bool,
) -> None:
    monkeypatch.setattr(get_settings(), "ai_lab_name", "Korle Bu AI Lab")
    browser = open_console(doctor_token(client, specialty))  # no console named: the doctor's own
    connected = browser.status("connected")
    assert connected["console"] == console and connected["voice"] == voice

    setup = gemini.session(0).setup
    assert setup["model"] == f"models/{get_settings().gemini_live_model}"
    generation = setup["generationConfig"]
    assert generation["responseModalities"] == ["AUDIO"]
    assert generation["speechConfig"]["voiceConfig"]["prebuiltVoiceConfig"]["voiceName"] == voice
    text = instruction(setup)
    assert "developed by Korle Bu AI Lab" in text
    assert role in text
    assert "Hey Cara" in text
    assert ("Go to sleep" in text) is sleeps
    assert "Africa and the Caribbean" in text
    assert setup["inputAudioTranscription"] == {} and setup["outputAudioTranscription"] == {}
    compression = setup["contextWindowCompression"]
    assert compression["triggerTokens"] > compression["slidingWindow"]["targetTokens"] > 0
    assert "sessionResumption" in setup and "handle" not in setup["sessionResumption"]
    tools = setup["tools"]
    assert {"googleSearch": {}} in tools
    functions = [d["name"] for t in tools for d in t.get("functionDeclarations", [])]
    assert functions == (["check_dose_constraint"] if dose_tool else [])


def test_the_browser_picks_a_console_but_not_its_content(
    client: Any, gemini: GeminiDouble, open_console: Callable[..., Browser]
) -> None:
    browser = open_console(doctor_token(client, "Cardiologist"), console="General Practitioner")
    assert browser.status("connected")["console"] == "general-practitioner"
    setup = gemini.session(0).setup
    assert (
        setup["generationConfig"]["speechConfig"]["voiceConfig"]["prebuiltVoiceConfig"]["voiceName"] == "Leda"
    )


def test_generic_console_needs_no_wake_phrase(
    client: Any, gemini: GeminiDouble, open_console: Callable[..., Browser]
) -> None:
    browser = open_console(doctor_token(client, "Nurse"), console="generic")
    connected = browser.status("connected")
    assert connected["awake"] is True and connected["wakePhraseRequired"] is False
    assert "Hey Cara" not in instruction(gemini.session(0).setup)


def test_unknown_console_is_refused(
    client: Any, gemini: GeminiDouble, open_console: Callable[..., Browser]
) -> None:
    browser = open_console(doctor_token(client), console="dermatologist")
    error = browser.status("error")
    assert error["code"] == "not_found" and error["message"] == "Unknown assistant console."
    assert browser.closed()[0] == 4404
    assert gemini.sessions == []
