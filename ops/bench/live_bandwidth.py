"""Bytes per minute on the doctor's link for one live consultation: base64 PCM in JSON vs Opus.

    .venv/bin/python ops/bench/live_bandwidth.py [--minutes 1] [--jpeg-kb 30] [--frame-every 2]

Real speech: sentences spoken by Debian's `espeak-ng` (WAV), resampled to the microphone's 16 kHz
and to Cara's 24 kHz. One minute of consultation: the doctor speaks half of it, Cara replies the
other half. Each mode's frames are built exactly as the protocol (cara.live.messages) carries them,
with the codecs the relay runs (cara.live.opus, PyAV/libopus at 24 kb/s each way), and counted as
WebSocket bytes: payload plus frame header (client frames masked), before TCP/IP and TLS, without
permessage-deflate (which barely shrinks base64 audio: 168-224 kb/s measured from 343 in Chromium).

Modes:
* PCM-JSON, every chunk: today's console before the silence gate (2048 samples, 8 a second, silence
  included) and Cara's 24 kHz PCM as base64 `audio` messages;
* PCM-JSON, silence not sent: the same frames, only while the doctor speaks;
* Opus: binary frames, only while someone speaks; each a packet of up to 120 ms (the 20 ms frames
  the encoder completes from the audio given to it, packed together as the relay does).
Heartbeat (ping/pong each second) is counted in every mode. With `--jpeg-kb`, camera frames
(base64 JPEG in JSON, one every `--frame-every` s while the picture changes) are added to the
up figure: the JPEG size is an assumption given on the command line, not measured here.
Targets (issue 17): audio <= 32 kb/s up and <= 48 kb/s down.
"""

from __future__ import annotations

import argparse
import base64
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "platform"))

import av  # noqa: E402

from cara.live.opus import OpusEncoder  # noqa: E402

SENTENCES = [
    "The patient is a sixty two year old man with chest pain on exertion for three weeks.",
    "Blood pressure one hundred and fifty over ninety five, pulse seventy two and regular.",
    "He smokes ten cigarettes a day and takes no regular medication.",
    "The electrocardiogram shows sinus rhythm with no acute changes.",
    "What would you suggest as the next investigation in a district hospital?",
    "Troponin is normal, and the chest radiograph is clear.",
]
MIC_RATE = 16_000
CARA_RATE = 24_000
CHUNK_SAMPLES = 2048  # the console's microphone chunk


def ws_bytes(payload: int, *, masked: bool) -> int:
    """Bytes on the wire of one WebSocket frame (header + mask + payload)."""
    header = 2 if payload < 126 else 4 if payload < 65_536 else 10
    return header + (4 if masked else 0) + payload


def speech(rate: int, seconds: float, work: Path) -> bytes:
    """`seconds` of espeak-ng speech, PCM16LE mono at `rate` (sentences repeated as needed)."""
    wanted = int(seconds * rate) * 2
    out = b""
    index = 0
    while len(out) < wanted:
        wav = work / f"s{index % len(SENTENCES)}.wav"
        if not wav.exists():
            subprocess.run(["espeak-ng", "-w", str(wav), SENTENCES[index % len(SENTENCES)]], check=True)
        out += resample(wav, rate)
        index += 1
    return out[:wanted]


def resample(wav: Path, rate: int) -> bytes:
    pcm = bytearray()
    resampler = av.AudioResampler(format="s16", layout="mono", rate=rate)
    with av.open(str(wav)) as container:
        for frame in container.decode(audio=0):
            for out in resampler.resample(frame):
                pcm += bytes(out.planes[0])[: out.samples * 2]
    for out in resampler.resample(None):
        pcm += bytes(out.planes[0])[: out.samples * 2]
    return bytes(pcm)


def json_audio_up(pcm: bytes) -> int:
    total = 0
    for start in range(0, len(pcm), CHUNK_SAMPLES * 2):
        chunk = pcm[start : start + CHUNK_SAMPLES * 2]
        frame = json.dumps({"type": "audio", "data": base64.b64encode(chunk).decode()}, separators=(",", ":"))
        total += ws_bytes(len(frame), masked=True)
    return total


def json_audio_down(pcm: bytes, chunk_seconds: float = 0.1) -> int:
    total = 0
    step = int(CARA_RATE * chunk_seconds) * 2
    for start in range(0, len(pcm), step):
        data = base64.b64encode(pcm[start : start + step]).decode()
        frame = f'{{"type":"audio","data":"{data}","mimeType":"audio/pcm;rate=24000"}}'
        total += ws_bytes(len(frame), masked=False)
    return total


def opus_bytes(pcm: bytes, rate: int, *, masked: bool) -> int:
    encoder = OpusEncoder(rate=rate)
    packets = encoder.encode(pcm) + encoder.flush()
    return sum(ws_bytes(len(p), masked=masked) for p in packets)


def heartbeat(seconds: float) -> tuple[int, int]:
    ping = len('{"type":"ping","at":1234567890}')
    pong = len('{"type":"pong","at":1234567890}')
    return int(seconds) * ws_bytes(pong, masked=True), int(seconds) * ws_bytes(ping, masked=False)


def transcoding_cost(doctor: bytes, cara: bytes) -> None:
    """CPU of the relay's transcoding per consultation (one process, one core): every microphone
    packet decoded and Cara's speech encoded 20 ms at a time, timed one by one."""
    import time

    from cara.live.opus import OpusDecoder, packet_ms

    mic = OpusEncoder(rate=MIC_RATE)
    packets = mic.encode(doctor) + mic.flush()
    decoder = OpusDecoder()
    encoder = OpusEncoder()
    step = CARA_RATE // 50 * 2
    chunks = [cara[i : i + step] for i in range(0, len(cara), step)]
    decode_times: list[float] = []
    encode_times: list[float] = []
    cpu = time.process_time()
    for packet in packets:
        start = time.perf_counter()
        decoder.decode(packet)
        decode_times.append(time.perf_counter() - start)
    for chunk in chunks:
        start = time.perf_counter()
        encoder.encode(chunk)
        encode_times.append(time.perf_counter() - start)
    cpu = time.process_time() - cpu
    audio_seconds = sum(map(packet_ms, packets)) / 1000 + len(chunks) * 0.02

    def p99(values: list[float]) -> float:
        return sorted(values)[int(len(values) * 0.99)] * 1000

    def p50(values: list[float]) -> float:
        return sorted(values)[len(values) // 2] * 1000

    # While one side speaks, the relay transcodes that side's audio for that consultation.
    per_session = cpu / audio_seconds
    print()
    print("Transcoding on the relay (one consultation, while someone speaks):")
    print(f"  decode up: p50 {p50(decode_times):.3f} ms, p99 {p99(decode_times):.3f} ms")
    print(f"  encode down: p50 {p50(encode_times):.3f} ms, p99 {p99(encode_times):.3f} ms")
    print(f"  CPU: {per_session * 100:.2f}% of a core per speaking consultation")
    for sessions in (100, 200):
        print(f"  {sessions} consultations all speaking: {per_session * sessions:.2f} cores")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--jpeg-kb", type=float, default=30.0, help="size of one camera JPEG (assumed)")
    parser.add_argument("--frame-every", type=float, default=2.0, help="seconds between camera frames")
    args = parser.parse_args()
    if shutil.which("espeak-ng") is None:
        sys.exit("espeak-ng is needed (apt-get install espeak-ng; ./ops/test installs it)")
    seconds = 60.0 * args.minutes
    half = seconds / 2
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        doctor = speech(MIC_RATE, half, work)
        cara = speech(CARA_RATE, half, work)
    silence = b"\x00\x00" * int(MIC_RATE * half)
    pong_up, ping_down = heartbeat(seconds)

    modes = {
        "PCM-JSON, every chunk": (json_audio_up(doctor + silence), json_audio_down(cara)),
        "PCM-JSON, silence not sent": (json_audio_up(doctor), json_audio_down(cara)),
        "Opus (binary frames)": (
            opus_bytes(doctor, MIC_RATE, masked=True),
            opus_bytes(cara, CARA_RATE, masked=False),
        ),
    }
    jpeg = int(args.jpeg_kb * 1024)
    frames = int(seconds / args.frame_every)
    camera = frames * ws_bytes(len('{"type":"video","data":""}') + (jpeg + 2) // 3 * 4, masked=True)

    def kbps(total: int) -> float:
        return total * 8 / seconds / 1000

    print(f"One consultation, {seconds:.0f} s: the doctor speaks {half:.0f} s (espeak-ng), Cara {half:.0f} s")
    print(f"{'mode':32} {'up kB/min':>10} {'up kb/s':>8} {'down kB/min':>12} {'down kb/s':>9}")
    for name, (up, down) in modes.items():
        up += pong_up
        down += ping_down
        print(
            f"{name:32} {up / 1024 / args.minutes:10.1f} {kbps(up):8.1f} "
            f"{down / 1024 / args.minutes:12.1f} {kbps(down):9.1f}"
        )
    up_opus = modes["Opus (binary frames)"][0] + pong_up
    print(
        f"{'Opus + camera (assumed JPEG)':32} {(up_opus + camera) / 1024 / args.minutes:10.1f} "
        f"{kbps(up_opus + camera):8.1f}   ({frames} frames of {args.jpeg_kb:.0f} kB, base64 in JSON)"
    )
    down_opus = modes["Opus (binary frames)"][1] + ping_down
    verdict = "met" if kbps(up_opus) <= 32 and kbps(down_opus) <= 48 else "MISSED"
    print(f"Targets for audio (<= 32 kb/s up, <= 48 kb/s down) with Opus: {verdict}")
    transcoding_cost(doctor, cara)


if __name__ == "__main__":
    main()
