"""The browser <-> server protocol of `/api/live` (JSON text frames, one object each).

Browser -> server (`type` decides the shape):

    {"type": "auth", "token": "<access token>", "consultationId": "<uuid>"}
                                                           first frame, within 10 s; the consultation
                                                           comes from POST /api/consultations (the
                                                           patient's consent); after a drop the same
                                                           id rejoins it
    {"type": "pong", "at": <the ping's at>}                answer to each ping
    <binary frame>                                         with "audio": "opus" in the auth frame:
                                                           one Opus packet of microphone audio
    {"type": "audio", "data": "<base64 PCM16LE, 16 kHz, mono>"}
    {"type": "audioStreamEnd"}                             microphone muted or stopped
    {"type": "video", "data": "<base64 JPEG>"}            camera or screen frame (about 1 per 2 s)
    {"type": "text", "text": "<typed question>"}

Server -> browser:

    {"type": "status", "state": "connecting" | "connected" | "reconnecting" | "error",
     "message": "...", ...}                                 connecting adds console; connected adds
                                                            consultationId, console, voice, awake,
                                                            wakePhraseRequired, resumed, demo (sent
                                                            again after each reconnection); error
                                                            adds "code" (a key of CLOSE_CODES), and
                                                            the server then closes with that code
    {"type": "wake", "awake": true | false, "message": "..."}
    {"type": "audio", "data": "<base64 PCM16LE>", "mimeType": "audio/pcm;rate=24000"}
    {"type": "transcript", "speaker": "user" | "assistant" | "tool", "text": "...",
     "final": false | true, "at": "<ISO 8601 start of the line>", "seq": <n, final lines only>}
    {"type": "interrupted"}                                stop playback now (barge-in)
    {"type": "turnComplete"}
    {"type": "toolResult", "name": "check_dose_constraint", "result": {...}}
    {"type": "error", "message": "..."}                    a bad frame; the socket stays open
    <binary frame>                                         with "audio": "opus": one Opus packet
                                                           (24 kHz mono, 20 ms frames, up to 120 ms
                                                           to a packet) of Cara's speech, instead
                                                           of the "audio" message
    {"type": "ping", "at": <ms>, "lag": <ms>, "rtt"?: <ms>}
                                                           every second: a console that hears nothing
                                                           for 3 s shows 'Weak connection'; `lag`: how
                                                           long the oldest unanswered ping has waited
                                                           for its pong (0: all answered), `rtt`: the
                                                           latest round trip, both measured here, so
                                                           the console sees its uplink's delay

Rejoin: `connected` carries `rejoin: true` (the server keeps the consultation across sockets) and
`resumed: true` when the provider's session was resumed with its context. A consultation has one
socket at a time: a newer one takes it over and the older is closed with 4409. While the browser has
not answered pings for STALE_AFTER_SECONDS, reply audio is dropped instead of queued (transcripts
still go), so a link that comes back does not get a burst of stale speech.

An interim transcript carries the whole line so far (it replaces the previous
interim text of that speaker); the final one carries the finished line, as
stored in the consultation's transcript.

The token and the doctor's access are checked when the socket opens and again
every `LIVE_RECHECK_SECONDS` while it stays open: once withdrawn (token signed
out or expired, account deactivated or removed, subscription lapsed) an open
consultation gets a `status` error with code "unauthorized" or "forbidden" and
the socket closes with 4401 or 4403. A re-check that cannot reach the database or Redis leaves
the consultation open.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

# 2048 samples of 16-bit audio are 5.5 KB in base64; allow bigger browser buffers.
MAX_AUDIO_CHARS = 256 * 1024
MAX_VIDEO_CHARS = 4 * 1024 * 1024
MAX_TEXT_CHARS = 4000
NO_CAMERA_IN_PLAN = (
    "Camera and screen sharing are not part of your plan: Cara does not see these frames. "
    "Please choose a plan that includes them."
)
TURNS_TOO_FAST = "You are sending messages faster than Cara can answer. Please wait {wait}."
AUTH_TIMEOUT_SECONDS = 10.0

# WebSocket close codes (4000-4999 are the application's).
CLOSE_CODES = {
    "bad_request": 4400,
    "unauthorized": 4401,
    "forbidden": 4403,
    "not_found": 4404,
    "not_configured": 4503,
    "upstream": 4502,
    "unavailable": 1013,  # try again later (e.g. the token store did not answer)
    "replaced": 4409,  # a newer socket took the consultation over
}
# The browser answers pings every PING_SECONDS; silent this long, the link is stalled.
PING_SECONDS = 1.0
STALE_AFTER_SECONDS = 3.0


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AuthIn(_In):
    type: Literal["auth"]
    token: str = Field(min_length=1, max_length=4096)
    consultationId: str | None = Field(default=None, max_length=64)
    # "opus": microphone audio comes as binary frames, one Opus packet each, and Cara's speech goes
    # down the same way; "pcm" (browsers without WebCodecs): base64 PCM in JSON, as before.
    audio: Literal["pcm", "opus"] = "pcm"


class PongIn(_In):
    type: Literal["pong"]
    at: int | None = None


class AudioIn(_In):
    type: Literal["audio"]
    # Kept in base64: it goes upstream as it came (checked, not re-encoded).
    data: str = Field(description="base64 PCM16LE 16 kHz mono")

    @field_validator("data", mode="before")
    @classmethod
    def _pcm(cls, value: Any) -> str:
        pcm = _base64(value, MAX_AUDIO_CHARS, "audio")
        if len(pcm) % 2:
            raise ValueError("audio must be whole 16-bit samples")
        return str(value)

    @property
    def pcm(self) -> bytes:
        return base64.b64decode(self.data)


class AudioStreamEndIn(_In):
    type: Literal["audioStreamEnd"]


class VideoIn(_In):
    type: Literal["video"]
    data: bytes = Field(description="base64 JPEG")

    @field_validator("data", mode="before")
    @classmethod
    def _jpeg(cls, value: Any) -> bytes:
        image = _base64(value, MAX_VIDEO_CHARS, "video")
        if not image.startswith(b"\xff\xd8"):
            raise ValueError("video frames must be JPEG images")
        return image


class TextIn(_In):
    type: Literal["text"]
    text: str = Field(max_length=MAX_TEXT_CHARS)

    @field_validator("text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip() or "\x00" in value:
            raise ValueError("text must not be blank")
        return value.strip()


In = AuthIn | AudioIn | AudioStreamEndIn | VideoIn | TextIn | PongIn
BrowserMessage = Annotated[In, Field(discriminator="type")]
_adapter: TypeAdapter[In] = TypeAdapter(BrowserMessage)


class BadFrame(ValueError):
    """A browser frame that is not a valid message; `str()` is safe to send back."""


# The frame the console sends eight times a second, exactly as its JSON.stringify writes it.
_AUDIO_FRAME = re.compile(r'\{"type":"audio","data":"([A-Za-z0-9+/]*={0,2})"\}')


def parse(raw: str | bytes | None) -> In:
    """A validated browser message, or BadFrame with a short reason (never the frame's content)."""
    if raw is None or isinstance(raw, bytes):
        raise BadFrame("Send JSON text frames.")
    audio = _AUDIO_FRAME.fullmatch(raw) if len(raw) <= MAX_AUDIO_CHARS + 32 else None
    if audio is not None:
        # Fast path, same checks: the regex proves it is base64 text; the rest is AudioIn's own rule.
        data = audio.group(1)
        # Decoded size from the length and padding: no need to decode to know it.
        size = len(data) // 4 * 3 - data.count("=", -2)
        if len(data) % 4 == 0 and data and size % 2 == 0:
            return AudioIn.model_construct(type="audio", data=data)
    try:
        return _adapter.validate_json(raw)
    except ValidationError as exc:
        raise BadFrame(_reason(exc)) from None


def _reason(exc: ValidationError) -> str:
    first = exc.errors(include_url=False, include_input=False)[0]
    kind = first.get("type", "")
    where = ".".join(str(p) for p in first.get("loc", ()) if not isinstance(p, int))
    if kind == "json_invalid":
        return "Malformed JSON."
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return "Unknown message type."
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return "A message must be a JSON object."
    if kind == "extra_forbidden":
        return f"Unexpected field '{where.split('.')[-1]}'."
    if kind == "value_error":
        text = str(first.get("msg", "Invalid value")).removeprefix("Value error, ")
        return text[:1].upper() + text[1:] + "."
    return f"Invalid or missing '{where.split('.')[-1] or 'type'}'."


def _base64(value: Any, limit: int, name: str) -> bytes:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} data must be a base64 string")
    if len(value) > limit:
        raise ValueError(f"{name} data is too large")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"{name} data must be valid base64") from None


# ------------------------------------------------------------------ server -> browser


def status(state: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "status", "state": state, "message": message, **extra}


# Codes of error frames the console acts on (it shows every error frame's message).
CAMERA_NOT_IN_PLAN = "camera_not_in_plan"  # it stops sending camera and screen frames
TURNS_LIMITED = "turns_limited"


def error(message: str, code: str | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "error", "message": message}
    if code:
        frame["code"] = code
    return frame


CONNECTING = "Attempting to connect to Cara..."
CONNECTED = "Connected to Cara. You can now give voice commands."
RECONNECTING = "Reconnecting to Cara..."
# The server is restarting: the browser reconnects (close code 1012), reaching another replica.
RESTARTING = "Cara's server is restarting. Reconnecting..."
SERVICE_RESTART = 1012
NO_CONSULTATION = "Start the consultation first: confirm the patient's consent."
REPLACED = "This consultation was opened in another window."
ASLEEP = "Cara is asleep. Say 'Hey Cara' to wake her."
AWAKE = "Cara is listening."
