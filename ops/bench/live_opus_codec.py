"""The relay's Opus work per chunk, without sockets: what `live_relay.py --opus` adds to a PCM chunk.

    .venv/bin/python ops/bench/live_opus_codec.py [--seconds 3]

For 120 ms reply chunks of 24 kHz PCM (speech-like sound, as live_relay.py's double answers, and
digital silence), the CPU of `cara.live.opus.OpusEncoder` against a bare baseline measured in the
same run: libopus as FFmpeg sets it up (complexity 10) with one packet per 20 ms frame, which is
how the relay encoded before. Then the microphone's side: one 120 ms packet of 16 kHz Opus decoded
to 16 kHz PCM by `OpusDecoder`. Prints process CPU per 120 ms chunk and the ratios; no budget (the
latency budget is live_relay.py's), the figures say where a chunk's CPU goes.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from fractions import Fraction

from _common import REPO

sys.path.insert(0, str(REPO / "platform"))

from live_relay import OPUS_REPLY_BYTES, OPUS_REPLY_RATE, opus_packets, speech_like


class PerFrameEncoder:
    """The baseline: libopus at FFmpeg's defaults, one packet (and one binary frame) per 20 ms."""

    def __init__(self) -> None:
        import av

        codec = av.CodecContext.create("libopus", "w")
        codec.sample_rate = OPUS_REPLY_RATE
        codec.layout = "mono"
        codec.format = "s16"
        codec.bit_rate = 24_000
        codec.time_base = Fraction(1, OPUS_REPLY_RATE)
        codec.open()
        self._codec = codec
        self._frame = OPUS_REPLY_RATE // 50
        self._pts = 0

    def encode(self, pcm: bytes) -> list[bytes]:
        import av

        packets: list[bytes] = []
        size = self._frame * 2
        for start in range(0, len(pcm) - size + 1, size):
            frame = av.AudioFrame(format="s16", layout="mono", samples=self._frame)
            frame.planes[0].update(pcm[start : start + size])
            frame.sample_rate = OPUS_REPLY_RATE
            frame.time_base = Fraction(1, OPUS_REPLY_RATE)
            frame.pts = self._pts
            self._pts += self._frame
            packets += [bytes(packet) for packet in self._codec.encode(frame)]
        return packets


def cpu_per_call(call: Callable[[int], list[bytes] | bytes], seconds: float) -> tuple[float, float]:
    """Process CPU per call (ms) and bytes out per call, over about `seconds` of CPU."""
    for i in range(20):  # warm-up
        call(i)
    calls, size = 0, 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        out = call(calls)
        size += len(out) if isinstance(out, bytes) else sum(map(len, out))
        calls += 1
    return (time.process_time() - started) / calls * 1000, size / calls


def row(name: str, chunks: list[bytes], seconds: float) -> str:
    from cara.live.opus import OpusEncoder

    base, encoder = PerFrameEncoder(), OpusEncoder()
    before = cpu_per_call(lambda i: base.encode(chunks[i % len(chunks)]), seconds)
    now = cpu_per_call(lambda i: encoder.encode(chunks[i % len(chunks)]), seconds)
    packets_before, packets_now = len(base.encode(chunks[0])), len(encoder.encode(chunks[0]))
    return (
        f"{name:34} {before[0]:8.3f} ms {before[1]:5.0f} B {packets_before} pk"
        f" {now[0]:7.3f} ms {now[1]:4.0f} B {packets_now} pk {now[0] / before[0]:7.2f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per measurement")
    args = parser.parse_args()
    from cara.live.opus import OpusDecoder

    speech = speech_like(OPUS_REPLY_RATE, 3.0)
    chunks = [speech[i : i + OPUS_REPLY_BYTES] for i in range(0, len(speech), OPUS_REPLY_BYTES)]
    silence = bytes(OPUS_REPLY_BYTES)
    print(f"{'120 ms reply chunk':34} {'before: per 20 ms, c10':>24} {'now: OpusEncoder':>20} {'ratio':>7}")
    for name, chunk_list in (("speech-like", chunks), ("digital silence", [silence])):
        print(row(name, chunk_list, args.seconds))
    mic = opus_packets()
    decoder = OpusDecoder()
    decode = cpu_per_call(lambda i: decoder.decode(mic[i % len(mic)]), args.seconds)
    print(f"{'microphone: 120 ms packet decoded':34} {'':>24} {decode[0]:7.3f} ms to 16 kHz PCM")
    return 0


if __name__ == "__main__":
    sys.exit(main())
