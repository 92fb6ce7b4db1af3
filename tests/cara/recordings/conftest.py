"""Recordings made offline: doctors on trial (the assistant lets them in) and real Opus audio."""

from __future__ import annotations

import io
import math
import struct
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.factories import auth, doctor_payload, signup


@pytest.fixture(autouse=True)
def _assistant_needs_a_subscription(doctors_on_trial: None) -> None:
    """Recording, like a live start, is gated on the subscription; the doctors here are on trial."""


@pytest.fixture(autouse=True)
def _small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests send small chunks of small recordings; the chunk floor and the storage limits
    have their tests (test_storage_limits.py), which set what they test."""
    from cara.config import get_settings

    monkeypatch.setattr(get_settings(), "recording_min_chunk_bytes", 1)


@pytest.fixture
def doctor(client: Any) -> dict[str, str]:
    return auth(signup(client, doctor_payload(specialty="Radiologist"))["token"])


def webm_opus(seconds: float, frequency: float = 330.0) -> bytes:
    """A WebM file of Opus audio (a tone), as the browser's MediaRecorder writes one."""
    import av

    buffer = io.BytesIO()
    container = av.open(buffer, "w", format="webm")
    stream = container.add_stream("libopus", rate=48_000, layout="mono")
    stream.bit_rate = 24_000
    frame_samples = 960
    amplitude = int(0.2 * 32767)
    for index in range(int(seconds * 50)):
        pcm = b"".join(
            struct.pack(
                "<h",
                int(amplitude * math.sin(2 * math.pi * frequency * (i + index * frame_samples) / 48_000)),
            )
            for i in range(frame_samples)
        )
        frame = av.AudioFrame(format="s16", layout="mono", samples=frame_samples)
        frame.planes[0].update(pcm)
        frame.sample_rate = 48_000
        frame.pts = index * frame_samples
        for packet in stream.encode(frame):
            container.mux(packet)
    for packet in stream.encode(None):
        container.mux(packet)
    container.close()
    return buffer.getvalue()


def create(client: Any, headers: dict[str, str], **body: Any) -> Any:
    payload = {
        "clientId": str(uuid.uuid4()),
        "console": "generic",
        "consent": True,
        "recordedAt": datetime.now(UTC).isoformat(),
        "durationMs": 12_000,
        "mimeType": "audio/webm;codecs=opus",
        **body,
    }
    return client.post("/api/recordings", json=payload, headers=headers)


def put_chunk(client: Any, headers: dict[str, str], rid: str, offset: int, data: bytes) -> Any:
    return client.put(
        f"/api/recordings/{rid}/chunks",
        params={"offset": offset},
        content=data,
        headers={**headers, "Content-Type": "application/octet-stream"},
    )


def upload_all(client: Any, headers: dict[str, str], rid: str, data: bytes, chunk: int) -> None:
    for offset in range(0, len(data), chunk):
        response = put_chunk(client, headers, rid, offset, data[offset : offset + chunk])
        assert response.status_code == 200, response.text


def speech_pcm(text: str, rate: int = 16_000) -> bytes:
    """espeak-ng reading `text` (Debian's package), as 16-bit mono PCM at `rate`."""
    import shutil
    import subprocess

    import av

    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng (Debian package) is needed to speak the test dictations")
    wav = subprocess.run(
        ["espeak-ng", "-v", "en-us", "-s", "150", "--stdout", text], check=True, capture_output=True
    ).stdout
    with av.open(io.BytesIO(wav), format="wav") as source:
        resampler = av.AudioResampler(format="s16", layout="mono", rate=rate)
        out = b""
        for frame in source.decode(audio=0):
            for piece in resampler.resample(frame):
                out += bytes(piece.planes[0])[: piece.samples * 2]
        for piece in resampler.resample(None):
            out += bytes(piece.planes[0])[: piece.samples * 2]
    return out


def silence_pcm(seconds: float, rate: int = 16_000) -> bytes:
    return b"\x00\x00" * int(seconds * rate)


def webm_from_pcm(pcm: bytes, rate: int = 16_000) -> bytes:
    """16-bit mono PCM -> Opus in WebM at 24 kb/s, as the console's MediaRecorder writes it."""
    import av

    buffer = io.BytesIO()
    container = av.open(buffer, "w", format="webm")
    stream = container.add_stream("libopus", rate=48_000, layout="mono")
    stream.bit_rate = 24_000
    resampler = av.AudioResampler(format="s16", layout="mono", rate=48_000)
    step = rate // 10 * 2  # 100 ms of input a frame
    for start in range(0, len(pcm), step):
        piece = pcm[start : start + step]
        frame = av.AudioFrame(format="s16", layout="mono", samples=len(piece) // 2)
        frame.planes[0].update(piece)
        frame.sample_rate = rate
        for resampled in resampler.resample(frame):
            for packet in stream.encode(resampled):
                container.mux(packet)
    for resampled in resampler.resample(None):
        for packet in stream.encode(resampled):
            container.mux(packet)
    for packet in stream.encode(None):
        container.mux(packet)
    container.close()
    return buffer.getvalue()


def spoken_webm(*texts: str, pause: float = 2.0) -> bytes:
    """A WebM recording of espeak-ng reading each text in turn, `pause` seconds of silence between."""
    pcm = b""
    for i, text in enumerate(texts):
        if i:
            pcm += silence_pcm(pause)
        pcm += speech_pcm(text)
    return webm_from_pcm(silence_pcm(0.5) + pcm + silence_pcm(0.5))
