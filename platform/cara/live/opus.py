"""Opus on the browser's side of the relay: a tenth of the bandwidth of base64 PCM in JSON.

The browser encodes its microphone with WebCodecs (`AudioEncoder`, codec "opus": raw Opus packets,
no container) and decodes Cara's speech with `AudioDecoder`. The provider speaks PCM only (16 kHz
up, 24 kHz down), so the relay transcodes, with PyAV (FFmpeg's libopus, shipped inside the wheel):

* `OpusDecoder`: browser packets (any Opus rate) -> 16-bit PCM, 16 kHz mono, for `realtimeInput`;
* `OpusEncoder`: the provider's 24 kHz PCM -> Opus packets of 20 ms for the browser. Input arrives
  in chunks of any length; whole 20 ms frames are encoded and the rest waits for the next chunk
  (`flush` pads the tail of a reply with silence).

One decoder and one encoder per consultation: Opus frames depend on the ones before them.

`Transcoder` runs them on the event loop, or with LIVE_OPUS_THREADS off it, on a small thread pool
per direction (FFmpeg's codec calls release the GIL, so other consultations are relayed meanwhile):
each call is awaited before the consultation's next one, so a consultation's frames stay in order
on any thread.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from functools import cache

import av

INPUT_RATE = 16_000  # what the provider hears
REPLY_RATE = 24_000  # what the provider says
FRAME_SAMPLES = REPLY_RATE // 50  # 20 ms
# Speech at 24 kb/s is clear for a clinician's ear and well inside a 3G uplink's share.
REPLY_BIT_RATE = 24_000


class OpusDecoder:
    def __init__(self) -> None:
        self._codec = av.CodecContext.create("opus", "r")
        self._codec.sample_rate = 48_000  # Opus always decodes at 48 kHz
        self._codec.layout = "mono"
        self._resampler = av.AudioResampler(format="s16", layout="mono", rate=INPUT_RATE)

    def decode(self, packet: bytes) -> bytes:
        """One Opus packet -> PCM16LE 16 kHz mono (may be empty while the resampler fills).
        A damaged packet raises ValueError."""
        out = bytearray()
        try:
            frames = self._codec.decode(av.Packet(packet))
        except av.FFmpegError as exc:
            raise ValueError("not an Opus packet") from exc
        for frame in frames:
            for resampled in self._resampler.resample(frame):
                out += bytes(resampled.planes[0])[: resampled.samples * 2]
        return bytes(out)


@cache
def _pool(direction: str, threads: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=threads, thread_name_prefix=f"opus-{direction}")


class Transcoder:
    """A consultation's decoder and encoder, run on the per-direction pools (`threads` each; 0: on
    the event loop, as before)."""

    def __init__(self, threads: int) -> None:
        self.decoder = OpusDecoder()
        self.encoder = OpusEncoder()
        self._threads = threads

    async def decode(self, packet: bytes) -> bytes:
        if not self._threads:
            return self.decoder.decode(packet)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_pool("decode", self._threads), self.decoder.decode, packet)

    async def encode(self, pcm: bytes) -> list[bytes]:
        if not self._threads:
            return self.encoder.encode(pcm)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_pool("encode", self._threads), self.encoder.encode, pcm)

    async def flush(self) -> list[bytes]:
        if not self._threads:
            return self.encoder.flush()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_pool("encode", self._threads), self.encoder.flush)

    def reset(self) -> None:
        """Barge-in (between the consultation's awaited calls, so never during one)."""
        self.encoder.reset()


class OpusEncoder:
    def __init__(self, bit_rate: int = REPLY_BIT_RATE, rate: int = REPLY_RATE) -> None:
        """`rate`: of the PCM given (8, 12, 16, 24 or 48 kHz); 20 ms frames at that rate."""
        codec = av.CodecContext.create("libopus", "w")
        codec.sample_rate = rate
        codec.layout = "mono"
        codec.format = "s16"
        codec.bit_rate = bit_rate
        codec.time_base = Fraction(1, rate)
        codec.open()
        self._codec = codec
        self._rate = rate
        self._frame = rate // 50
        self._pending = b""
        self._pts = 0

    def encode(self, pcm: bytes) -> list[bytes]:
        """24 kHz PCM16LE mono -> the Opus packets of the whole 20 ms frames it completes."""
        self._pending += pcm
        packets: list[bytes] = []
        size = self._frame * 2
        while len(self._pending) >= size:
            chunk, self._pending = self._pending[:size], self._pending[size:]
            packets += self._encode_frame(chunk)
        return packets

    def flush(self) -> list[bytes]:
        """The tail of a reply, padded to a whole frame (an interruption drops it instead: `reset`)."""
        if not self._pending:
            return []
        chunk = self._pending + b"\x00" * (self._frame * 2 - len(self._pending))
        self._pending = b""
        return self._encode_frame(chunk)

    def reset(self) -> None:
        """Barge-in: what was not yet encoded is dropped with the rest of the reply."""
        self._pending = b""

    def _encode_frame(self, chunk: bytes) -> list[bytes]:
        frame = av.AudioFrame(format="s16", layout="mono", samples=self._frame)
        frame.planes[0].update(chunk)
        frame.sample_rate = self._rate
        frame.time_base = Fraction(1, self._rate)
        frame.pts = self._pts
        self._pts += self._frame
        return [bytes(packet) for packet in self._codec.encode(frame)]
