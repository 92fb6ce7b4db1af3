"""One Gemini Live connection, opened by the google-genai SDK, with a lean path for audio.

The SDK (`client.aio.live.connect`) builds the URL, sends the API key, turns
the LiveConnectConfig into the `setup` message and completes the handshake;
the rare messages (typed text, video frames, tool responses, priming) go
through its `send_*` methods too.

The audio itself does not. The SDK validates every message into pydantic
models both ways (and decodes and re-encodes the base64 audio); profiled
under ops/bench/live_relay.py that was about a third of the relay's CPU at 16
audio messages a second per consultation. So the two hot messages use the SDK
session's own WebSocket: microphone chunks are written as the
`realtimeInput.audio` JSON the SDK would write, with the browser's base64
passed through untouched, and server messages are read as JSON dicts (the
camelCase wire format; unknown fields are ignored rather than refused).
The pinned SDK version and the tests against the Gemini double keep this in
step with the SDK: if the session stops exposing its socket, `open()` fails
loudly instead of degrading.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from google.genai import errors, types
from google.genai import live as genai_live
from websockets.exceptions import ConnectionClosed

INPUT_AUDIO_MIME = "audio/pcm;rate=16000"

# At DEBUG the websockets library logs every frame it sends and receives, and here the
# frames carry transcripts and tool results: never below INFO, whatever the root level.
logging.getLogger("websockets").setLevel(max(logging.INFO, logging.getLogger("websockets").level))
_AUDIO_PREFIX = '{"realtimeInput":{"audio":{"data":"'
_AUDIO_SUFFIX = f'","mimeType":"{INPUT_AUDIO_MIME}"}}}}}}'

Json = dict[str, Any]


class Upstream:
    def __init__(self, session: genai_live.AsyncSession) -> None:
        socket = getattr(session, "_ws", None)
        if socket is None or not hasattr(socket, "send") or not hasattr(socket, "recv"):
            raise RuntimeError(
                "google-genai's AsyncSession no longer exposes its socket (_ws); see live/upstream.py"
            )
        self.session = session
        self._socket = socket

    async def send_audio(self, data_base64: str) -> None:
        """A microphone chunk, already checked base64 (16-bit PCM, 16 kHz).

        Written out directly: base64 needs no JSON escaping, and json.dumps of
        the 5 KB string was a tenth of the relay's CPU.
        """
        await self._socket.send(_AUDIO_PREFIX + data_base64 + _AUDIO_SUFFIX)

    async def receive(self) -> Json:
        """The next server message as a dict; a closed connection raises the SDK's APIError."""
        try:
            raw = await self._socket.recv(decode=False)
        except ConnectionClosed as closed:
            frame = closed.rcvd
            # The SDK's own wording for a close without a frame (network failure).
            code, reason = (frame.code, frame.reason) if frame else (1006, "abnormal closure [internal]")
            errors.APIError.raise_error(code, reason, None)
            raise  # not reached: raise_error always raises
        message = json.loads(raw) if raw else {}
        if not isinstance(message, dict):
            raise errors.APIError(1007, "The AI service sent a message that is not a JSON object.", None)
        return message

    # The rare messages, through the SDK.

    async def send_video(self, jpeg: bytes) -> None:
        await self.session.send_realtime_input(video=types.Blob(data=jpeg, mime_type="image/jpeg"))

    async def send_text(self, text: str) -> None:
        await self.session.send_realtime_input(text=text)

    async def send_audio_stream_end(self) -> None:
        await self.session.send_realtime_input(audio_stream_end=True)

    async def send_tool_responses(self, responses: list[types.FunctionResponse]) -> None:
        await self.session.send_tool_response(function_responses=responses)

    async def prime(self, transcript: str) -> None:
        """Context for a fresh session: the transcript so far, without asking for an answer."""
        await self.session.send_client_content(
            turns=types.Content(role="user", parts=[types.Part(text=transcript)]), turn_complete=False
        )


# How long a normal close may take before the connection is simply dropped.
_CLOSE_SECONDS = 2.0


@asynccontextmanager
async def open_upstream(client: Any, model: str, config: types.LiveConnectConfig) -> AsyncIterator[Upstream]:
    async with client.aio.live.connect(model=model, config=config) as session:
        try:
            yield Upstream(session)
        except asyncio.CancelledError:
            # The consultation ended on our side (the doctor left, the server drains). Close
            # normally (1000): a connection left to the context's exit on cancellation is closed
            # with 1011, an internal error, at the provider.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(session.close(), _CLOSE_SECONDS)
            raise
