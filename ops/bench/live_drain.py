"""Live drain on shutdown: SIGTERM to an API process holding N open live consultations.

    .venv/bin/python ops/bench/live_drain.py [--sessions 100] [--talk 4] [--drain-seconds 30]

Prints figures only. The API runs as deployments run it, `python -m cara.serve` (its shutdown
drains the live relay), with CARA_DRAIN_SECONDS set. N 'browsers' (websockets clients, JSON frames
as the web console sends them) open the generic console and stream 8 microphone chunks a second,
as in live_relay.py; the Gemini double (its own process, TLS) answers every chunk with a reply
chunk and transcribes the clinician: each second a fragment opens a line and, half a second
later, a second fragment and turnComplete close it. After `--talk` seconds of this (every session
connected), the API process gets SIGTERM. Measured from the signal:

* when each browser saw its socket closed, and with which code (expected: 1012);
* whether it got `{"type":"status","state":"reconnecting"}` before the close;
* when the API process exited;

then, in the database: every consultation row has `ended_at`, and every transcript line a browser
was shown (the final lines, plus the line still open at the signal) is stored. The double reports
how each provider connection was closed (1000: closed by the relay; 1006: dropped).

Servers: BENCH_DATABASE_URL / BENCH_REDIS_URL as for foundation.py; a throwaway database.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import math
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import urlsplit

from _common import ApiServer, Summary, create_doctors, log, percentile, run_bench
from live_relay import (
    API_KEY,
    CHUNKS_PER_SECOND,
    REPLY_BYTES,
    Samples,
    Window,
    _stream,
    gemini_double,
    run_load,
)

# Beyond the drain budget, how long the browsers and the process are given before the run gives up.
SLACK_SECONDS = 20.0
CONNECT_TIMEOUT_SECONDS = 60.0


# ------------------------------------------------------------------ the double's side (child process)


def serve_double(port: int, tls_dir: Path) -> None:
    """The Gemini double with a peer that answers audio and transcribes; reports close codes on demand."""
    from cara_doubles.gemini import GeminiDouble, LiveBehaviour, LiveSession, TlsFiles, server_audio

    reply = server_audio(bytes(REPLY_BYTES))
    half = CHUNKS_PER_SECOND // 2

    class TranscribingPeer(LiveBehaviour):
        def __init__(self) -> None:
            self.chunks: dict[int, int] = {}

        async def on_message(self, session: LiveSession, message: dict[str, Any]) -> None:
            if not (message.get("realtimeInput") or {}).get("audio"):
                return
            n = self.chunks.get(session.index, 0)
            self.chunks[session.index] = n + 1
            # One reply chunk per chunk: the relay pumps audio both ways while it drains.
            await session.asend(reply)
            second, step = divmod(n, CHUNKS_PER_SECOND)
            if step == 0:
                text = f"Finding {second}: blood pressure 128 over 84,"
                await session.asend({"serverContent": {"inputTranscription": {"text": text}}})
            elif step == half:
                await session.asend({"serverContent": {"inputTranscription": {"text": " pulse regular."}}})
                await session.asend({"serverContent": {"turnComplete": True}})

    tls = TlsFiles(ca_file=tls_dir / "ca.pem", cert_file=tls_dir / "server.pem")
    double = GeminiDouble(
        api_key=API_KEY, port=port, tls=tls, behaviour=TranscribingPeer(), record=False
    ).start()
    print("ready", flush=True)
    # The bench asks on stdin once the API has exited; its closing stdin stops the double.
    for line in sys.stdin:
        if line.strip() == "report":
            codes = Counter(
                "open" if s.close_code is None else str(s.close_code) for s in list(double.sessions)
            )
            print(json.dumps(codes), flush=True)
    double.stop()


def provider_close_codes(double: subprocess.Popen[str]) -> Counter[str]:
    assert double.stdin is not None and double.stdout is not None
    double.stdin.write("report\n")
    double.stdin.flush()
    return Counter(json.loads(double.stdout.readline()))


@contextlib.contextmanager
def served_by_cara_serve(workers: int = 1) -> Iterator[None]:
    """_common's ApiServer starts `uvicorn cara.main:app`; start `python -m cara.serve` instead (what
    deployments run: its shutdown drains the relay), on the same port, environment and log file,
    with `workers` server processes (WEB_CONCURRENCY)."""
    from cara_devstack import embedded

    original = embedded.spawn

    def spawn(argv: list[str], **options: Any) -> Any:
        if "cara.main:app" in argv:
            port = argv[argv.index("--port") + 1]
            argv = [sys.executable, "-m", "cara.serve", "--host", "127.0.0.1", "--port", port]
            argv += ["--workers", str(workers)]
        return original(argv, **options)

    with mock.patch.object(embedded, "spawn", spawn):
        yield


# ------------------------------------------------------------------ the browsers


@dataclass
class Console:
    """What one browser saw. Times are time.perf_counter() of this process."""

    index: int
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    settled: asyncio.Event = field(default_factory=asyncio.Event)  # connected, or gone before that
    consultation: str | None = None
    finals: int = 0  # final transcript lines shown
    interim_open: bool = False  # an interim line shown and not finalised yet
    reconnecting_at: float | None = None
    closed_at: float | None = None
    close_code: int | None = None
    error: str | None = None

    @property
    def shown_lines(self) -> int:
        return self.finals + int(self.interim_open)


async def _listen(ws: Any, console: Console) -> None:
    from websockets.exceptions import ConnectionClosed

    try:
        async for raw in ws:
            message = json.loads(raw)
            kind = message.get("type")
            if kind == "status":
                state = message.get("state")
                if state == "connected":
                    console.consultation = message.get("consultationId")
                    console.connected.set()
                    console.settled.set()
                elif state == "reconnecting" and console.reconnecting_at is None:
                    console.reconnecting_at = time.perf_counter()
                elif state == "error":
                    console.error = str(message.get("message"))
            elif kind == "transcript":
                if message.get("final"):
                    console.finals += 1
                    console.interim_open = False
                else:
                    console.interim_open = True
    except ConnectionClosed:
        pass
    console.closed_at = time.perf_counter()
    console.close_code = ws.close_code


_STARTING: asyncio.Semaphore | None = None


async def start_consultation(ws_url: str, token: str) -> str:
    """POST /api/consultations (the patient's consent) as the console does before it connects."""
    import httpx

    parts = urlsplit(ws_url)
    # A few at a time: POST /api/consultations holds two database connections per request, and a
    # burst of one per session would exhaust the API's pool.
    global _STARTING
    _STARTING = _STARTING or asyncio.Semaphore(4)
    async with _STARTING, httpx.AsyncClient(base_url=f"http://{parts.netloc}", timeout=60) as http:
        response = await http.post(
            "/api/consultations",
            json={"console": "generic", "consent": True},
            headers={"Authorization": f"Bearer {token}"},
        )
    response.raise_for_status()
    return str(response.json()["id"])


async def open_console(url: str, token: str, console: Console, samples: Samples) -> None:
    """Authenticate, stream audio until the server closes the socket, record what was seen."""
    import websockets
    from websockets.exceptions import ConnectionClosed

    consultation = await start_consultation(url, token)
    try:
        async with websockets.connect(url, max_size=None, compression="deflate") as ws:
            await ws.send(json.dumps({"type": "auth", "token": token, "consultationId": consultation}))
            listener = asyncio.create_task(_listen(ws, console))
            connected = asyncio.create_task(console.connected.wait())
            await asyncio.wait({listener, connected}, return_when=asyncio.FIRST_COMPLETED)
            connected.cancel()
            console.settled.set()
            if console.connected.is_set():

                def frame(pcm: bytes) -> str:
                    data = base64.b64encode(pcm).decode()
                    return json.dumps({"type": "audio", "data": data}, separators=(",", ":"))

                # No end: the stream stops when a send finds the socket closed by the server.
                with contextlib.suppress(ConnectionClosed):
                    await _stream(ws.send, frame, console.index, Window(0.0, math.inf), samples)
            await listener
    finally:
        console.settled.set()


# ------------------------------------------------------------------ the benchmark


@dataclass
class Outcome:
    consoles: list[Console]
    samples: Samples
    signal_at: float = math.nan  # perf_counter
    signal_wall: datetime | None = None
    exited_at: float | None = None
    exit_code: int | None = None


def _wait_exit(process: subprocess.Popen[bytes], timeout: float) -> float | None:
    """perf_counter() when `process` exited, taken on this thread as it happens; None on timeout."""
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        return None
    return time.perf_counter()


async def scenario(api: ApiServer, tokens: list[str], talk: float, drain_seconds: float) -> Outcome:
    url = api.base_url.replace("http://", "ws://") + "/api/live?specialty=generic"
    consoles = [Console(i) for i in range(len(tokens))]
    outcome = Outcome(consoles, Samples())
    limit = drain_seconds * 2 + SLACK_SECONDS  # the relay drain, then uvicorn's own graceful stop

    async def make(i: int, window: Window, samples: Samples) -> None:
        await open_console(url, tokens[i], consoles[i], samples)

    async def terminate() -> None:
        settling = [asyncio.create_task(c.settled.wait()) for c in consoles]
        # Sessions still not connected by then are reported as such; the others are drained anyway.
        await asyncio.wait(settling, timeout=CONNECT_TIMEOUT_SECONDS)
        for task in settling:
            task.cancel()
        live = sum(c.connected.is_set() for c in consoles)
        log(f"{live} of {len(consoles)} consultations connected; talking for {talk:.0f} s")
        await asyncio.sleep(talk)
        log(f"SIGTERM to the API (pid {api.process.pid})")
        outcome.signal_wall = datetime.now(UTC)
        outcome.signal_at = time.perf_counter()
        api.process.send_signal(signal.SIGTERM)
        outcome.exited_at = await asyncio.to_thread(_wait_exit, api.process, limit)
        outcome.exit_code = api.process.poll()

    # Connects 40 a second (run_load's ramp); nothing in the load depends on its window.
    killer = asyncio.create_task(terminate())
    load = asyncio.create_task(run_load(make, len(consoles), 0.0, 0.0))
    try:
        await asyncio.wait_for(asyncio.shield(load), CONNECT_TIMEOUT_SECONDS + talk + limit)
    except TimeoutError:
        load.cancel()  # browsers whose socket never closed count as such
        with contextlib.suppress(asyncio.CancelledError):
            await load
    else:
        outcome.samples = load.result()[0]
    await killer
    return outcome


@dataclass(frozen=True)
class Stored:
    rows: int
    ended: int
    ended_last: datetime | None
    lines: dict[str, int]  # consultation id -> stored transcript lines


def stored_consultations() -> Stored:
    from sqlalchemy import text

    from cara.kit.db import get_engine

    with get_engine().connect() as conn:
        rows = conn.execute(
            text(
                "SELECT c.id, c.ended_at, count(t.id) AS lines FROM independent.consultations c"
                " LEFT JOIN independent.transcript_lines t ON t.consultation_id = c.id GROUP BY c.id"
            )
        ).all()
    ended = [r.ended_at for r in rows if r.ended_at is not None]
    return Stored(
        rows=len(rows),
        ended=len(ended),
        ended_last=max(ended) if ended else None,
        lines={str(r.id): int(r.lines) for r in rows},
    )


def drained_entry(api: ApiServer) -> dict[str, Any] | None:
    """The server's own 'live consultations drained' log entries (count ended, left open), summed
    over its processes."""
    found: dict[str, Any] | None = None
    for line in api.log_path.read_text(errors="replace").splitlines():
        with contextlib.suppress(ValueError):
            entry = json.loads(line)
            if isinstance(entry, dict) and entry.get("msg") == "live consultations drained":
                found = found or {"count": 0, "left": 0, "processes": 0}
                found["count"] += int(entry.get("count") or 0)
                found["left"] += int(entry.get("left") or 0)
                found["processes"] += 1
    return found


def report(summary: Summary, outcome: Outcome, stored: Stored, api: ApiServer, codes: Counter[str]) -> None:
    consoles = outcome.consoles
    n = len(consoles)
    t0 = outcome.signal_at
    connected = [c for c in consoles if c.connected.is_set()]
    summary.add("consultations connected", f"{len(connected)} of {n}", str(n), len(connected) == n)
    shown = sum(c.shown_lines for c in connected)
    open_lines = sum(c.interim_open for c in connected)
    summary.add(
        "transcript lines shown to the browsers",
        f"{shown} ({shown - open_lines} final + {open_lines} open at the signal);"
        f" {outcome.samples.sent} audio chunks sent",
    )

    restarted = [c for c in connected if c.close_code == 1012 and c.closed_at is not None]
    others = Counter(str(c.close_code) for c in connected if c.close_code != 1012)
    ms = [(c.closed_at - t0) * 1000 for c in restarted if c.closed_at is not None]
    if ms:
        timing = f"p50 {percentile(ms, 0.5):.0f} ms, p100 {max(ms):.0f} ms (first {min(ms):.0f} ms)"
    else:
        timing = "none"
    summary.add(
        "SIGTERM -> browser closed with 1012",
        f"{len(restarted)} of {len(connected)}; {timing}"
        + (f"; other closes {dict(others)}" if others else ""),
        f"all {len(connected)}",
        len(restarted) == len(connected),
    )
    told = [
        c
        for c in connected
        if c.reconnecting_at is not None and c.closed_at is not None and c.reconnecting_at <= c.closed_at
    ]
    summary.add(
        "'reconnecting' status before the close",
        f"{len(told)} of {len(connected)}",
        f"all {len(connected)}",
        len(told) == len(connected),
    )

    if outcome.exited_at is not None:
        how = f"exit status {outcome.exit_code}"
        if outcome.exit_code == -signal.SIGTERM:
            how = "uvicorn re-raised SIGTERM after its shutdown, as it does"
        finished = "Finished server process" in api.log_path.read_text(errors="replace")
        summary.add(
            "SIGTERM -> API process exited",
            f"{(outcome.exited_at - t0) * 1000:.0f} ms ({how};"
            f" shutdown {'completed' if finished else 'NOT completed'})",
            "",
            finished,
        )
    else:
        summary.add("SIGTERM -> API process exited", "did not exit in time", "", False)
    entry = drained_entry(api)
    if entry is not None:
        summary.add(
            "server log: drained / left open",
            f"{entry['count']} / {entry['left']} ({entry['processes']} process(es))",
            "/ 0",
        )

    summary.add(
        "consultation rows with ended_at",
        f"{stored.ended} of {stored.rows}",
        f"all {len(connected)}",
        stored.ended == stored.rows == len(connected),
    )
    if stored.ended_last is not None and outcome.signal_wall is not None:
        summary.add(
            "SIGTERM -> last ended_at written",
            f"{(stored.ended_last - outcome.signal_wall).total_seconds() * 1000:.0f} ms",
        )
    kept = sum(stored.lines.values())
    short = [c for c in connected if stored.lines.get(c.consultation or "", 0) < c.shown_lines]
    extra = sum(max(0, stored.lines.get(c.consultation or "", 0) - c.shown_lines) for c in connected)
    summary.add(
        "transcript lines stored",
        f"{kept} of {shown} shown; consultations missing lines: {len(short)}"
        + (f"; {extra} stored but not shown (cut off mid-send)" if extra else ""),
        "missing 0",
        not short,
    )
    # A close frame means the relay closed the connection itself (1000 since live/upstream.py
    # closes it before its task ends); 1006 (or still open) means it was left to die with the process.
    dropped = codes.get("1006", 0) + codes.get("open", 0)
    summary.add(
        "provider connections by close code",
        ", ".join(f"{code}: {count}" for code, count in sorted(codes.items())),
        "no 1006 / open",
        not dropped and sum(codes.values()) == len(connected),
    )
    errors = [c.error for c in consoles if c.error] + outcome.samples.errors
    summary.add("browser errors", str(len(errors)), "0", not errors)
    for error in errors[:5]:
        log(f"browser error: {error}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument(
        "--talk", type=float, default=4.0, help="seconds of audio and transcript before SIGTERM"
    )
    parser.add_argument("--drain-seconds", type=float, default=30.0, help="CARA_DRAIN_SECONDS of the API")
    parser.add_argument(
        "--workers", type=int, default=1, help="server processes of cara.serve (WEB_CONCURRENCY)"
    )
    parser.add_argument("--serve-double", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--tls-dir", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_double is not None:
        serve_double(args.serve_double, args.tls_dir)
        return 0

    summary = Summary()
    with gemini_double(__file__, commands=True) as double, served_by_cara_serve(args.workers):

        def body(api: ApiServer) -> None:
            log(f"creating {args.sessions} doctors")
            tokens = [d.token for d in create_doctors([None] * args.sessions)]
            outcome = asyncio.run(scenario(api, tokens, args.talk, args.drain_seconds))
            stored = stored_consultations()
            report(summary, outcome, stored, api, provider_close_codes(double.process))

        env = {**double.settings, "CARA_DRAIN_SECONDS": str(args.drain_seconds)}
        return run_bench(
            f"{args.sessions} live consultations, {CHUNKS_PER_SECOND} chunks/s each way and a transcript"
            f" line a second, SIGTERM after {args.talk:.0f} s; CARA_DRAIN_SECONDS={args.drain_seconds:g};"
            f" {args.workers} server process(es)",
            summary,
            body,
            env=env,
            modules=("cara.live.relay",),
        )


if __name__ == "__main__":
    sys.exit(main())
