"""A test double of Gemini's wire protocol: Live (BidiGenerateContent) and generateContent.

This is not Gemini. It is a real TLS server on 127.0.0.1 that speaks the same
protocol as the provider, so the relay, the summary worker and the chat use
the official google-genai SDK against it exactly as in production; only
`GEMINI_BASE_URL` (and `GEMINI_CA_FILE`, the double's throwaway CA) differ.
The SDK always switches the Live URL to `wss://`, hence TLS.

What it speaks (see ../shared/design/live-protocol.md):

* WebSocket `/ws/google.ai.generativelanguage.<version>.GenerativeService.BidiGenerateContent`:
  checks the `x-goog-api-key` header, expects `setup` first and then messages
  holding exactly one of `clientContent`, `realtimeInput`, `toolResponse`
  (snake_case or camelCase, as protobuf JSON allows), answers `setupComplete`,
  and sends JSON in binary frames: `serverContent` (modelTurn audio as
  `audio/pcm;rate=24000` inlineData, inputTranscription, outputTranscription,
  interrupted, turnComplete), `toolCall`, `goAway`, `sessionResumptionUpdate`.
  Protocol mistakes are answered like the service does: a close frame with
  code 1007 and a reason.
  The demo peer (`DemoPeer`) hears the microphone audio with the server's own speech
  recognition (`Ears`, cara.recordings.speech) and answers each utterance.
* HTTP `POST /<version>/models/<model>:generateContent`. A request with inline audio (a recording
  to transcribe) is answered by `transcribe`: by default a fixed script, one line per 5 s of audio
  (`default_transcribe`), not speech recognition.

Tests script it: `GeminiDouble().start()`, then `double.session(0)` gives the
upstream connection the relay opened, whose `setup` and received messages can
be inspected and through which server messages are sent (`send_audio`,
`send_output_transcription`, `send_go_away`, `drop`, ...). A behaviour object
(`LiveBehaviour`) can react by itself; `DemoPeer` is the scripted peer behind
`python -m cara_doubles.gemini` and `./ops/dev --demo-ai`.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import itertools
import json
import math
import re
import struct
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trustme
import uvicorn
from starlette.types import Receive, Scope, Send

DEFAULT_API_KEY = "gemini-double-key"
INVALID_KEY = "API key not valid. Please pass a valid API key."
LIVE_PATH = re.compile(r"/ws/google\.ai\.generativelanguage\.(v\w+)\.GenerativeService\.BidiGenerateContent$")
GENERATE_PATH = re.compile(r"/(v\w+)/models/([^/:]+):generateContent$")
CLIENT_MESSAGE_KINDS = ("setup", "clientContent", "realtimeInput", "toolResponse")
# Keys whose values are free JSON (function arguments and results): left as sent.
_OPAQUE_KEYS = {"args", "response"}

Json = dict[str, Any]


# ------------------------------------------------------------------ TLS


@dataclass(frozen=True)
class TlsFiles:
    ca_file: Path  # the CA to trust (GEMINI_CA_FILE)
    cert_file: Path  # server key and certificate chain


def write_tls_files(directory: Path) -> TlsFiles:
    """A fresh throwaway CA and a server certificate for 127.0.0.1 and localhost."""
    directory.mkdir(parents=True, exist_ok=True)
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    files = TlsFiles(ca_file=directory / "ca.pem", cert_file=directory / "server.pem")
    ca.cert_pem.write_to_path(str(files.ca_file))
    cert.private_key_and_cert_chain_pem.write_to_path(str(files.cert_file))
    return files


# ------------------------------------------------------------------ message helpers


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def normalise(value: Any) -> Any:
    """Keys in camelCase, as the service reads both spellings; free JSON left alone."""
    if isinstance(value, dict):
        return {
            _camel(k): (v if k in _OPAQUE_KEYS else normalise(v))
            for k, v in value.items()
            if isinstance(k, str)
        }
    if isinstance(value, list):
        return [normalise(v) for v in value]
    return value


def decode_base64(data: str) -> bytes:
    """Bytes fields in protobuf JSON: standard or URL-safe alphabet (the SDK sends the latter)."""
    return base64.b64decode(data.replace("-", "+").replace("_", "/"), validate=True)


def pcm_tone(seconds: float, *, rate: int = 24_000, frequency: float = 440.0, volume: float = 0.2) -> bytes:
    """16-bit little-endian mono PCM of a sine tone (what the demo peer 'says')."""
    count = int(seconds * rate)
    amplitude = int(32767 * volume)
    return b"".join(
        struct.pack("<h", int(amplitude * math.sin(2 * math.pi * frequency * i / rate))) for i in range(count)
    )


# ------------------------------------------------------------------ one Live connection


class LiveSession:
    """One upstream connection as the double sees it.

    The `a*` methods run on the double's event loop (for behaviours); the plain
    ones are for tests in other threads.
    """

    def __init__(self, double: GeminiDouble, index: int, headers: dict[str, str], send: Send) -> None:
        self.double = double
        self.index = index
        self.headers = headers
        self.setup: Json = {}
        self.received: list[Json] = []
        self.audio_chunks = 0
        self.audio = bytearray()
        self.closed = threading.Event()
        self.close_code: int | None = None
        self._send = send
        self._lock = threading.Condition()

    # -- what the relay sent

    @property
    def resumption_handle(self) -> str | None:
        handle = (self.setup.get("sessionResumption") or {}).get("handle")
        return str(handle) if handle else None

    def _record(self, message: Json) -> None:
        realtime = message.get("realtimeInput") or {}
        audio = realtime.get("audio") or next(iter(realtime.get("mediaChunks") or []), None)
        with self._lock:
            if audio and str(audio.get("mimeType", "")).startswith("audio/pcm"):
                self.audio_chunks += 1
                if self.double.record:
                    self.audio.extend(decode_base64(str(audio.get("data", ""))))
            if self.double.record:
                self.received.append(message)
            self._lock.notify_all()

    def wait_for(self, predicate: Callable[[Json], bool], timeout: float = 5.0) -> Json:
        """The first received message (after setup) matching `predicate`, waiting for it."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                for message in self.received:
                    if predicate(message):
                        return message
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no matching message; received kinds: {self.kinds()}")
                self._lock.wait(left)

    def wait_for_audio(self, size: int, timeout: float = 5.0) -> bytes:
        deadline = time.monotonic() + timeout
        with self._lock:
            while len(self.audio) < size:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"received {len(self.audio)} audio bytes, expected {size}")
                self._lock.wait(left)
            return bytes(self.audio)

    def kinds(self) -> list[str]:
        return [next(iter(m), "?") for m in self.received]

    # -- what the double sends (on its loop)

    async def asend(self, message: Json) -> None:
        # The service sends JSON in binary frames (spec §5: only blobs are processed).
        await self._send({"type": "websocket.send", "bytes": json.dumps(message).encode()})

    async def aclose(self, code: int = 1000, reason: str = "") -> None:
        if not self.closed.is_set():
            self.close_code = code
            await self._send({"type": "websocket.close", "code": code, "reason": reason})
            self.closed.set()

    async def adrop(self) -> None:
        """Lose the connection without a close frame, like a network failure (code 1006)."""
        protocol = getattr(self._send, "__self__", None)
        transport = getattr(protocol, "transport", None)
        self.close_code = 1006
        if transport is not None:
            transport.abort()
            self.closed.set()
        else:  # another ASGI server: the closest thing is a server error close
            await self.aclose(1011, "Internal error encountered.")

    # -- the same from tests (thread-safe)

    def send(self, message: Json) -> None:
        self.double.call(self.asend(message))

    def send_audio(self, pcm: bytes, *, rate: int = 24_000) -> None:
        self.send(server_audio(pcm, rate=rate))

    def send_input_transcription(self, text: str) -> None:
        self.send({"serverContent": {"inputTranscription": {"text": text}}})

    def send_output_transcription(self, text: str) -> None:
        self.send({"serverContent": {"outputTranscription": {"text": text}}})

    def send_turn_complete(self) -> None:
        self.send({"serverContent": {"turnComplete": True}})

    def send_interrupted(self) -> None:
        self.send({"serverContent": {"interrupted": True}})

    def send_tool_call(self, name: str, args: Json, call_id: str = "call-1") -> None:
        self.send({"toolCall": {"functionCalls": [{"id": call_id, "name": name, "args": args}]}})

    def send_resumption_update(self, handle: str, *, resumable: bool = True) -> None:
        self.send({"sessionResumptionUpdate": {"newHandle": handle, "resumable": resumable}})

    def send_go_away(self, time_left: str = "10s") -> None:
        self.send({"goAway": {"timeLeft": time_left}})

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.double.call(self.aclose(code, reason))

    def drop(self) -> None:
        self.double.call(self.adrop())


def server_audio(pcm: bytes, *, rate: int = 24_000) -> Json:
    data = base64.b64encode(pcm).decode()
    part = {"inlineData": {"mimeType": f"audio/pcm;rate={rate}", "data": data}}
    return {"serverContent": {"modelTurn": {"parts": [part]}}}


class LiveBehaviour:
    """How the double reacts by itself (the default: only the handshake)."""

    async def on_setup(self, session: LiveSession) -> None:
        return None

    async def on_message(self, session: LiveSession, message: Json) -> None:
        return None


# ------------------------------------------------------------------ generateContent


@dataclass
class GenerateRequest:
    model: str
    body: Json

    @property
    def text(self) -> str:
        """Every text part of the request (system instruction and contents)."""
        texts = [
            str(part.get("text", ""))
            for content in [self.body.get("systemInstruction") or {}, *(self.body.get("contents") or [])]
            for part in (content.get("parts") or [])
            if isinstance(part, dict)
        ]
        return "\n".join(t for t in texts if t)

    @property
    def audio(self) -> list[tuple[str, bytes]]:
        """The inline audio parts of the request: (MIME type, bytes)."""
        return [
            (
                str(part["inlineData"].get("mimeType", "")),
                decode_base64(str(part["inlineData"].get("data", ""))),
            )
            for content in self.body.get("contents") or []
            for part in content.get("parts") or []
            if isinstance(part, dict)
            and isinstance(part.get("inlineData"), dict)
            and str(part["inlineData"].get("mimeType", "")).startswith("audio/")
        ]


# What the double 'hears' in a recording: a fixed script, one line per 5 s of audio. Deterministic,
# so tests know the transcript; not speech recognition.
DOUBLE_SCRIPT = (
    ("clinician", "Good morning, what brings you in today?"),
    ("patient", "I have had a dry cough and a mild fever for two weeks."),
    ("clinician", "Any chest pain or shortness of breath?"),
    ("patient", "Only when I climb the stairs."),
    ("clinician", "I will listen to your chest and we will get a chest X-ray."),
    ("patient", "Thank you, doctor."),
)
SECONDS_PER_LINE = 5.0


def audio_seconds(data: bytes) -> float:
    """The length of encoded audio, decoded with PyAV (in the development venv)."""
    import io

    import av

    samples = rate = 0
    try:
        with av.open(io.BytesIO(data), mode="r") as container:
            for frame in container.decode(audio=0):
                samples += frame.samples
                rate = frame.sample_rate or rate
    except (av.FFmpegError, ValueError):
        return 0.0
    return samples / rate if rate else 0.0


def default_transcribe(request: GenerateRequest) -> str:
    """The double's transcript of the request's audio, as the JSON the recordings worker asks for:
    the first line says how long the audio was, then the script, a line per 5 s."""
    seconds = sum(audio_seconds(data) for _, data in request.audio)
    count = max(1, int(seconds // SECONDS_PER_LINE))
    lines: list[Json] = [
        {
            "speaker": "clinician",
            "startSeconds": 0.0,
            "text": f"[Gemini double] Recording of {round(seconds)} seconds transcribed.",
        }
    ]
    for i in range(1, count):
        speaker, text = DOUBLE_SCRIPT[(i - 1) % len(DOUBLE_SCRIPT)]
        lines.append({"speaker": speaker, "startSeconds": i * SECONDS_PER_LINE, "text": text})
    return json.dumps({"lines": lines})


# Words the double codes, so that proposed codes and their evidence show without a model: WHO
# ICD-10 codes, and one that is not a code at all (the product must drop it, never show it).
DOUBLE_CODES = (
    ("tuberculosis", "A15.0"),
    ("hypertension", "I10"),
    ("blood pressure", "I10"),
    ("diabetes", "E11.9"),
    ("asthma", "J45.9"),
    ("malaria", "B54"),
    ("pneumonia", "J18.9"),
    ("chest pain", "R07.4"),
    ("cough", "R05"),
    ("fever", "R50.9"),
    ("headache", "R51"),
)
NOT_A_CODE = "Q99.999"
_NUMBERED_LINE = re.compile(r"^\[(\d+)\]\s+([^:]+):\s*(.+)$")


def _numbered_lines(request: GenerateRequest) -> list[tuple[int, str, str]]:
    """The transcript lines the request sent with their ids: `[id] Speaker: text`."""
    found = []
    for line in request.text.splitlines():
        match = _NUMBERED_LINE.match(line.strip())
        if match:
            found.append((int(match.group(1)), match.group(2).strip(), match.group(3).strip()))
    return found


def _sentence(line: tuple[int, str, str]) -> Json:
    line_id, speaker, text = line
    return {"text": f"{speaker} said: {text}", "lineIds": [line_id]}


def draft_answer(request: GenerateRequest, schema: Json) -> str:
    """A draft in the shape asked for (`responseJsonSchema`), built from the lines sent: each
    sentence restates one line and cites its id. The lines are shared out over the sentence
    lists in the schema's order; the last line is left out on purpose when there are three or
    more, so that an omission shows. Codes come from `DOUBLE_CODES`, plus one that is not a
    code. Deterministic: the same request gives the same answer."""
    lines = [line for line in _numbered_lines(request) if line[1] != "Cara"] or _numbered_lines(request)
    used = lines[:-1] if len(lines) >= 3 else lines
    properties: Json = schema.get("properties") or {}
    answer: Json = {}
    if "sections" in properties:  # headed prose (a summary or report)
        answer["sections"] = [
            {
                "heading": f"Summary ([Gemini double], {len(lines)} lines)",
                "sentences": [_sentence(x) for x in used],
            }
        ]
        return json.dumps(answer)
    lists = [
        key
        for key, value in properties.items()
        if isinstance(value, dict) and value.get("type") == "array" and key != "codes"
    ]
    for key in lists:
        answer[key] = []
    # Fewer lines than sections: the sections the schema requires are filled first.
    required = [key for key in lists if key in (schema.get("required") or [])]
    targets = required if required and len(used) < len(lists) else lists
    for index, line in enumerate(used):
        if targets:
            answer[targets[index * len(targets) // max(1, len(used))]].append(_sentence(line))
    if "radsCategory" in properties:
        rads = [x for x in used if "bi-rads" in x[2].lower()]
        if rads:
            answer["radsCategory"] = {"system": "BI-RADS", "category": "2", "lineIds": [rads[0][0]]}
    if "codes" in properties:
        codes: list[Json] = []
        for word, code in DOUBLE_CODES:
            ids = [x[0] for x in used if word in x[2].lower()]
            if ids and all(c["code"] != code for c in codes):
                codes.append({"code": code, "lineIds": ids})
        codes.append({"code": NOT_A_CODE, "lineIds": [used[0][0]] if used else []})
        answer["codes"] = codes
    return json.dumps(answer)


def _asked_schema(request: GenerateRequest) -> Json | None:
    config = request.body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    return schema if isinstance(schema, dict) else None


def default_generate(request: GenerateRequest) -> str:
    """A deterministic answer that shows what was asked (no model behind it); JSON in the asked
    shape when the request asks for JSON (a draft of a stored consultation)."""
    schema = _asked_schema(request)
    if schema is not None:
        return draft_answer(request, schema)
    contents = request.body.get("contents") or []
    last = contents[-1] if contents else {}
    words = sum(len(str(p.get("text", "")).split()) for p in last.get("parts") or [])
    return f"[Gemini double] Answer to a request of {words} words for {request.model}."


def generate_response(text: str | Json, model: str) -> Json:
    """The answer: a text, or a whole `content` (a functionCall, say)."""
    content = text if isinstance(text, dict) else {"role": "model", "parts": [{"text": text}]}
    return {
        "candidates": [{"content": content, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": model,
    }


def error_body(code: int, status: str, message: str) -> Json:
    return {"error": {"code": code, "message": message, "status": status}}


# ------------------------------------------------------------------ the server


@dataclass
class _Refusal:
    code: int
    reason: str


@dataclass
class GeminiDouble:
    """The double's server, run on its own thread and event loop."""

    api_key: str = DEFAULT_API_KEY
    behaviour: LiveBehaviour = field(default_factory=LiveBehaviour)
    # Keep every received message and audio byte (tests); off for benchmarks.
    record: bool = True
    tls: TlsFiles | None = None
    host: str = "127.0.0.1"
    port: int = 0
    # generateContent: the answer text (or a whole `content`) for a request, and an optional delay.
    generate: Callable[[GenerateRequest], str | Json] = default_generate
    # generateContent with inline audio (a recording to transcribe): the answer text.
    transcribe: Callable[[GenerateRequest], str] = default_transcribe
    generate_delay_seconds: float = 0.0
    # Refuse resumption handles (as after their ~2 h validity) with this close.
    reject_resumption: bool = False

    def __post_init__(self) -> None:
        self.sessions: list[LiveSession] = []
        self.generate_requests: list[GenerateRequest] = []
        self._refusals: list[_Refusal] = []
        self._generate_errors: list[tuple[int, str, str]] = []
        self._lock = threading.Condition()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._counter = itertools.count()

    # -- lifecycle

    def start(self) -> GeminiDouble:
        if self.tls is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="gemini-double-")
            self.tls = write_tls_files(Path(self._tmp.name))
        config = uvicorn.Config(
            self,
            host=self.host,
            port=self.port,
            ssl_certfile=str(self.tls.cert_file),
            log_level="warning",
            lifespan="off",
            ws="websockets-sansio",
            ws_max_size=16 * 1024 * 1024,
        )
        self._server = uvicorn.Server(config)
        started = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            loop.call_soon(started.set)
            loop.run_until_complete(self._server.serve() if self._server else asyncio.sleep(0))
            loop.close()

        self._thread = threading.Thread(target=run, name="gemini-double", daemon=True)
        self._thread.start()
        started.wait(10)
        deadline = time.monotonic() + 10
        while not (self._server.started and self._server.servers):
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the Gemini double did not start")
            time.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> GeminiDouble:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return f"https://{self.host}:{self.port}"

    @property
    def ca_file(self) -> str:
        assert self.tls is not None
        return str(self.tls.ca_file)

    def settings(self) -> dict[str, str]:
        """The environment that points Cara at this double."""
        return {
            "GEMINI_API_KEY": self.api_key,
            "GEMINI_BASE_URL": self.base_url,
            "GEMINI_CA_FILE": self.ca_file,
        }

    def call(self, coroutine: Any, timeout: float = 5.0) -> Any:
        """Run a coroutine on the double's loop from another thread."""
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    # -- scripting

    def reset(self) -> None:
        with self._lock:
            self.sessions.clear()
            self.generate_requests.clear()
            self._refusals.clear()
            self._generate_errors.clear()
        self.behaviour = LiveBehaviour()
        self.generate = default_generate
        self.transcribe = default_transcribe
        self.generate_delay_seconds = 0.0
        self.reject_resumption = False

    def refuse_next_setup(self, code: int, reason: str) -> None:
        """Answer the next Live setup with a close frame (as the service does for a bad model or key)."""
        with self._lock:
            self._refusals.append(_Refusal(code, reason))

    def fail_next_generate(self, status: int, code: str, message: str) -> None:
        with self._lock:
            self._generate_errors.append((status, code, message))

    def session(self, index: int, timeout: float = 5.0) -> LiveSession:
        """The `index`-th Live connection that completed its setup, waiting for it."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while len(self.sessions) <= index:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"only {len(self.sessions)} Live sessions opened")
                self._lock.wait(left)
            return self.sessions[index]

    # -- ASGI

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._live(scope, receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)

    @staticmethod
    def _path(scope: Scope) -> str:
        # The SDK joins a base URL ending in "/" with "/ws/...": accept "//".
        return "/" + str(scope.get("path", "")).lstrip("/")

    @staticmethod
    def _headers(scope: Scope) -> dict[str, str]:
        return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}

    async def _live(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = await receive()
        if message["type"] != "websocket.connect":
            return
        if not LIVE_PATH.search(self._path(scope)):
            await send({"type": "websocket.close", "code": 1008, "reason": "Method not found."})
            return
        await send({"type": "websocket.accept"})
        headers = self._headers(scope)
        session = LiveSession(self, -1, headers, send)
        first = await self._next_json(session, receive)
        if first is None:
            return
        if headers.get("x-goog-api-key") != self.api_key:
            await session.aclose(1008, INVALID_KEY)
            return
        setup = first.get("setup")
        if not isinstance(setup, dict) or len(first) != 1:
            await session.aclose(1007, "Invalid JSON payload received. The first message must be setup.")
            return
        if not str(setup.get("model", "")).startswith("models/"):
            await session.aclose(1008, f"models/{setup.get('model')} is not found for API version v1beta.")
            return
        with self._lock:
            refusal = self._refusals.pop(0) if self._refusals else None
        session.setup = setup
        if refusal is not None:
            await session.aclose(refusal.code, refusal.reason)
            return
        if session.resumption_handle and self.reject_resumption:
            await session.aclose(1008, "Session resumption handle is invalid or has expired.")
            return
        await session.asend({"setupComplete": {}})
        with self._lock:
            session.index = len(self.sessions)
            self.sessions.append(session)
            self._lock.notify_all()
        await self.behaviour.on_setup(session)
        while not session.closed.is_set():
            incoming = await self._next_json(session, receive)
            if incoming is None:
                break
            kinds = [k for k in incoming if k in CLIENT_MESSAGE_KINDS]
            if len(kinds) != 1 or len(incoming) != 1 or kinds[0] == "setup":
                await session.aclose(1007, "Invalid JSON payload received. Unknown or repeated message kind.")
                break
            session._record(incoming)
            await self.behaviour.on_message(session, incoming)
        session.closed.set()

    async def _next_json(self, session: LiveSession, receive: Receive) -> Json | None:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            session.close_code = int(message.get("code", 1005))
            session.closed.set()
            return None
        raw = message.get("bytes") or message.get("text") or ""
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            await session.aclose(1007, "Invalid JSON payload received.")
            return None
        normalised: Json = normalise(parsed)
        return normalised

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        match = GENERATE_PATH.search(self._path(scope))
        if scope.get("method") != "POST" or match is None:
            await _json_response(send, 404, error_body(404, "NOT_FOUND", "Method not found."))
            return
        if self._headers(scope).get("x-goog-api-key") != self.api_key:
            await _json_response(send, 400, error_body(400, "INVALID_ARGUMENT", INVALID_KEY))
            return
        try:
            parsed = json.loads(body or b"{}")
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict) or not parsed.get("contents"):
            await _json_response(send, 400, error_body(400, "INVALID_ARGUMENT", "contents is not specified"))
            return
        request = GenerateRequest(model=match.group(2), body=normalise(parsed))
        with self._lock:
            self.generate_requests.append(request)
            failure = self._generate_errors.pop(0) if self._generate_errors else None
        if self.generate_delay_seconds:
            await asyncio.sleep(self.generate_delay_seconds)
        if failure is not None:
            status, code, text = failure
            await _json_response(send, status, error_body(status, code, text))
            return
        answer = self.transcribe if request.audio else self.generate
        await _json_response(send, 200, generate_response(answer(request), request.model))


async def _json_response(send: Send, status: int, body: Json) -> None:
    data = json.dumps(body).encode()
    headers = [
        (b"content-type", b"application/json; charset=UTF-8"),
        (b"content-length", str(len(data)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


# ------------------------------------------------------------------ the demo peer


class Ears:
    """What the demo peer hears: the server's own speech recognition (cara.recordings.speech, the
    shipped Whisper model) on the microphone audio a live session sends, cut into utterances at
    the pauses. Runs in a thread, the model loaded once."""

    RATE = 16_000
    # A 16-bit chunk quieter than this (RMS) is a pause; this much pause (or no audio at all for
    # as long, when the browser sends none in silence) ends an utterance; longer ones are cut.
    QUIET_RMS = 300.0
    END_PAUSE_SECONDS = 0.7
    MAX_SECONDS = 20.0
    PREROLL_SECONDS = 0.3

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model: Any = None
        self.unavailable: str | None = None

    def _loaded(self) -> Any:
        from cara.recordings import speech

        with self._lock:
            if self._model is None and self.unavailable is None:
                try:
                    self._model = speech.load_model(*speech.model_folder())
                except speech.SpeechFailed as exc:
                    self.unavailable = exc.message
            return self._model

    def hear(self, pcm: bytes) -> str:
        """16-bit mono PCM at 16 kHz -> the words heard ('' for none)."""
        import numpy as np

        from cara.recordings import speech

        model = self._loaded()
        if model is None:
            return ""
        samples = np.frombuffer(pcm[: len(pcm) // 2 * 2], dtype="<i2").astype(np.float32) / 32768.0
        try:
            result = speech.recognise_samples(model, samples, language="en")
        except speech.SpeechFailed:
            return ""
        return " ".join(word.text for word in result.words)

    @classmethod
    def loudness(cls, pcm: bytes) -> float:
        count = len(pcm) // 2
        if not count:
            return 0.0
        values = struct.unpack(f"<{count}h", pcm[: count * 2])
        return math.sqrt(sum(v * v for v in values) / count)


@dataclass
class _Utterance:
    pcm: bytearray = field(default_factory=bytearray)
    speaking: bool = False
    quiet: float = 0.0
    timer: asyncio.TimerHandle | None = None


class DemoPeer(LiveBehaviour):
    """A scripted peer for local use: it proves audio, transcripts and tools flow end to end.

    It hears: each utterance of the microphone audio (cut at a pause) is recognised by the
    server's own speech recognition (`Ears`) and sent back as the input transcription, real words
    at their real time, so the relay wakes on "Hey Cara" and sleeps on "Go to sleep" as spoken.
    Each utterance heard (or a typed turn) is answered with a short tone, an honest transcript
    ("no AI model is connected") and a resumption handle. A typed turn mentioning a dose check
    makes it call the dose-constraint tool when the setup declares it. No medical reasoning.
    """

    def __init__(self, go_away_after_seconds: float | None = None, ears: Ears | None = None) -> None:
        self.go_away_after_seconds = go_away_after_seconds
        self.ears = ears or Ears()
        self._utterances: dict[int, _Utterance] = {}
        self._hearing: set[asyncio.Future[None]] = set()
        self._handles = itertools.count(1)

    async def on_setup(self, session: LiveSession) -> None:
        if self.go_away_after_seconds:
            asyncio.get_running_loop().call_later(
                self.go_away_after_seconds,
                lambda: asyncio.ensure_future(session.asend({"goAway": {"timeLeft": "5s"}})),
            )

    async def on_message(self, session: LiveSession, message: Json) -> None:
        realtime = message.get("realtimeInput") or {}
        audio = realtime.get("audio")
        if audio:
            self._listen(session, decode_base64(str(audio.get("data", ""))))
            return
        # A typed turn: realtime text (what Cara's relay sends) or a completed client turn.
        content = message.get("clientContent") or {}
        turns = content.get("turns") or []
        text = str(realtime.get("text") or "").strip() or (
            " ".join(str(p.get("text", "")) for t in turns for p in t.get("parts") or []).strip()
            if content.get("turnComplete")
            else ""
        )
        if text:
            if "dose" in text.lower() and _declares(session.setup, "check_dose_constraint"):
                args = {"organ": "spinal cord", "metric": "Dmax", "value": 30, "fractions": 10}
                await session.asend(
                    {
                        "toolCall": {
                            "functionCalls": [{"id": "demo-1", "name": "check_dose_constraint", "args": args}]
                        }
                    }
                )
                return
            await self._reply(session, None)
        if message.get("toolResponse"):
            await self._reply(session, None, "The demo peer received the tool's answer.")

    def _listen(self, session: LiveSession, pcm: bytes) -> None:
        """Gather the microphone's audio into an utterance; a pause (or silence on the wire) ends it."""
        ears = self.ears
        utterance = self._utterances.setdefault(id(session), _Utterance())
        seconds = len(pcm) / 2 / ears.RATE
        if ears.loudness(pcm) >= ears.QUIET_RMS:
            utterance.speaking, utterance.quiet = True, 0.0
        elif utterance.speaking:
            utterance.quiet += seconds
        utterance.pcm += pcm
        if not utterance.speaking:
            keep = int(ears.PREROLL_SECONDS * ears.RATE) * 2
            del utterance.pcm[: max(0, len(utterance.pcm) - keep)]
            return
        if utterance.timer is not None:
            utterance.timer.cancel()
        if (
            utterance.quiet >= ears.END_PAUSE_SECONDS
            or len(utterance.pcm) >= ears.MAX_SECONDS * ears.RATE * 2
        ):
            self._finish(session)
        else:
            utterance.timer = asyncio.get_running_loop().call_later(
                ears.END_PAUSE_SECONDS, self._finish, session
            )

    def _finish(self, session: LiveSession) -> None:
        utterance = self._utterances.pop(id(session), None)
        if utterance is None or not utterance.speaking:
            return
        if utterance.timer is not None:
            utterance.timer.cancel()
        task = asyncio.ensure_future(self._hear(session, bytes(utterance.pcm)))
        self._hearing.add(task)
        task.add_done_callback(self._hearing.discard)

    async def _hear(self, session: LiveSession, pcm: bytes) -> None:
        heard = await asyncio.to_thread(self.ears.hear, pcm)
        if heard:
            await self._reply(session, heard)
        elif self.ears.unavailable:
            await self._reply(
                session, f"(demo: no speech recognition on this server: {self.ears.unavailable})"
            )

    async def _reply(self, session: LiveSession, heard: str | None, said: str | None = None) -> None:
        if heard:
            await session.asend({"serverContent": {"inputTranscription": {"text": heard}}})
        tone = pcm_tone(0.6)
        for start in range(0, len(tone), 9_600):
            await session.asend(server_audio(tone[start : start + 9_600]))
        said = said or "This is the Cara demo peer. No AI model is connected; your audio reached the server."
        await session.asend({"serverContent": {"outputTranscription": {"text": said}}})
        await session.asend({"serverContent": {"turnComplete": True}})
        await session.asend(
            {
                "sessionResumptionUpdate": {
                    "newHandle": f"demo-handle-{next(self._handles)}",
                    "resumable": True,
                }
            }
        )


def _declares(setup: Json, name: str) -> bool:
    return any(
        d.get("name") == name
        for tool in setup.get("tools") or []
        for d in tool.get("functionDeclarations") or []
    )


def demo_generate(request: GenerateRequest) -> str:
    schema = _asked_schema(request)
    if schema is not None:
        return draft_answer(request, schema)
    text = request.text
    lines = [line for line in text.splitlines() if line.strip()]
    return (
        "Demo summary (no AI model is connected): the request held "
        f"{len(lines)} lines and {len(text.split())} words of text."
    )


@contextlib.contextmanager
def running(**options: Any) -> Iterator[GeminiDouble]:
    double = GeminiDouble(**options).start()
    try:
        yield double
    finally:
        double.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cara_doubles.gemini", description="Run the Gemini double as a scripted demo peer."
    )
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--tls-dir", type=Path, default=Path(".data/gemini-double"))
    parser.add_argument("--api-key", default=DEFAULT_API_KEY)
    parser.add_argument("--reuse-tls", action="store_true", help="keep the CA and certificate in --tls-dir")
    parser.add_argument("--go-away-after", type=float, default=None, help="send goAway after N seconds")
    args = parser.parse_args(argv)
    existing = TlsFiles(ca_file=args.tls_dir / "ca.pem", cert_file=args.tls_dir / "server.pem")
    reuse = args.reuse_tls and existing.ca_file.exists() and existing.cert_file.exists()
    double = GeminiDouble(
        api_key=args.api_key,
        port=args.port,
        tls=existing if reuse else write_tls_files(args.tls_dir),
        behaviour=DemoPeer(args.go_away_after),
        generate=demo_generate,
        record=False,
    ).start()
    print("Gemini double (demo peer) listening. Point Cara at it with:", flush=True)
    for key, value in double.settings().items():
        print(f"  {key}={value}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        double.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
