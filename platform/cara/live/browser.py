"""The browser's side of the live relay: one WebSocket, JSON text frames and Opus binary frames,
one sender at a time. Any failure of the socket is BrowserGone: the consultation ends."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from starlette.websockets import WebSocket


class BrowserGone(Exception):
    """The browser's socket closed: the consultation ends."""


class BrowserLink:
    """The browser side of the relay: JSON text frames, one sender at a time."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self._lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
        try:
            async with self._lock:
                await self.websocket.send_text(text)
        except Exception as exc:  # disconnects surface as several exception types
            raise BrowserGone from exc

    async def send_bytes(self, data: bytes) -> None:
        try:
            async with self._lock:
                await self.websocket.send_bytes(data)
        except Exception as exc:
            raise BrowserGone from exc

    async def send_audio(self, data_base64: str, mime_type: str) -> None:
        """Reply audio as it came (base64): no decode, no re-encode. The frame is written out
        directly when the text needs no JSON escaping (always, for base64 and a PCM type)."""
        if "-" in data_base64 or "_" in data_base64:
            data_base64 = data_base64.translate(_URL_SAFE)  # browsers' atob() reads the standard alphabet
        if _json_safe(data_base64) and _MIME.fullmatch(mime_type):
            text = f'{{"type":"audio","data":"{data_base64}","mimeType":"{mime_type}"}}'
        else:
            text = json.dumps({"type": "audio", "data": data_base64, "mimeType": mime_type})
        try:
            async with self._lock:
                await self.websocket.send_text(text)
        except Exception as exc:
            raise BrowserGone from exc

    async def receive(self) -> str | bytes | None:
        try:
            message = await self.websocket.receive()
        except Exception as exc:
            raise BrowserGone from exc
        if message["type"] == "websocket.disconnect":
            raise BrowserGone
        text: str | None = message.get("text")
        return text if text is not None else message.get("bytes")


_URL_SAFE = str.maketrans("-_", "+/")
_MIME = re.compile(r"audio/[a-z0-9.+-]+(;[a-z]+=[0-9]+)?")


def _json_safe(text: str) -> bool:
    """True when `text` can stand between JSON quotes as it is (string scans in C: no regex
    over 8 KB of audio)."""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text
