"""Opus on the browser's side of the relay: a tenth of the bandwidth of base64 PCM in JSON.

The browser encodes its microphone with WebCodecs (`AudioEncoder`, codec "opus": raw Opus packets,
no container) and decodes Cara's speech with `AudioDecoder`. The provider speaks PCM only (16 kHz
up, 24 kHz down), so the relay transcodes, with PyAV (FFmpeg's libopus, shipped inside the wheel):

* `OpusDecoder`: browser packets (any Opus rate) -> 16-bit PCM, 16 kHz mono, for `realtimeInput`;
* `OpusEncoder`: the provider's 24 kHz PCM -> Opus for the browser. Input arrives in chunks of any
  length; whole 20 ms frames are encoded and the rest waits for the next chunk (`flush` pads the
  tail of a reply with silence). The frames a chunk completes go out together, as few packets as
  RFC 6716 allows (up to 120 ms each, `repacketize`): one binary frame per provider chunk instead
  of one per 20 ms, and no added delay (nothing waits for a longer frame). Any Opus decoder
  (WebCodecs' `AudioDecoder` included) reads such packets as they are.

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
# libopus's effort (0-10, FFmpeg's compression_level; 10 by default). At 5 a 120 ms reply chunk of
# speech costs ~0.3 ms against ~1.3 ms at 10 (below 7 libopus skips its signal analysis). Without
# that analysis its free VBR overshoots (36 kb/s for 24 asked, on espeak-ng speech), so the rate is
# constrained VBR: 23.6 kb/s on the same speech, against 24.0 at complexity 10.
REPLY_COMPLEXITY = 5
# The longest Opus packet (RFC 6716 §3.2.5: up to 120 ms of frames in one packet).
MAX_PACKET_MS = 120


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
        codec.options = {"compression_level": str(REPLY_COMPLEXITY), "vbr": "constrained"}
        codec.open()
        self._codec = codec
        self._rate = rate
        self._time_base = codec.time_base
        self._frame = rate // 50
        self._silence = bytes(self._frame * 2)
        self._hush = b"\x01\x00" * self._frame  # +1 in every sample: see _encode_frame
        self._pending = b""
        self._pts = 0

    def encode(self, pcm: bytes) -> list[bytes]:
        """24 kHz PCM16LE mono -> the Opus packets (up to 120 ms each) of the whole 20 ms frames
        it completes."""
        size = self._frame * 2
        pending = self._pending + pcm if self._pending else pcm
        whole = len(pending) - len(pending) % size
        self._pending = pending[whole:]
        if not whole:
            return []
        return repacketize(self._encode(pending[:whole] if whole < len(pending) else pending))

    def flush(self) -> list[bytes]:
        """The tail of a reply, padded to a whole frame (an interruption drops it instead: `reset`)."""
        if not self._pending:
            return []
        chunk = self._pending + b"\x00" * (self._frame * 2 - len(self._pending))
        self._pending = b""
        return repacketize(self._encode(chunk))

    def reset(self) -> None:
        """Barge-in: what was not yet encoded is dropped with the rest of the reply."""
        self._pending = b""

    def _encode(self, pcm: bytes) -> list[bytes]:
        """Whole 20 ms frames, given to the codec as one AudioFrame: PyAV cuts it into the
        encoder's frame size itself, which costs less than a frame object per 20 ms (15-25% of a
        120 ms chunk's encoding CPU in ops/bench/live_opus_codec.py; the packets are the same)."""
        size = self._frame * 2
        if self._silence in pcm:  # cheap test first (C's memmem); then each frame's place
            silent = [s for s in range(0, len(pcm), size) if pcm[s : s + size] == self._silence]
            if silent:
                # Digital silence costs libopus ~5 times a frame of speech (its float filters
                # decay into denormal numbers); one step of DC costs what speech does, is removed
                # by the encoder's DC filter and still comes out as the few bytes of a silent frame.
                hushed = bytearray(pcm)
                for start in silent:
                    hushed[start : start + size] = self._hush
                pcm = bytes(hushed)
        samples = len(pcm) // 2
        frame = av.AudioFrame(format="s16", layout="mono", samples=samples)
        frame.planes[0].update(pcm)
        frame.sample_rate = self._rate
        frame.time_base = self._time_base
        frame.pts = self._pts
        self._pts += samples
        return [bytes(packet) for packet in self._codec.encode(frame)]


# Frame length in ms of each TOC configuration (RFC 6716 §3.1): SILK 10/20/40/60, hybrid 10/20,
# CELT 2.5/5/10/20.
_FRAME_MS: list[float] = [(10, 20, 40, 60)[c % 4] for c in range(12)]
_FRAME_MS += [(10, 20)[c % 2] for c in range(12, 16)] + [(2.5, 5, 10, 20)[c % 4] for c in range(16, 32)]


def repacketize(packets: list[bytes]) -> list[bytes]:
    """Consecutive one-frame packets (code 0) of the same configuration -> code 3 packets of up
    to MAX_PACKET_MS (RFC 6716 §3.2.5: TOC, frame count with the VBR flag, each frame's length but
    the last, the frames). The frames are the encoder's, unchanged: a decoder gives the same
    samples as from the packets one by one. Any other packet goes out as it is."""
    out: list[bytes] = []
    run: list[bytes] = []
    limit = 0

    def close() -> None:
        if len(run) == 1:
            out.append(run[0])
        elif run:
            head = bytearray((run[0][0] | 3, 0x80 | len(run)))
            for packet in run[:-1]:
                size = len(packet) - 1
                if size < 252:
                    head.append(size)
                else:  # two bytes: 252-255 for the low bits, then the rest / 4
                    first = 252 + (size & 3)
                    head += bytes((first, (size - first) >> 2))
            out.append(bytes(head) + b"".join(packet[1:] for packet in run))
        run.clear()

    for packet in packets:
        if not packet or packet[0] & 3:  # empty, or already several frames: as it is
            close()
            out.append(packet)
            continue
        if run and (packet[0] != run[0][0] or len(run) == limit):
            close()
        if not run:
            limit = max(1, int(MAX_PACKET_MS // _FRAME_MS[packet[0] >> 3]))
        run.append(packet)
    close()
    return out


def packet_ms(packet: bytes) -> float:
    """The audio one Opus packet holds (RFC 6716 §3.1-3.2), 0 for an empty or truncated one."""
    if not packet:
        return 0.0
    code = packet[0] & 3
    if code == 0:
        count = 1
    elif code in (1, 2):
        count = 2
    elif len(packet) < 2:
        return 0.0
    else:
        count = packet[1] & 0x3F
    return count * _FRAME_MS[packet[0] >> 3]
