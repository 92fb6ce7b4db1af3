"""Live relay overhead: S concurrent consultations, each streaming 8 audio chunks a second both ways.

    .venv/bin/python ops/bench/live_relay.py [--sessions 200] [--duration 15] [--quick] [--opus]

Prints figures only; the budget (added latency p99 < 2 ms) is printed next to them.

Path measured: a 'browser' (websockets client, JSON frames as the web console sends them)
-> the API on uvicorn (/api/live, the real relay: auth, consultation row, google-genai SDK)
-> the Gemini double over TLS (cara_doubles.gemini, in its own process) and back. Every
microphone chunk (2048 samples, 4 KiB of PCM) carries its send time in its first bytes; the
double answers each with a 24 kHz reply chunk that carries the three times (browser sent,
double received, double replied). The one-way latencies are:

    up   = double received - browser sent          (browser -> relay -> double)
    down = browser received - double replied       (double -> relay -> browser)

All processes run on this machine, so time.perf_counter_ns (CLOCK_MONOTONIC) is one clock.

The same load is then sent straight to the double (the browsers speak its protocol over TLS, no
relay): what remains without the relay. 'Added' is the relay path's percentile minus the direct
path's. CPU per session is the relay process's CPU seconds over the measured window, divided by
the sessions (as a share of one core). The client, the double, the relay and PostgreSQL share the
machine's cores; the run prints how busy each kept them.

With --opus, a third phase speaks Opus to the relay, as consoles with WebCodecs do: each 'browser'
sends 120 ms Opus packets (16 kHz, 20 kb/s, binary frames, `"audio": "opus"` in the first frame),
which the relay decodes to 16 kHz PCM for the double; the double answers each with 120 ms of 24 kHz
PCM of speech-like sound, which the relay encodes into six 20 ms Opus frames, sent as the packets
it makes of them (one of 120 ms). Opus is lossy, so no time can ride in the audio: the browser keeps
each packet's send time and takes a reply as complete once 120 ms of Opus have come for it (the
relay answers every packet in order). Only the round trip is measured that way, so every phase
also prints its round trip (browser sent -> reply complete), and the Opus phase's added round trip
is compared with both directions' budgets together (< 4 ms). CPU per session is printed for it too.

With --pin, the relay (the API process and every thread it has or makes) runs on CPU 1 only and
the load generator (this process: the browsers) and the double on CPU 0 only, so the generator
cannot take the relay's core; PostgreSQL, Redis and whatever else runs on the machine are not
pinned. The output says which, and each phase prints the machine's load average as it starts.

Servers: BENCH_DATABASE_URL / BENCH_REDIS_URL as for foundation.py; a throwaway database.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import random
import signal
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import urlsplit

from _common import (
    REPO,
    ApiServer,
    LatencyStats,
    Summary,
    create_doctors,
    log,
    machine_busy_seconds,
    percentile,
    process_cpu_seconds,
    run_bench,
)

BUDGET_P99_MS = 2.0
# A direct path (no relay) slower than this at p99 means other work competed for the cores.
BUSY_DIRECT_P99_MS = 5.0
CHUNK_BYTES = 4096  # 2048 samples of 16-bit audio at 16 kHz: 128 ms, 8 a second (spec §9)
CHUNKS_PER_SECOND = 8
REPLY_BYTES = 6144  # 128 ms of 24 kHz reply audio
# Opus phase: the browser's 120 ms packets (as web/src/features/consoles/audio/opus.ts encodes them),
# answered with 120 ms of 24 kHz PCM, which the relay encodes into Opus (six 20 ms frames).
OPUS_UP_RATE = 16_000
OPUS_UP_BIT_RATE = 20_000
OPUS_UP_SAMPLES = OPUS_UP_RATE * 120 // 1000
OPUS_REPLY_RATE = 24_000
OPUS_REPLY_MS = 120
OPUS_REPLY_BYTES = OPUS_REPLY_RATE * OPUS_REPLY_MS // 1000 * 2
# The first frame after `connected` in the Opus phase (a typed text the relay passes on): tells the
# double which browser a connection serves, for one-way times (none can ride in lossy audio).
OPUS_HELLO = "bench session "
# Browser -> double: session, sequence number, send time.
UP_HEADER = struct.Struct("<IIq")
# Double -> browser: session, sequence, browser sent, double received, double replied.
DOWN_HEADER = struct.Struct("<IIqqq")
LIVE_PATH = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"
API_KEY = "bench-gemini-key"


# ------------------------------------------------------------------ the double's side (child process)


def serve_double(port: int, tls_dir: Path) -> None:
    """The Gemini double with an echo peer: one timed reply per microphone chunk."""
    from cara_doubles.gemini import GeminiDouble, LiveBehaviour, LiveSession, TlsFiles, server_audio

    # Cara's speech for the Opus phase: 3 s of a speech-like sound in 120 ms replies, in turn.
    speech = speech_like(OPUS_REPLY_RATE, 3.0)
    replies = [speech[i : i + OPUS_REPLY_BYTES] for i in range(0, len(speech), OPUS_REPLY_BYTES)]
    turn = iter(range(1 << 62))
    # Opus phase: which browser each connection serves (its first typed text says), and the double's
    # receive and reply times of each audio message, in order (the relay sends one per packet).
    bench_ids: dict[int, int] = {}
    timings: dict[int, list[tuple[int, int]]] = {}

    class EchoPeer(LiveBehaviour):
        async def on_message(self, session: LiveSession, message: dict[str, Any]) -> None:
            received = time.perf_counter_ns()
            realtime = message.get("realtimeInput") or {}
            text = realtime.get("text")
            if isinstance(text, str) and text.startswith(OPUS_HELLO):
                bench_ids[session.index] = int(text.removeprefix(OPUS_HELLO))
                return
            audio = realtime.get("audio")
            if not audio:
                return
            data = str(audio["data"]).replace("-", "+").replace("_", "/")
            if len(data) != (CHUNK_BYTES + 2) // 3 * 4:
                # PCM the relay decoded from Opus (no header survives a lossy codec): 120 ms back.
                reply = server_audio(replies[next(turn) % len(replies)])
                if session.index in bench_ids:
                    timings.setdefault(bench_ids[session.index], []).append(
                        (received, time.perf_counter_ns())
                    )
                await session.asend(reply)
                return
            head = base64.b64decode(data[:24])  # the header only: 18 bytes of 4096
            session_id, seq, sent = UP_HEADER.unpack_from(head)
            reply = bytearray(REPLY_BYTES)
            DOWN_HEADER.pack_into(reply, 0, session_id, seq, sent, received, time.perf_counter_ns())
            await session.asend(server_audio(bytes(reply)))

    tls = TlsFiles(ca_file=tls_dir / "ca.pem", cert_file=tls_dir / "server.pem")
    double = GeminiDouble(api_key=API_KEY, port=port, tls=tls, behaviour=EchoPeer(), record=False).start()
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())

    def commands() -> None:
        # "timings PATH": the Opus phase's times so far, as JSON, then "ok"; end of input: stop.
        for line in sys.stdin:
            command, _, path = line.strip().partition(" ")
            if command == "timings":
                Path(path).write_text(json.dumps({str(k): v for k, v in list(timings.items())}))
                timings.clear()
                bench_ids.clear()
                print("ok", flush=True)
        stop.set()

    threading.Thread(target=commands, daemon=True).start()
    print("ready", flush=True)
    stop.wait()
    double.stop()


# ------------------------------------------------------------------ the browsers


@dataclass
class Samples:
    up: list[float] = field(default_factory=list)
    down: list[float] = field(default_factory=list)
    round_trip: list[float] = field(default_factory=list)
    sent: int = 0
    received: int = 0
    errors: list[str] = field(default_factory=list)
    # Opus phase, per browser: each packet's send time and when its reply was complete.
    opus_sent: dict[int, list[int]] = field(default_factory=dict)
    opus_done: dict[int, list[int]] = field(default_factory=dict)


@dataclass
class Window:
    start: float
    end: float

    def holds(self, t_ns: int) -> bool:
        return self.start <= t_ns / 1e9 <= self.end


def _chunk(session_id: int, seq: int) -> bytes:
    pcm = bytearray(CHUNK_BYTES)
    UP_HEADER.pack_into(pcm, 0, session_id, seq, time.perf_counter_ns())
    return bytes(pcm)


def _record(samples: Samples, window: Window, reply: bytes) -> None:
    _, _, sent, got, replied = DOWN_HEADER.unpack_from(reply)
    now = time.perf_counter_ns()
    samples.received += 1
    if window.holds(sent):
        samples.up.append((got - sent) / 1e9)
        samples.down.append((now - replied) / 1e9)
        samples.round_trip.append((now - sent) / 1e9)


async def _stream(send: Any, frame: Any, session_id: int, window: Window, samples: Samples) -> None:
    """8 chunks a second from a random phase until the window ends."""
    await asyncio.sleep(random.random() / CHUNKS_PER_SECOND)  # spread the sessions' phases
    period = 1 / CHUNKS_PER_SECOND
    due = time.perf_counter()
    seq = 0
    while time.perf_counter() < window.end:
        await send(frame(_chunk(session_id, seq)))
        samples.sent += 1
        seq += 1
        due += period
        await asyncio.sleep(max(0.0, due - time.perf_counter()))


_STARTING: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}


async def start_consultation(ws_url: str, token: str) -> str:
    """POST /api/consultations (the patient's consent) as the console does before it connects."""
    import httpx

    parts = urlsplit(ws_url)
    # A few at a time (one semaphore per phase's event loop): a burst of one per session would
    # exhaust the API's database pool.
    starting = _STARTING.setdefault(asyncio.get_running_loop(), asyncio.Semaphore(4))
    async with starting, httpx.AsyncClient(base_url=f"http://{parts.netloc}", timeout=60) as http:
        response = await http.post(
            "/api/consultations",
            json={"console": "generic", "consent": True},
            headers={"Authorization": f"Bearer {token}"},
        )
    response.raise_for_status()
    return str(response.json()["id"])


async def relay_browser(
    url: str, token: str, session_id: int, window: Window, samples: Samples, *, deflate: bool
) -> None:
    import websockets

    # Browsers offer permessage-deflate and uvicorn accepts it: the default, as in production.
    consultation = await start_consultation(url, token)
    async with websockets.connect(url, max_size=None, compression="deflate" if deflate else None) as ws:
        await ws.send(json.dumps({"type": "auth", "token": token, "consultationId": consultation}))
        while True:
            message = json.loads(await ws.recv())
            if message.get("type") == "status" and message.get("state") == "connected":
                break
            if message.get("state") == "error":
                raise RuntimeError(message.get("message"))

        def frame(pcm: bytes) -> str:
            # As the console's JSON.stringify writes it (no spaces).
            data = base64.b64encode(pcm).decode()
            return json.dumps({"type": "audio", "data": data}, separators=(",", ":"))

        async def receive() -> None:
            async for raw in ws:
                message = json.loads(raw)
                if message.get("type") == "audio":
                    _record(samples, window, base64.b64decode(message["data"]))

        receiver = asyncio.create_task(receive())
        await _stream(ws.send, frame, session_id, window, samples)
        await asyncio.sleep(0.5)  # the last replies
        receiver.cancel()


def speech_like(rate: int, seconds: float, seed: int = 7) -> bytes:
    """PCM16LE mono of a speech-like signal: a voiced tone with syllable-rate loudness and some
    noise."""
    import math

    noise = random.Random(seed)
    samples = []
    for n in range(int(rate * seconds)):
        t = n / rate
        loud = 0.5 + 0.5 * math.sin(2 * math.pi * 4 * t)  # about four syllables a second
        voice = math.sin(2 * math.pi * 140 * t) + 0.5 * math.sin(2 * math.pi * 280 * t)
        samples.append(int(6000 * loud * voice + noise.gauss(0, 300)))
    return struct.pack(f"<{len(samples)}h", *samples)


def opus_packets(count: int = 40) -> list[bytes]:
    """`count` Opus packets of 120 ms of a speech-like signal, encoded once and sent over and over
    by every 'browser'."""
    from fractions import Fraction

    import av

    codec = av.CodecContext.create("libopus", "w")
    codec.sample_rate = OPUS_UP_RATE
    codec.layout = "mono"
    codec.format = "s16"
    codec.bit_rate = OPUS_UP_BIT_RATE
    codec.time_base = Fraction(1, OPUS_UP_RATE)
    codec.options = {"frame_duration": "120", "application": "voip"}
    codec.open()
    pcm = speech_like(OPUS_UP_RATE, count * OPUS_UP_SAMPLES / OPUS_UP_RATE)
    packets: list[bytes] = []
    for i in range(count):
        frame = av.AudioFrame(format="s16", layout="mono", samples=OPUS_UP_SAMPLES)
        frame.planes[0].update(pcm[i * OPUS_UP_SAMPLES * 2 : (i + 1) * OPUS_UP_SAMPLES * 2])
        frame.sample_rate = OPUS_UP_RATE
        frame.time_base = Fraction(1, OPUS_UP_RATE)
        frame.pts = i * OPUS_UP_SAMPLES
        packets += [bytes(packet) for packet in codec.encode(frame)]
    return packets


async def opus_browser(
    url: str,
    token: str,
    session_id: int,
    packets: list[bytes],
    window: Window,
    samples: Samples,
    *,
    deflate: bool,
) -> None:
    """A console with WebCodecs: Opus packets up in binary frames, Cara's Opus packets down."""
    import websockets

    consultation = await start_consultation(url, token)
    async with websockets.connect(url, max_size=None, compression="deflate" if deflate else None) as ws:
        await ws.send(
            json.dumps({"type": "auth", "token": token, "consultationId": consultation, "audio": "opus"})
        )
        while True:
            message = json.loads(await ws.recv())
            if message.get("type") == "status" and message.get("state") == "connected":
                break
            if message.get("state") == "error":
                raise RuntimeError(message.get("message"))
        await ws.send(json.dumps({"type": "text", "text": f"{OPUS_HELLO}{session_id}"}))
        sent_at: list[int] = samples.opus_sent.setdefault(session_id, [])
        done_at: list[int] = samples.opus_done.setdefault(session_id, [])

        def frame(_: bytes) -> bytes:
            sent_at.append(time.perf_counter_ns())
            return packets[(len(sent_at) - 1) % len(packets)]

        async def receive() -> None:
            from cara.live.opus import packet_ms

            received_ms, replies = 0.0, 0
            async for raw in ws:
                if not isinstance(raw, bytes):
                    continue
                received_ms += packet_ms(raw)
                # Each 120 ms completes the reply to the packet sent `replies`-th.
                while received_ms >= (replies + 1) * OPUS_REPLY_MS:
                    now = time.perf_counter_ns()
                    sent = sent_at[replies]
                    done_at.append(now)
                    replies += 1
                    samples.received += 1
                    if window.holds(sent):
                        samples.round_trip.append((now - sent) / 1e9)

        receiver = asyncio.create_task(receive())
        await _stream(ws.send, frame, 0, window, samples)
        await asyncio.sleep(0.5)  # the last replies
        receiver.cancel()


async def direct_browser(
    url: str, context: ssl.SSLContext, session_id: int, window: Window, samples: Samples
) -> None:
    """The same load straight to the double, in its own protocol (what the relay sends it)."""
    import websockets

    async with websockets.connect(
        url, ssl=context, additional_headers={"x-goog-api-key": API_KEY}, max_size=None
    ) as ws:
        await ws.send(json.dumps({"setup": {"model": "models/bench"}}))
        await ws.recv()  # setupComplete

        def frame(pcm: bytes) -> str:
            data = base64.b64encode(pcm).decode()
            return json.dumps(
                {"realtime_input": {"audio": {"data": data, "mimeType": "audio/pcm;rate=16000"}}}
            )

        async def receive() -> None:
            async for raw in ws:
                message = json.loads(raw)
                part = message["serverContent"]["modelTurn"]["parts"][0]
                _record(samples, window, base64.b64decode(part["inlineData"]["data"]))

        receiver = asyncio.create_task(receive())
        await _stream(ws.send, frame, session_id, window, samples)
        await asyncio.sleep(0.5)
        receiver.cancel()


async def run_load(make: Any, sessions: int, warmup: float, duration: float) -> tuple[Samples, Window]:
    samples = Samples()
    now = time.perf_counter()
    ramp = min(10.0, sessions / 40)  # connect 40 a second
    window = Window(start=now + ramp + warmup, end=now + ramp + warmup + duration)

    async def one(i: int) -> None:
        await asyncio.sleep(ramp * i / sessions)
        try:
            await make(i, window, samples)
        except Exception as exc:
            samples.errors.append(f"{type(exc).__name__}: {exc}")

    await asyncio.gather(*(one(i) for i in range(sessions)))
    return samples, window


# ------------------------------------------------------------------ the benchmark


@dataclass
class Phase:
    name: str
    samples: Samples
    relay_cpu: float
    double_cpu: float
    client_cpu: float
    machine: float
    seconds: float
    window: Window


def family_cpu_seconds(pid: int | None) -> float:
    """CPU of `pid` and its children (uvicorn --workers N forks one process per worker)."""
    if pid is None:
        return 0.0
    total = process_cpu_seconds(pid)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                total += process_cpu_seconds(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return total


def pin(pid: int, cpus: set[int]) -> None:
    """Every thread of `pid` and of its child processes onto `cpus` (threads made later inherit
    their maker's set). sched_setaffinity acts on one thread: each is set by its id."""
    pids = [pid]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                pids.append(int(stat.parent.name))
    for process in pids:
        for task in Path(f"/proc/{process}/task").iterdir():
            with contextlib.suppress(OSError):  # a thread that just ended
                os.sched_setaffinity(int(task.name), cpus)


@contextlib.contextmanager
def api_workers(count: int) -> Iterator[None]:
    """Start the API with `count` uvicorn worker processes instead of _common's one."""
    from cara_devstack import embedded

    original = embedded.spawn

    def spawn(argv: list[str], **options: Any) -> Any:
        argv = list(argv)
        if "cara.main:app" in argv and "--workers" in argv:
            argv[argv.index("--workers") + 1] = str(count)
        return original(argv, **options)

    with mock.patch.object(embedded, "spawn", spawn):
        yield


def measure(name: str, load: Any, relay_pid: int | None, double_pid: int) -> Phase:
    log(f"{name}: load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min)")
    cpu_before = (family_cpu_seconds(relay_pid), process_cpu_seconds(double_pid))
    client_before = time.process_time()
    machine_before = machine_busy_seconds()
    started = time.perf_counter()
    samples, window = asyncio.run(load())
    seconds = time.perf_counter() - started
    phase = Phase(
        name=name,
        samples=samples,
        relay_cpu=family_cpu_seconds(relay_pid) - cpu_before[0],
        double_cpu=process_cpu_seconds(double_pid) - cpu_before[1],
        client_cpu=time.process_time() - client_before,
        machine=machine_busy_seconds() - machine_before,
        seconds=seconds,
        window=window,
    )
    up, down = LatencyStats.of(samples.up), LatencyStats.of(samples.down)
    log(f"{name}: sent {samples.sent}, replies {samples.received}, errors {len(samples.errors)}")
    if samples.up:
        log(f"{name}: up   {up.line()}")
        log(f"{name}: down {down.line()}")
    log(f"{name}: round trip {LatencyStats.of(samples.round_trip).line()}")
    log(
        f"{name}: cores busy over {seconds:.0f} s: relay {phase.relay_cpu / seconds:.2f}, double"
        f" {phase.double_cpu / seconds:.2f}, client {phase.client_cpu / seconds:.2f},"
        f" whole machine {phase.machine / seconds:.2f}"
    )
    for error in samples.errors[:5]:
        log(f"{name}: error {error}")
    return phase


def opus_one_way(phase: Phase, double: DoubleProcess) -> None:
    """The Opus phase's one-way times: the double's receive and reply times of each browser's n-th
    audio message (asked of the double's process), against the browser's n-th packet sent and n-th
    reply completed."""
    assert double.process.stdin is not None and double.process.stdout is not None
    with tempfile.NamedTemporaryFile(suffix=".json") as dump:
        double.process.stdin.write(f"timings {dump.name}\n")
        double.process.stdin.flush()
        if double.process.stdout.readline().strip() != "ok":
            raise RuntimeError("the Gemini double did not give its timings")
        timings = json.loads(Path(dump.name).read_text())
    samples, window = phase.samples, phase.window
    unmatched = 0
    for session, sent_at in samples.opus_sent.items():
        at_double = timings.get(str(session), [])
        done_at = samples.opus_done.get(session, [])
        unmatched += abs(len(at_double) - len(done_at))
        for sent, (got, replied), done in zip(sent_at, at_double, done_at, strict=False):
            if window.holds(sent):
                samples.up.append((got - sent) / 1e9)
                samples.down.append((done - replied) / 1e9)
    log(f"{phase.name}: up   {LatencyStats.of(samples.up).line()}")
    log(f"{phase.name}: down {LatencyStats.of(samples.down).line()}")
    log(f"{phase.name}: replies at the double and at the browsers differ by {unmatched} (in flight)")


@dataclass
class DoubleProcess:
    """The Gemini double running in a process of its own, and how to reach it."""

    process: subprocess.Popen[str]
    port: int
    ca_file: Path

    @property
    def settings(self) -> dict[str, str]:
        """The environment that points Cara at the double."""
        return {
            "GEMINI_API_KEY": API_KEY,
            "GEMINI_BASE_URL": f"https://127.0.0.1:{self.port}",
            "GEMINI_CA_FILE": str(self.ca_file),
        }


@contextlib.contextmanager
def gemini_double(script: str = __file__, *, commands: bool = False) -> Iterator[DoubleProcess]:
    """Run `script --serve-double PORT --tls-dir DIR` (the script's own double) until the block ends.

    The child prints "ready" once it listens. With `commands`, its stdin is a pipe the script may
    talk to; closing it is the child's cue to stop, before SIGTERM is.
    """
    from cara_devstack import embedded
    from cara_doubles.gemini import write_tls_files

    tls_dir = Path(tempfile.mkdtemp(prefix="cara-bench-gemini-"))
    tls = write_tls_files(tls_dir)
    port = embedded.free_port()
    process = subprocess.Popen(
        [sys.executable, script, "--serve-double", str(port), "--tls-dir", str(tls_dir)],
        cwd=REPO,
        stdin=subprocess.PIPE if commands else None,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    try:
        if process.stdout.readline().strip() != "ready":
            raise RuntimeError("the Gemini double did not start")
        yield DoubleProcess(process, port, tls.ca_file)
    finally:
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        else:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for name in ("ca.pem", "server.pem"):
            (tls_dir / name).unlink(missing_ok=True)
        os.rmdir(tls_dir)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--duration", type=float, default=15.0, help="measured seconds per phase")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--quick", action="store_true", help="50 sessions, 5 s")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes of the API")
    parser.add_argument(
        "--no-deflate",
        action="store_true",
        help="browsers do not offer permessage-deflate (what the relay costs without compressing frames)",
    )
    parser.add_argument(
        "--opus",
        action="store_true",
        help="a third phase with Opus both ways (the relay transcodes), as WebCodecs consoles speak",
    )
    parser.add_argument(
        "--opus-threads",
        type=int,
        default=None,
        help="the relay's LIVE_OPUS_THREADS (threads per direction; 0: transcode on the event loop)",
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="the relay on CPU 1, the browsers and the double on CPU 0 (the generator cannot take"
        " the relay's core)",
    )
    parser.add_argument("--serve-double", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--tls-dir", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_double is not None:
        serve_double(args.serve_double, args.tls_dir)
        return 0
    if args.quick:
        args.sessions, args.duration = 50, 5.0

    with gemini_double(commands=True) as double:
        return _run(args, double)


def _run(args: argparse.Namespace, double: DoubleProcess) -> int:
    summary = Summary()
    port, env = double.port, double.settings
    if args.opus_threads is not None:
        env = {**env, "LIVE_OPUS_THREADS": str(args.opus_threads)}

    def body(api: ApiServer) -> None:
        if args.pin:
            pin(api.process.pid, {1})
            pin(double.process.pid, {0})
            pin(os.getpid(), {0})
            pinning = "relay: CPU 1; browsers and double: CPU 0; databases unpinned"
        else:
            pinning = "none (the scheduler's choice; --pin)"
        summary.add("CPU pinning", pinning)
        log(f"CPU pinning: {pinning}")
        log(f"creating {args.sessions} doctors")
        doctors = create_doctors([None] * args.sessions)
        url = api.base_url.replace("http://", "ws://") + "/api/live?specialty=generic"
        context = ssl.create_default_context(cafile=str(double.ca_file))
        direct_url = f"wss://127.0.0.1:{port}{LIVE_PATH}"

        def via_relay() -> Any:
            async def make(i: int, window: Window, samples: Samples) -> None:
                await relay_browser(url, doctors[i].token, i, window, samples, deflate=not args.no_deflate)

            return run_load(make, args.sessions, args.warmup, args.duration)

        def direct() -> Any:
            async def make(i: int, window: Window, samples: Samples) -> None:
                await direct_browser(direct_url, context, i, window, samples)

            return run_load(make, args.sessions, args.warmup, args.duration)

        packets = opus_packets() if args.opus else []

        def via_relay_opus() -> Any:
            async def make(i: int, window: Window, samples: Samples) -> None:
                await opus_browser(
                    url, doctors[i].token, i, packets, window, samples, deflate=not args.no_deflate
                )

            return run_load(make, args.sessions, args.warmup, args.duration)

        load = f"{args.sessions} sessions x {CHUNKS_PER_SECOND} chunks/s, {args.duration:.0f} s"
        log(f"direct to the double: {load}")
        base = measure("direct", direct, None, double.process.pid)
        log(f"through the relay: {load}")
        relay = measure("relay", via_relay, api.process.pid, double.process.pid)
        opus_phase = None
        if args.opus:
            log(f"through the relay, Opus both ways: {load}")
            opus_phase = measure("relay-opus", via_relay_opus, api.process.pid, double.process.pid)
            opus_one_way(opus_phase, double)

        for phase, prefix in ((relay, ""), (opus_phase, "relay-opus: ")):
            if phase is None or not phase.samples.up:
                continue
            for direction in ("up", "down"):
                with_relay: list[float] = getattr(phase.samples, direction)
                without: list[float] = getattr(base.samples, direction)
                for q, label in ((0.5, "p50"), (0.99, "p99")):
                    relayed, direct_ms = percentile(with_relay, q) * 1000, percentile(without, q) * 1000
                    added = relayed - direct_ms
                    ok = added < BUDGET_P99_MS if label == "p99" else None
                    note = ""
                    if label == "p99" and direct_ms > BUSY_DIRECT_P99_MS:
                        # The direct path alone is over the budget: the machine was busy, the
                        # difference of two such tails says nothing.
                        ok, note = None, " inconclusive: direct path over budget, machine busy"
                    summary.add(
                        f"{prefix}{direction} added latency {label}",
                        f"{added:.2f} ms (relay {relayed:.2f}, direct {direct_ms:.2f}){note}",
                        f"< {BUDGET_P99_MS:.0f} ms" if label == "p99" else "",
                        ok,
                    )
        per_session = relay.relay_cpu / relay.seconds / args.sessions * 100
        summary.add("API worker processes", str(args.workers))
        if args.opus:
            threads = "default (0)" if args.opus_threads is None else str(args.opus_threads)
            summary.add("relay Opus threads per direction", threads)
        summary.add(
            "relay CPU per session",
            f"{per_session:.2f}% of a core ({relay.relay_cpu / relay.seconds:.2f} cores)",
        )
        lost = relay.samples.sent - relay.samples.received
        summary.add(
            "relay chunks without reply", f"{lost} of {relay.samples.sent} (in-flight at the end included)"
        )
        summary.add("relay session errors", str(len(relay.samples.errors)), "0", not relay.samples.errors)
        direct_rtt = percentile(base.samples.round_trip, 0.99) * 1000
        for phase in (relay, opus_phase):
            if phase is None:
                continue
            for q, label in ((0.5, "p50"), (0.99, "p99")):
                relayed = percentile(phase.samples.round_trip, q) * 1000
                direct_ms = percentile(base.samples.round_trip, q) * 1000
                ok = relayed - direct_ms < 2 * BUDGET_P99_MS if label == "p99" else None
                note = ""
                if label == "p99" and direct_rtt > 2 * BUSY_DIRECT_P99_MS:
                    ok, note = None, " inconclusive: direct path over budget, machine busy"
                summary.add(
                    f"{phase.name}: added round trip {label}",
                    f"{relayed - direct_ms:.2f} ms (relay {relayed:.2f}, direct {direct_ms:.2f}){note}",
                    f"< {2 * BUDGET_P99_MS:.0f} ms" if label == "p99" else "",
                    ok,
                )
        for phase in (relay, opus_phase):
            # Per chunk answered, the cost does not depend on whether a starved client kept up its rate.
            if phase is not None and phase.samples.received:
                per_chunk = phase.relay_cpu / phase.samples.received
                share = per_chunk * CHUNKS_PER_SECOND * 100  # % of a core per session, = cores per 100
                summary.add(
                    f"{phase.name}: relay CPU per chunk and reply",
                    f"{per_chunk * 1000:.3f} ms, {share:.2f}% of a core per session at"
                    f" {CHUNKS_PER_SECOND} chunks/s ({share:.2f} cores per 100 sessions)",
                )
        if opus_phase is not None:
            cores = opus_phase.relay_cpu / opus_phase.seconds
            summary.add(
                "relay-opus CPU per session",
                f"{cores / args.sessions * 100:.2f}% of a core ({cores:.2f} cores; PCM: {per_session:.2f}%)",
            )
            lost = opus_phase.samples.sent - opus_phase.samples.received
            summary.add(
                "relay-opus replies missing", f"{lost} of {opus_phase.samples.sent} (in-flight included)"
            )
            summary.add(
                "relay-opus session errors",
                str(len(opus_phase.samples.errors)),
                "0",
                not opus_phase.samples.errors,
            )

    with api_workers(args.workers):
        return run_bench(
            f"{args.sessions} sessions, {CHUNKS_PER_SECOND} chunks/s each way,"
            f" {args.duration:.0f} s a phase, {args.workers} API worker(s)",
            summary,
            body,
            env=env,
            modules=("cara.live.relay",),
        )


if __name__ == "__main__":
    sys.exit(main())
