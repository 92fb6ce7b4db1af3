"""Per-request overhead: the product beside a bare FastAPI app, in one run, driven by wrk.

    .venv/bin/python ops/bench/request_overhead.py [--duration 5] [--rounds 2] [--connections 50]
        [--profile /tmp/profile.txt]

Two uvicorn processes with the same flags (one worker each): the product (`cara.main:app`, its own
throwaway database, a hospital with 10 hospital-created doctors and 10 independent doctors, real
tokens) and `bare_app.py` (FastAPI, `async def` handlers, no middleware) answering the same paths
with the very bytes the product answered (status, content type, body, and the product's own
headers: security headers, a request id of the same length, Vary), so that the ratio measures
the product's work and not the size of its answer; `/api/health/live` is also measured from the
bare app without those headers, to show what writing them costs uvicorn. For the authenticated
rows the bare app is measured a second time as the floor: the same answer after one single-row
read of the product's database (psycopg 3 async, as many pooled connections as the product's async
reads have, `cara.kit.db.async_pool_size`; bare_app.py),
so the figures say what part of the gap one PostgreSQL round trip explains on this machine. Rows:

- `GET /api/health/live`: no token, no database: the middleware stack (tracing, metrics, request
  ids, security headers, access log, body limit, gzip) and routing;
- `GET /api/auth/user` as a hospital-created doctor: the doctor's own profile, token, tenant
  routing, read from the hospital's schema; and the same as an independent doctor (shared schema);
- `GET /api/live/status` as a doctor: the principal alone (no database read in the handler).

Each row: wrk -t1 -c<connections> for `--duration` s after 1 s of warm-up, product and bare in
alternating order over `--rounds` rounds (so background load on the shared machine cancels out).
Prints req/s, p50, p99 (medians over rounds), server CPU ms per request (utime+stime of the server
process from /proc before/after), and the product/bare ratios against the targets: authenticated
p50 within 2x bare and req/s >= 0.5x bare, health/live within 10% of bare, CPU <= 0.5 ms/request.

`--profile PATH`: afterwards, py-spy (GIL-holding thread, raw collapsed stacks to PATH) samples the
product under the hospital doctor's `/api/auth/user` load (or the first row `--rows` names), and
the top frames (self and inclusive) are printed. Servers: BENCH_DATABASE_URL / BENCH_REDIS_URL as
for foundation.py. ~2 min.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from _common import (
    REPO,
    ApiServer,
    Summary,
    create_doctors,
    create_hospitals,
    log,
    plain_conninfo,
    process_cpu_seconds,
    run_bench,
    tree_cpu_seconds,
)

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Plan:
    duration: float
    rounds: int
    connections: int
    profile: str | None
    rows: str = ""
    env: dict[str, str] = field(default_factory=dict)
    native: bool = False

    def __str__(self) -> str:
        return (
            f"wrk -t1 -c{self.connections}, 1 s warm-up + {self.duration:g} s per server and row, "
            f"{self.rounds} rounds alternating product/bare"
            + (f", product env {self.env}" if self.env else "")
        )


@dataclass(frozen=True)
class Row:
    name: str
    path: str
    tokens: tuple[str, ...]
    authenticated: bool


def parse_args(argv: Sequence[str] | None) -> Plan:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--profile", help="write py-spy raw stacks of the product under load here")
    parser.add_argument("--native", action="store_true", help="py-spy also samples C frames (--native)")
    parser.add_argument("--rows", default="", help="only the rows whose name contains this text")
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting for the product (e.g. OTEL_TRACES_EXPORTER=memory: spans recorded, none exported)",
    )
    args = parser.parse_args(argv)
    env = dict(item.split("=", 1) for item in args.env)
    return Plan(
        args.duration, max(1, args.rounds), args.connections, args.profile, args.rows, env, args.native
    )


# ---------------------------------------------------------------- wrk


def ensure_wrk() -> str:
    """wrk from Debian, installed with apt-get when missing and we may (as ops/lib/bootstrap.sh does)."""
    found = shutil.which("wrk")
    if not found and os.geteuid() == 0 and shutil.which("apt-get"):
        log("installing wrk (apt-get)")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        if subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], env=env, check=False).returncode:
            subprocess.run(["apt-get", "update", "-qq"], env=env, check=True)
            subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], env=env, check=True)
        found = shutil.which("wrk")
    if not found:
        raise SystemExit("wrk is needed (Debian: apt-get install wrk)")
    return found


_LUA = """
local tokens = {%(tokens)s}
local n = 0
request = function()
  n = n + 1
  if #tokens == 0 then return wrk.format(nil, nil) end
  return wrk.format(nil, nil, {["Authorization"] = "Bearer " .. tokens[(n %% #tokens) + 1]})
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("CARA %%d %%d %%d %%d %%d %%d\\n", summary.requests, summary.duration,
    e.status, e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(99)))
end
"""


@dataclass
class Load:
    requests: int = 0
    seconds: float = 0.0
    errors: int = 0
    p50_ms: list[float] = field(default_factory=list)
    p99_ms: list[float] = field(default_factory=list)
    rps_rounds: list[float] = field(default_factory=list)
    server_cpu: float = 0.0

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def p50(self) -> float:
        return statistics.median(self.p50_ms)

    @property
    def p99(self) -> float:
        return statistics.median(self.p99_ms)

    @property
    def cpu_ms(self) -> float:
        return self.server_cpu / self.requests * 1000 if self.requests else float("nan")

    def add(self, other: Load) -> None:
        self.requests += other.requests
        self.seconds += other.seconds
        self.errors += other.errors
        self.p50_ms += other.p50_ms
        self.p99_ms += other.p99_ms
        self.rps_rounds += other.rps_rounds
        self.server_cpu += other.server_cpu

    def line(self) -> str:
        return (
            f"{self.rps:7.0f} req/s  p50 {self.p50:6.1f} ms  p99 {self.p99:6.1f} ms  "
            f"CPU {self.cpu_ms:.3f} ms/request" + (f"  errors {self.errors}" if self.errors else "")
        )


def wrk(
    binary: str,
    base_url: str,
    pid: int,
    row: Row,
    *,
    seconds: float,
    connections: int,
    cpu_of: Callable[[], float] | None = None,
) -> Load:
    """`cpu_of`: the server's CPU seconds so far when it is more than process `pid` (several
    server processes)."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(_LUA % {"tokens": ", ".join(f'"{t}"' for t in row.tokens)})
    server_cpu = cpu_of or (lambda: process_cpu_seconds(pid))
    try:
        cpu = server_cpu()
        done = subprocess.run(
            [
                binary,
                "-t1",
                "--timeout",
                "30s",
                f"-c{connections}",
                f"-d{max(1, round(seconds))}s",
                "-s",
                script.name,
                f"{base_url}{row.path}",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        cpu = server_cpu() - cpu
    finally:
        os.unlink(script.name)
    found = re.search(r"^CARA (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$", done.stdout, re.M)
    if not found:
        raise RuntimeError(f"unexpected wrk output:\n{done.stdout}\n{done.stderr}")
    n, micros, status, sock, p50, p99 = (int(x) for x in found.groups())
    secs = micros / 1e6
    return Load(n, secs, status + sock, [p50 / 1000], [p99 / 1000], [n / secs if secs else 0.0], cpu)


# ---------------------------------------------------------------- the bare app


class BareServer:
    """`python -m uvicorn bare_app:app` with the product's uvicorn flags, as a child process."""

    def __init__(
        self, log_path: Path, responses: Path, *, database: str = "", accounts: str = "", workers: int = 1
    ) -> None:
        from cara.kit.db import async_pool_size
        from cara_devstack import embedded

        self._embedded = embedded
        self.port = embedded.free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._log = log_path.open("wb")
        argv = [
            sys.executable,
            "-m",
            "uvicorn",
            "bare_app:app",
            "--app-dir",
            str(HERE),
            "--host",
            "127.0.0.1",
        ]
        # As many processes as the product runs (`workers`): its CPU is `cpu_seconds`, all of them.
        self.workers = workers
        argv += ["--port", str(self.port), "--workers", str(workers), "--log-level", "warning"]
        env = {**os.environ, "BARE_RESPONSES": str(responses), "BARE_DATABASE": database}
        env |= {"BARE_ACCOUNTS": accounts, "BARE_POOL": str(async_pool_size())}
        self.process = embedded.spawn(
            argv, death_signal=signal.SIGTERM, cwd=REPO, env=env, stdout=self._log, stderr=subprocess.STDOUT
        )

    def cpu_seconds(self) -> float:
        """CPU seconds of the bare app so far: its process, or its supervisor and workers."""
        return tree_cpu_seconds(self.process.pid)

    def wait_ready(self, path: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"bare uvicorn exited with {self.process.returncode}")
            try:
                httpx.get(f"{self.base_url}{path}", timeout=2)
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("bare uvicorn not ready")

    def stop(self) -> None:
        self._embedded.stop_process(self.process, ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)))
        self._log.close()


# Written by uvicorn or Starlette for both apps alike.
_FRAMEWORK_HEADERS = frozenset({"date", "server", "content-length", "content-type"})


def record_responses(api: ApiServer, rows: Sequence[Row], into: Path) -> None:
    """The product's answer to each row's first request: the bare app serves the same bytes."""
    spec: dict[str, tuple[int, str, str, list[tuple[str, str]]]] = {}
    for row in rows:
        # As wrk asks: no Accept-Encoding, so the identity answer (and its Vary, where it has one).
        headers = {"Accept-Encoding": "identity"}
        if row.tokens:
            headers["Authorization"] = f"Bearer {row.tokens[0]}"
        r = httpx.get(f"{api.base_url}{row.path}", headers=headers, timeout=10)
        if r.status_code != 200:
            raise RuntimeError(f"{row.path}: {r.status_code} {r.text[:200]}")
        # The product's own headers (security headers, request id, Vary), sent fixed by the bare
        # app too: the same bytes on the wire, so the ratio is the product's work, not their size.
        extra = [(k, v) for k, v in r.headers.items() if k.lower() not in _FRAMEWORK_HEADERS]
        log(f"{row.name}: {len(r.content)} bytes, {r.headers.get('content-type')}, {len(extra)} more headers")
        spec.setdefault(
            row.path,
            (r.status_code, r.headers.get("content-type", ""), base64.b64encode(r.content).decode(), extra),
        )
    into.write_text(json.dumps(spec))


# ---------------------------------------------------------------- py-spy


def profile(
    api: ApiServer, binary: str, row: Row, out: str, *, seconds: float, connections: int, native: bool
) -> None:
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        log("py-spy not found (pip install py-spy): no profile")
        return
    recorder = subprocess.Popen(
        [
            spy,
            "record",
            "--pid",
            str(api.process.pid),
            "--subprocesses",  # python -m cara.serve's server processes, when it runs several
            "--gil",
            "--rate",
            "200",
            "--format",
            "raw",
            "--duration",
            str(round(seconds)),
            "--output",
            out,
            # Native frames need the process paused for each sample.
            *(["--native"] if native else ["--nonblocking"]),
        ],
        stdout=subprocess.DEVNULL,
    )
    time.sleep(0.5)
    wrk(binary, api.base_url, api.process.pid, row, seconds=seconds, connections=connections)
    recorder.wait(timeout=seconds + 30)
    print_top_frames(Path(out))


_FRAME = re.compile(r"^(?P<fn>.*?) \((?P<file>[^:()]*)(?::\d+)?\)$")


def _short(frame: str) -> str:
    m = _FRAME.match(frame)
    if not m:
        return frame
    file = m.group("file")
    for marker in ("site-packages/", "platform/", "/lib/python3"):
        if marker in file:
            file = file.split(marker, 1)[1]
            break
    return f"{m.group('fn')} ({file})"


def print_top_frames(raw: Path, top: int = 25) -> None:
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = [_short(f) for f in stack.split(";")]
        own[frames[-1]] += n
        for f in set(frames):
            inclusive[f] += n
    if not total:
        log("py-spy recorded no samples")
        return
    print(f"\npy-spy, GIL-holding thread, {total} samples ({raw}):")
    print("  self %   frame")
    for f, n in own.most_common(top):
        print(f"  {100 * n / total:5.1f}   {f}")
    print("  incl %   frame (inclusive)")
    for f, n in inclusive.most_common(top + 15)[: top + 15]:
        print(f"  {100 * n / total:5.1f}   {f}")


# ---------------------------------------------------------------- the run


def main(argv: Sequence[str] | None = None) -> int:
    plan = parse_args(argv)
    summary = Summary()
    binary = ensure_wrk()

    def body(api: ApiServer) -> None:
        hospital = create_hospitals(1)[0]
        hospital_doctors = create_doctors([hospital] * 10)
        independent = create_doctors([None] * 10)
        rows = [
            Row("health/live (middleware)", "/api/health/live", (), False),
            Row(
                "auth/user hospital doctor", "/api/auth/user", tuple(d.token for d in hospital_doctors), True
            ),
            Row("auth/user independent doctor", "/api/auth/user", tuple(d.token for d in independent), True),
            Row(
                "live/status (principal only)", "/api/live/status", tuple(d.token for d in independent), True
            ),
        ]
        # One bare route per path: the hospital doctor's answer (same size as the independent's).
        with tempfile.TemporaryDirectory(prefix="cara-bare-") as tmp:
            responses = Path(tmp) / "responses.json"
            record_responses(api, rows, responses)
            # The floor: the bare app plus one single-row read of the same database (bare_app.py).
            bare = BareServer(
                Path(tmp) / "bare.log",
                responses,
                database=plain_conninfo(os.environ["DATABASE_URL"]),
                accounts=",".join(str(d.account_id) for d in hospital_doctors + independent),
            )
            try:
                bare.wait_ready("/api/health/live")
                servers = {
                    "product": (api.base_url, api.process.pid),
                    "bare": (bare.base_url, bare.process.pid),
                    "floor": (bare.base_url + "/floor", bare.process.pid),
                    "plain": (bare.base_url + "/plain", bare.process.pid),
                }
                results: dict[tuple[str, str], Load] = {}
                for row in [r for r in rows if plan.rows in r.name]:
                    which_ones = ["product", "bare"] + (["floor"] if row.authenticated else ["plain"])
                    for r in range(plan.rounds):
                        order = which_ones if r % 2 == 0 else which_ones[::-1]
                        for which in order:
                            url, pid = servers[which]
                            wrk(binary, url, pid, row, seconds=1, connections=plan.connections)
                            load = wrk(
                                binary, url, pid, row, seconds=plan.duration, connections=plan.connections
                            )
                            results.setdefault((row.name, which), Load()).add(load)
                    p, b = results[(row.name, "product")], results[(row.name, "bare")]
                    log(f"{row.name}\n    product {p.line()}\n    bare    {b.line()}")
                    thr, lat = p.rps / b.rps, p.p50 / b.p50
                    if row.authenticated:
                        f = results[(row.name, "floor")]
                        log(f"    floor   {f.line()}")
                        summary.add(
                            f"{row.name}: floor (bare + 1 read) / bare",
                            f"req/s {f.rps / b.rps:.2f}x, p50 {f.p50 / b.p50:.2f}x, CPU {f.cpu_ms:.3f} ms",
                            "",
                            None,
                        )
                        summary.add(
                            f"{row.name}: product / floor",
                            f"req/s {p.rps / f.rps:.2f}x, p50 {p.p50 / f.p50:.2f}x",
                            "",
                            None,
                        )
                        summary.add(
                            f"{row.name}: req/s ratio",
                            f"{p.rps:.0f} / {b.rps:.0f} = {thr:.2f}x",
                            ">= 0.5x",
                            thr >= 0.5,
                        )
                        summary.add(
                            f"{row.name}: p50 ratio",
                            f"{p.p50:.1f} / {b.p50:.1f} ms = {lat:.2f}x",
                            "<= 2x",
                            lat <= 2,
                        )
                        summary.add(f"{row.name}: p99", f"{p.p99:.1f} ms (bare {b.p99:.1f} ms)", "", None)
                        summary.add(
                            f"{row.name}: server CPU",
                            f"{p.cpu_ms:.3f} ms/request (bare {b.cpu_ms:.3f})",
                            "<= 0.5 ms",
                            p.cpu_ms <= 0.5,
                        )
                    else:
                        n = results[(row.name, "plain")]
                        log(f"    plain   {n.line()}  (bare, without the product's headers)")
                        summary.add(
                            f"{row.name}: bare without the product's headers / bare",
                            f"req/s {n.rps / b.rps:.2f}x, CPU {n.cpu_ms:.3f} ms",
                            "",
                            None,
                        )
                        summary.add(
                            f"{row.name}: req/s ratio",
                            f"{p.rps:.0f} / {b.rps:.0f} = {thr:.2f}x",
                            ">= 0.9x",
                            thr >= 0.9,
                        )
                        summary.add(
                            f"{row.name}: p50 ratio",
                            f"{p.p50:.1f} / {b.p50:.1f} ms = {lat:.2f}x",
                            "<= 1.1x",
                            lat <= 1.1,
                        )
                        summary.add(
                            f"{row.name}: server CPU",
                            f"{p.cpu_ms:.3f} ms/request (bare {b.cpu_ms:.3f})",
                            "",
                            None,
                        )
                    if p.errors or b.errors:
                        summary.add(f"{row.name}: errors", f"product {p.errors}, bare {b.errors}", "0", False)
                        log(f"product log (warnings, errors):\n{api.tail(10)}")
            finally:
                bare.stop()
        if plan.profile:
            profile(
                api,
                binary,
                # The first row --rows selects, or the hospital doctor's /api/auth/user.
                next((r for r in rows if plan.rows and plan.rows in r.name), rows[1]),
                plan.profile,
                seconds=max(5.0, plan.duration),
                connections=plan.connections,
                native=plan.native,
            )

    return run_bench(plan, summary, body, env=plan.env, modules=("cara.registration.service",))


if __name__ == "__main__":
    sys.exit(main())
