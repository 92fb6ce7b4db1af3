"""Bytes on the doctor's link for one live consultation, measured in Chromium at the socket.

    .venv/bin/python ops/bench/live_bandwidth_browser.py [--seconds 30] [--modes opus,pcm,...]

What runs: the API (one uvicorn worker, throwaway database, as every benchmark here), the Gemini
wire double (ops/devtools/cara_doubles) in this process, and the project's TCP proxy
(`cara_devstack.netshape`, no shaping) between Chromium and the API, which counts the bytes each
way: HTTP, WebSocket framing and permessage-deflate included, TCP/IP headers not. Chromium
(ops/bench/live_bandwidth_browser.mjs, playwright-core) opens the radiologist's console, gives
consent and connects; its fake microphone plays sentences spoken by Debian's `espeak-ng`, each
followed by as long a silence (the doctor speaks half of the time). The double replies with
espeak-ng speech as well (24 kHz PCM in 0.2 s chunks, streamed in real time, with its transcript
text): 4 s of speech then 4 s of listening, so Cara also speaks half of the time.

Modes (each a fresh browser context and consultation, `--warmup` s, then `--seconds` counted):
* opus: WebCodecs Opus both ways in binary frames (what Chromium negotiates);
* pcm: WebCodecs hidden from the page, so the console negotiates the fallback, base64 PCM in JSON;
* opus-camera: Opus with Chromium's fake camera on (its picture changes every frame);
* opus-camera-low: the same in low-bandwidth mode (switched on in the tray, camera turned on again).
Targets (issue 17): audio <= 32 kb/s up and <= 48 kb/s down.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import wave
from pathlib import Path

from _common import DOCTOR_PASSWORD, ApiServer, Summary, create_doctors, log, run_bench
from live_bandwidth import SENTENCES, resample, speech

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "ops" / "devtools"))

from cara_devstack.netshape import NetShaper  # noqa: E402
from cara_doubles.gemini import GeminiDouble  # noqa: E402

SCRIPT = Path(__file__).with_suffix(".mjs")
MODES = {
    "opus": {"pcm": False, "camera": False, "low": False},
    "pcm": {"pcm": True, "camera": False, "low": False},
    "opus-camera": {"pcm": False, "camera": True, "low": False},
    "opus-camera-low": {"pcm": False, "camera": True, "low": True},
}
UP_TARGET, DOWN_TARGET = 32.0, 48.0
REPLY_SECONDS, LISTEN_SECONDS, CHUNK_SECONDS = 4.0, 4.0, 0.2
CARA_RATE = 24_000


def microphone_wav(work: Path) -> Path:
    """The fake microphone's file: each sentence, then a silence as long (Chromium loops it)."""
    frames = bytearray()
    rate = 16_000
    for index, sentence in enumerate(SENTENCES):
        wav = work / f"mic{index}.wav"
        subprocess.run(["espeak-ng", "-s", "150", "-w", str(wav), sentence], check=True, capture_output=True)
        pcm = resample(wav, rate)
        frames += pcm + bytes(len(pcm))
    out = work / "microphone.wav"
    with wave.open(str(out), "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(rate)
        file.writeframes(bytes(frames))
    return out


def doctor_email(account_id: uuid.UUID) -> str:
    from cara.kit.db import platform_session
    from cara.models import Account

    session = platform_session()
    try:
        account = session.get(Account, account_id)
        assert account is not None
        return str(account.email)
    finally:
        session.close()


class Replies:
    """Cara speaks on the double's newest Live session: REPLY_SECONDS of speech, then listens."""

    def __init__(self, double: GeminiDouble, pcm: bytes) -> None:
        self.double = double
        self.pcm = pcm
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="replies", daemon=True)

    def __enter__(self) -> Replies:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.thread.join(10)

    def _run(self) -> None:
        step = int(CHUNK_SECONDS * CARA_RATE) * 2
        reply = int(REPLY_SECONDS * CARA_RATE) * 2
        offset = 0
        turn = 0
        while not self.stopped.is_set():
            sessions = [s for s in self.double.sessions if not s.closed.is_set()]
            if not sessions:
                self.stopped.wait(0.5)
                continue
            session = sessions[-1]
            try:
                # 'Hey Cara' wakes the assistant: asleep, the relay holds its replies back.
                heard = f"Hey Cara, {SENTENCES[turn % len(SENTENCES)]}"
                said = SENTENCES[(turn + 3) % len(SENTENCES)]
                session.send_input_transcription(heard)
                session.send_output_transcription(said)
                started = time.monotonic()
                for index in range(reply // step):
                    start = (offset + index * step) % (len(self.pcm) - step)
                    session.send_audio(self.pcm[start : start + step])
                    delay = started + (index + 1) * CHUNK_SECONDS - time.monotonic()
                    if delay > 0 and self.stopped.wait(delay):
                        return
                session.send_turn_complete()
            except Exception:  # the session closed between modes: the next one takes over
                self.stopped.wait(0.5)
                continue
            offset = (offset + reply) % len(self.pcm)
            turn += 1
            self.stopped.wait(LISTEN_SECONDS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="counted seconds per mode")
    parser.add_argument("--warmup", type=float, default=4.0, help="seconds before the counters are zeroed")
    parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(MODES)}")
    args = parser.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    unknown = set(modes) - set(MODES)
    if unknown:
        parser.error(f"unknown modes: {sorted(unknown)}")
    for tool, hint in (("espeak-ng", "apt-get install espeak-ng"), ("node", "Node.js")):
        if shutil.which(tool) is None:
            print(f"{tool} is missing ({hint}; ops/lib/bootstrap.sh installs it)", file=sys.stderr)
            return 2
    if not Path("/usr/bin/chromium").exists() or not (REPO / "web" / "dist" / "index.html").exists():
        print("needs /usr/bin/chromium and a built web/ (npm run build in web/)", file=sys.stderr)
        return 2

    summary = Summary()
    work = Path(tempfile.mkdtemp(prefix="cara-bandwidth-"))
    double = GeminiDouble(record=False).start()
    try:
        mic = microphone_wav(work)
        cara = speech(CARA_RATE, 60.0, work)

        def body(api: ApiServer) -> None:
            doctor = create_doctors([None])[0]  # doctor 0: a Radiologist
            email = doctor_email(doctor.account_id)
            proxy = NetShaper(target_port=api.port).start_in_thread(control=True)
            try:
                with Replies(double, cara):
                    env = {
                        **os.environ,
                        "BASE_URL": f"http://127.0.0.1:{proxy.listen_port}",
                        "SHAPER_URL": f"http://127.0.0.1:{proxy.control_port}",
                        "EMAIL": email,
                        "PASSWORD": DOCTOR_PASSWORD,
                        "MODES": json.dumps([{"name": m, **MODES[m]} for m in modes]),
                        "SECONDS": str(args.seconds),
                        "WARMUP": str(args.warmup),
                        "CHROMIUM_ARGS": json.dumps([f"--use-file-for-fake-audio-capture={mic}"]),
                    }
                    log(f"Chromium: {', '.join(modes)}, {args.seconds:.0f} s each")
                    result = subprocess.run(
                        ["node", str(SCRIPT)],
                        env=env,
                        cwd=REPO,
                        capture_output=True,
                        text=True,
                        timeout=120 + len(modes) * (args.seconds + args.warmup + 60),
                        check=False,
                    )
            finally:
                proxy.stop()
            if result.returncode != 0:
                output = f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
                raise RuntimeError(f"browser script failed:\n{output}")
            for line in result.stdout.splitlines():
                if not line.startswith("{"):
                    continue
                row = json.loads(line)
                up = row["bytesUp"] * 8 / 1000 / row["seconds"]
                down = row["bytesDown"] * 8 / 1000 / row["seconds"]
                name = f"{row['mode']} (negotiated {row['audio']})"
                if not row["connected"]:
                    name += " DISCONNECTED"
                summary.add(
                    f"{name} up",
                    f"{up:.1f} kb/s ({row['bytesUp'] / row['seconds'] * 60 / 1e6:.2f} MB/min)"
                    + (f", {row['videoFrames']} frames" if MODES[row["mode"]]["camera"] else ""),
                    f"<= {UP_TARGET:.0f} kb/s" if row["mode"] == "opus" else "",
                    up <= UP_TARGET if row["mode"] == "opus" else None,
                )
                summary.add(
                    f"{name} down",
                    f"{down:.1f} kb/s ({row['bytesDown'] / row['seconds'] * 60 / 1e6:.2f} MB/min)",
                    f"<= {DOWN_TARGET:.0f} kb/s" if row["mode"] == "opus" else "",
                    down <= DOWN_TARGET if row["mode"] == "opus" else None,
                )

        plan = f"{', '.join(modes)}; {args.seconds:.0f} s each in Chromium"
        return run_bench(plan, summary, body, env={**double.settings(), "CARA_DEMO_AI": "true"})
    finally:
        double.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
