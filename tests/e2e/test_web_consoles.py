"""The live assistant consoles and the radiotherapy chat in Chromium, end to end.

What runs:

* the project's Gemini double (cara_doubles.gemini), a TLS server in this
  process speaking the real Live and generateContent wire protocols;
* the API (uvicorn subprocess, like tests/e2e/conftest.py `live_server`)
  configured for the double exactly as an operator would (GEMINI_API_KEY,
  GEMINI_BASE_URL, GEMINI_CA_FILE), plus a second API server without a key,
  for the 'not configured' screen;
* a real Dramatiq worker in this process (`worker`), which answers
  POST /api/summarize by calling the double;
* Chromium with fake media devices (a fake microphone and camera, and
  permission prompts accepted), driven by tests/e2e/web/consoles.test.mjs.

The browser script scripts the double through a small HTTP control server
started here (refuse the next setup, send transcripts and audio as the
service would, read what the double received). After the script, this
runner checks on the double itself that the microphone's audio arrived as
16 kHz PCM in whole 2048-sample chunks.
"""

from __future__ import annotations

import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from cara.config import get_settings
from cara_doubles.gemini import GeminiDouble, GenerateRequest, LiveSession, pcm_tone
from tests.cara.admin_console.seed import subscribe
from tests.e2e.conftest import ARTIFACTS, REPO, run_browser_script
from tests.e2e.mailbox import mail_into
from tests.factories import doctor_payload, signup

SCRIPT = REPO / "tests" / "e2e" / "web" / "consoles.test.mjs"
# Chromium's fake devices, and their permission prompts answered yes.
MEDIA_ARGS = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _api_server(log_path: Path, env: dict[str, str]) -> Iterator[str]:
    """`live_server` of tests/e2e/conftest.py with extra environment (the AI settings)."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cara.serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            env={**os.environ, "PUBLIC_BASE_URL": base, **env},
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=REPO,
        )
        try:
            deadline = time.time() + 60
            while True:
                try:
                    if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError("API server did not start:\n" + log_path.read_text())
                time.sleep(0.2)
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture
def gemini() -> Iterator[GeminiDouble]:
    double = GeminiDouble().start()
    try:
        yield double
    finally:
        double.stop()


@pytest.fixture
def ai_settings(gemini: GeminiDouble, monkeypatch: Any) -> None:
    """This process's settings (the in-process worker's) pointed at the double."""
    settings = get_settings()
    monkeypatch.setattr(settings, "gemini_api_key", gemini.api_key)
    monkeypatch.setattr(settings, "gemini_base_url", gemini.base_url)
    monkeypatch.setattr(settings, "gemini_ca_file", gemini.ca_file)


@pytest.fixture
def ai_server(tmp_path: Path, gemini: GeminiDouble) -> Iterator[str]:
    """The API using the double; the demo flag on, so the consoles show their demo badge."""
    env = {
        **gemini.settings(),
        "CARA_DEMO_AI": "true",
        # Short enough for the timeout case to run in seconds; the worker answers in milliseconds.
        "SUMMARY_TIMEOUT_SECONDS": "6",
        "LIVE_RECONNECT_BACKOFF_SECONDS": "0.05",
        # A doctor signing up in the page starts on the trial, as in production: the sign-up
        # lands on their console (the phone case).
        "TRIAL_DAYS": "14",
    }
    with _api_server(tmp_path / "ai-server.log", env) as base:
        yield base


@pytest.fixture
def plain_server(tmp_path: Path) -> Iterator[str]:
    """The API without a provider key: the consoles must say the AI service is not configured."""
    with _api_server(tmp_path / "plain-server.log", {"GEMINI_API_KEY": "", "CARA_DEMO_AI": "false"}) as base:
        yield base


# ------------------------------------------------------------------ the double's control server


def _session_info(session: LiveSession) -> dict[str, Any]:
    received = list(session.received)
    realtime = [m["realtimeInput"] for m in received if isinstance(m.get("realtimeInput"), dict)]
    voice = (
        ((session.setup.get("generationConfig") or {}).get("speechConfig") or {}).get("voiceConfig") or {}
    ).get("prebuiltVoiceConfig") or {}
    return {
        "index": session.index,
        "audioChunks": session.audio_chunks,
        "audioBytes": len(session.audio),
        "videoFrames": sum(1 for r in realtime if r.get("video")),
        "texts": [str(r["text"]) for r in realtime if r.get("text")],
        "voice": voice.get("voiceName"),
        "closed": session.closed.is_set(),
    }


class DoubleControl:
    """HTTP endpoints through which the browser script scripts the double (JSON in and out)."""

    def __init__(self, double: GeminiDouble) -> None:
        self.double = double
        # What earlier cases made the double see (reset clears it), for the checks after the script.
        self.archived: list[LiveSession] = []
        self.archived_generate: list[GenerateRequest] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, name="double-control", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def all_sessions(self) -> list[LiveSession]:
        return [*self.archived, *self.double.sessions]

    def all_generate_requests(self) -> list[GenerateRequest]:
        return [*self.archived_generate, *self.double.generate_requests]

    def handle(self, method: str, path: str, body: dict[str, Any]) -> Any:
        double = self.double
        if method == "POST" and path == "/reset":
            self.archived.extend(double.sessions)
            self.archived_generate.extend(double.generate_requests)
            double.reset()
            return {}
        if method == "POST" and path == "/refuse-next-setup":
            double.refuse_next_setup(int(body.get("code", 1008)), str(body["reason"]))
            return {}
        if method == "POST" and path == "/generate-error":
            double.fail_next_generate(int(body["status"]), str(body["code"]), str(body["message"]))
            return {}
        if method == "POST" and path == "/generate-delay":
            double.generate_delay_seconds = float(body["seconds"])
            return {}
        if method == "GET" and path == "/sessions":
            return [_session_info(s) for s in list(double.sessions)]
        if method == "GET" and path == "/generate-requests":
            return [{"model": r.model, "text": r.text} for r in list(double.generate_requests)]
        match = re.fullmatch(r"/sessions/(\d+)/(send|audio)", path)
        if method == "POST" and match:
            session = double.session(int(match.group(1)))
            if match.group(2) == "send":
                session.send(body["message"])
            else:
                pcm = pcm_tone(float(body.get("seconds", 0.5)), frequency=float(body.get("frequency", 440)))
                step = 9_600  # 0.2 s chunks, as the service streams a reply
                for start in range(0, len(pcm), step):
                    session.send_audio(pcm[start : start + step])
            return {}
        raise KeyError(path)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        control = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self, method: str) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    result = control.handle(method, self.path, json.loads(raw or b"{}"))
                    status, payload = 200, result
                except KeyError as exc:
                    status, payload = 404, {"error": f"unknown: {exc}"}
                except Exception as exc:  # reported to the script, which fails with it
                    status, payload = 500, {"error": f"{type(exc).__name__}: {exc}"}
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._serve("GET")

            def do_POST(self) -> None:
                self._serve("POST")

            def log_message(self, format: str, *args: Any) -> None:
                return

        return Handler

    def __enter__(self) -> DoubleControl:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def control(gemini: GeminiDouble) -> Iterator[DoubleControl]:
    with DoubleControl(gemini) as running:
        yield running


@pytest.fixture
def accounts(client: Any) -> dict[str, Any]:
    radiologist = doctor_payload(specialty="Radiologist", name="Ama Mensah")
    signup(client, radiologist)
    subscribe(radiologist["email"], "doctor-professional")  # report drafts, camera and screen
    radiotherapist = doctor_payload(specialty="Radiotherapist", name="Kwame Boateng")
    signup(client, radiotherapist)
    subscribe(radiotherapist["email"], "doctor-professional", status="trialing")

    def login(body: dict[str, Any]) -> dict[str, str]:
        return {"email": body["email"], "password": body["password"], "name": body["name"]}

    basic = doctor_payload(specialty="General Practitioner", name="Efua Owusu")
    signup(client, basic)
    subscribe(basic["email"], "doctor-basic")  # summaries only: no camera or screen sharing

    return {"radiologist": login(radiologist), "radiotherapist": login(radiotherapist), "basic": login(basic)}


def _pcm_rms(pcm: bytes) -> float:
    samples = struct.unpack(f"<{len(pcm) // 2}h", pcm[: len(pcm) // 2 * 2])
    return float((sum(s * s for s in samples) / max(1, len(samples))) ** 0.5)


@pytest.fixture
def mailbox(tmp_path: Path, ai_server: str, worker: Any) -> Iterator[Path]:
    """The sign-up link a doctor registering in the page follows (sent by this process's worker)."""
    with mail_into(tmp_path / "mailbox", ai_server) as folder:
        yield folder


def test_web_consoles(
    ai_server: str,
    plain_server: str,
    ai_settings: None,
    worker: Any,
    mailbox: Path,
    control: DoubleControl,
    accounts: dict[str, Any],
) -> None:
    if not (REPO / "web" / "dist" / "index.html").exists():
        pytest.fail("web is not built: run `npm run build` in web/ (./ops/test does it first)")
    artifacts = ARTIFACTS / "web"
    artifacts.mkdir(parents=True, exist_ok=True)
    result = run_browser_script(
        SCRIPT,
        {
            "BASE_URL": ai_server,
            "PLAIN_BASE_URL": plain_server,
            "CONTROL_URL": control.url,
            "CHROMIUM_ARGS": json.dumps(MEDIA_ARGS),
            "ARTIFACTS_DIR": str(artifacts),
            "MAILBOX_DIR": str(mailbox),
            "FIXTURES": json.dumps(accounts),
        },
        timeout=420,
    )
    assert result.returncode == 0, result.stdout[-10000:] + result.stderr[-3000:]

    # The microphone's audio, as the double (the fake Gemini) received it through the relay.
    sessions = control.all_sessions()
    radiology = [s for s in sessions if _voice(s) == "Zephyr" and s.audio_chunks]
    assert radiology, f"no Live session received microphone audio: {[_session_info(s) for s in sessions]}"
    first = radiology[0]
    chunks = [
        m["realtimeInput"]["audio"]
        for m in first.received
        if isinstance(m.get("realtimeInput"), dict) and m["realtimeInput"].get("audio")
    ]
    assert len(chunks) >= 8, f"only {len(chunks)} audio chunks reached the double"
    assert {c.get("mimeType") for c in chunks} == {"audio/pcm;rate=16000"}
    # Chromium encodes Opus (WebCodecs) and the relay decodes it to 16 kHz PCM: whole 16-bit samples
    # (where Opus is missing, the page's own PCM goes up in whole 2048-sample chunks).
    assert len(first.audio) % 2 == 0, len(first.audio)
    # Chromium's fake microphone beeps: the stream is not silence.
    assert _pcm_rms(bytes(first.audio)) > 10, "the microphone audio is silent"
    # The summaries went through the worker to generateContent, with the consultation in them.
    asked = [r.text for r in control.all_generate_requests()]
    assert any("chest X-ray" in text for text in asked), asked
    # The summary and report draft made during the visit are kept on its consultation (the
    # console sends its consultation's id), where the consultation page shows them.
    assert _kept_drafts(accounts["radiologist"]["email"]) >= {"summary", "report"}


def _kept_drafts(email: str) -> set[str]:
    from sqlalchemy import select

    from cara.kit.db import session_scope, tenant_session
    from cara.models import Account, Consultation, ConsultationDraft
    from tenants.naming import INDEPENDENT_SCHEMA

    with session_scope() as s:
        account_id = s.scalar(select(Account.id).where(Account.email == email))
    with tenant_session(INDEPENDENT_SCHEMA) as s:
        return set(
            s.scalars(
                select(ConsultationDraft.kind)
                .join(Consultation, Consultation.id == ConsultationDraft.consultation_id)
                .where(Consultation.doctor_account_id == account_id)
            )
        )


def _voice(session: LiveSession) -> str | None:
    config = (session.setup.get("generationConfig") or {}).get("speechConfig") or {}
    value = ((config.get("voiceConfig") or {}).get("prebuiltVoiceConfig") or {}).get("voiceName")
    return str(value) if value else None
