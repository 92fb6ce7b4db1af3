"""The Gemini double as a scripted demo peer: `python -m cara_doubles.gemini` and `./ops/dev --demo-ai`."""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cara.config import get_settings
from cara.kit import gemini as gemini_clients
from cara_doubles.gemini import DemoPeer, GeminiDouble
from tests.cara.live.conftest import Browser, doctor_token
from tests.cara.recordings.conftest import silence_pcm, speech_pcm

REPO = Path(__file__).resolve().parents[3]


def test_demo_peer_hears_what_is_said_through_the_relay(
    client: Any, gemini: GeminiDouble, open_console: Callable[..., Browser]
) -> None:
    """The input transcription is the server's own speech recognition of the audio sent: the
    console wakes on "Hey Cara" as spoken, and the doctor's line holds the dictated words."""
    gemini.behaviour = DemoPeer()
    browser = open_console(doctor_token(client, "Cardiologist"))
    browser.status("connected")
    said = speech_pcm("Hey Cara. The patient has pulmonary tuberculosis.") + silence_pcm(1.0)
    for start in range(0, len(said), 3_200):  # 100 ms chunks, as the console sends them
        browser.send({"type": "audio", "data": base64.b64encode(said[start : start + 3_200]).decode()})
    browser.until(lambda m: m.get("type") == "wake" and m["awake"] is True, timeout=30)
    heard = browser.until(
        lambda m: m.get("type") == "transcript" and m["final"] and m["speaker"] == "user", timeout=30
    )
    assert "tuberculosis" in heard["text"].lower(), heard
    replied = lambda m: m.get("type") == "transcript" and m["final"] and m["speaker"] != "user"  # noqa: E731
    line = next((m for m in browser.seen if replied(m)), None) or browser.until(replied)
    assert "No AI model is connected" in line["text"]
    audio = [m for m in browser.seen if m.get("type") == "audio"]
    assert audio and len(base64.b64decode(audio[0]["data"])) > 0
    # ... and sleeps on "Go to sleep" as spoken (the cardiology console obeys it).
    said = speech_pcm("Go to sleep.") + silence_pcm(1.0)
    for start in range(0, len(said), 3_200):
        browser.send({"type": "audio", "data": base64.b64encode(said[start : start + 3_200]).decode()})
    browser.until(lambda m: m.get("type") == "wake" and m["awake"] is False, timeout=30)


def test_demo_peer_hears_nothing_in_silence(
    client: Any, gemini: GeminiDouble, open_console: Callable[..., Browser]
) -> None:
    gemini.behaviour = DemoPeer()
    browser = open_console(doctor_token(client, "Radiologist"))
    browser.status("connected")
    quiet = base64.b64encode(b"\x00\x01" * 16_000).decode()  # one second of (almost) silence
    for _ in range(3):
        browser.send({"type": "audio", "data": quiet})
    with pytest.raises(TimeoutError):
        browser.until(lambda m: m.get("type") in ("wake", "transcript", "audio"), timeout=3.0)


def test_demo_peer_calls_the_dose_tool_when_asked(
    client: Any, gemini: GeminiDouble, open_console: Callable[..., Browser]
) -> None:
    gemini.behaviour = DemoPeer()
    browser = open_console(doctor_token(client, "Radiotherapist"))
    browser.status("connected")
    browser.send({"type": "text", "text": "Check the cord dose please"})
    result = browser.until(lambda m: m.get("type") == "toolResult")
    assert result["result"]["eqd2Gy"] == 36.0
    browser.until(lambda m: m.get("type") == "transcript" and "tool's answer" in m.get("text", ""))


def test_command_line_peer(tmp_path: Path, monkeypatch: Any) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "cara_doubles.gemini", "--port", "0", "--tls-dir", str(tmp_path)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        settings: dict[str, str] = {}
        for line in process.stdout:
            if "=" in line:
                key, _, value = line.strip().partition("=")
                settings[key] = value
            if len(settings) == 3:
                break
        assert settings["GEMINI_CA_FILE"] == str(tmp_path / "ca.pem")
        cara = get_settings()
        monkeypatch.setattr(cara, "gemini_api_key", settings["GEMINI_API_KEY"])
        monkeypatch.setattr(cara, "gemini_base_url", settings["GEMINI_BASE_URL"])
        monkeypatch.setattr(cara, "gemini_ca_file", settings["GEMINI_CA_FILE"])

        async def exchange() -> str:
            client = gemini_clients.client()
            contents = "Clinician: hello\nCara: hi"
            reply = await client.aio.models.generate_content(model="any", contents=contents)
            await client.aio.aclose()
            return reply.text or ""

        assert asyncio.run(exchange()).startswith("Demo summary (no AI model is connected)")
    finally:
        process.terminate()
        process.wait(10)


def test_ops_dev_demo_ai_points_the_stack_at_the_demo_peer(tmp_path: Path, monkeypatch: Any) -> None:
    from cara_devstack import __main__ as devstack

    monkeypatch.setattr(devstack, "DATA_DIR", tmp_path)
    env = {"GEMINI_API_KEY": "a-real-key"}
    command = devstack._demo_ai(env)
    assert env["GEMINI_API_KEY"] != "a-real-key"  # --demo-ai means the demo peer, even with a key set
    assert env["GEMINI_BASE_URL"].startswith("https://127.0.0.1:")
    assert Path(env["GEMINI_CA_FILE"]) == tmp_path / "gemini-double" / "ca.pem"
    assert (tmp_path / "gemini-double" / "server.pem").exists()
    port = env["GEMINI_BASE_URL"].rsplit(":", 1)[1]
    assert command == [
        "cara_doubles.gemini", "--port", port, "--tls-dir", str(tmp_path / "gemini-double"), "--reuse-tls"
    ]  # fmt: skip


def test_ops_dev_uses_the_demo_ai_without_a_provider_key() -> None:
    from cara_devstack.__main__ import wants_demo_ai

    assert wants_demo_ai(False, {}) is True
    assert wants_demo_ai(False, {"GEMINI_API_KEY": " "}) is True
    assert wants_demo_ai(False, {"GEMINI_API_KEY": "a-real-key"}) is False
    assert wants_demo_ai(True, {"GEMINI_API_KEY": "a-real-key"}) is True
