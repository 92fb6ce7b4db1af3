"""``python -m cara_devstack [--port N] [--demo-ai]``: the whole development stack in one terminal.

This is the process supervisor behind ``./ops/dev``. It

1. takes DATABASE_URL and REDIS_URL from the environment, or else starts embedded PostgreSQL
   and Redis with their data under ``<repo>/.data/``; likewise PACS_URL, or else Debian's
   Orthanc (the PACS every tenant uses until it names its own) under ``<repo>/.data/orthanc``;
2. migrates (``python -m tenants upgrade``) and seeds (``python -m cara.seed``);
3. runs the API (uvicorn), the Dramatiq worker and the scheduler, forwarding their output with
   every line prefixed by the process name;
4. waits until ``/api/health`` answers, then prints where Cara is running.

Ctrl-C (or SIGTERM, or closing the terminal) stops everything: the app processes first (SIGTERM,
then SIGKILL after a grace period), then the databases they use. If any process dies on its own,
everything stops and the exit status is 1.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from types import FrameType
from typing import TextIO

import httpx

from cara_devstack.embedded import (
    EmbeddedOrthanc,
    EmbeddedPostgres,
    EmbeddedRedis,
    ServerError,
    orthanc_installed,
    spawn,
    start_orthanc,
    start_postgres,
    start_redis,
    stop_process,
)

REPO_ROOT = Path(__file__).resolve().parents[3]  # ops/devtools/cara_devstack/__main__.py
DATA_DIR = REPO_ROOT / ".data"
HOST = "127.0.0.1"
DEFAULT_PORT = 8000

# How long the app processes get to finish after SIGTERM before they are killed. Dramatiq
# re-delivers a message whose worker was killed, so cutting a task short loses nothing.
STOP_GRACE_SECONDS = 10.0
# Importing the app (and instrumentation) on a cold cache can take a while on a slow machine.
HEALTH_TIMEOUT_SECONDS = 120.0
# Signals that mean "stop the stack"; SIGHUP is the terminal going away.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class StackError(Exception):
    """The stack cannot run: reported in one line, exit status 1."""


class StopRequested(Exception):
    """Raised in the main thread by our handler for a stop signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


# -- output ----------------------------------------------------------------------------------


class Output:
    """Writes lines to the terminal, each under the name of the process it came from.

    Lines from several threads (one per child) are written whole, under a lock, so they never
    interleave mid-line. Write errors (the terminal closed, ``| head`` exited) are ignored: the
    children must keep running, and their pipes must keep draining, whatever happens to ours.
    """

    _WIDTH = 9  # len("scheduler")
    _COLORS: Mapping[str, str] = {
        "devstack": "1;32",
        "api": "36",
        "worker": "35",
        "scheduler": "33",
        "gemini": "32",
        "migrate": "34",
        "seed": "34",
    }

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._color = stream.isatty() and "NO_COLOR" not in os.environ

    def line(self, name: str, text: str) -> None:
        label = f"{name:<{self._WIDTH}} |"
        if self._color:
            label = f"\033[{self._COLORS.get(name, '0')}m{label}\033[0m"
        self.plain(f"{label} {text}")

    def say(self, text: str) -> None:
        """A line from the supervisor itself."""
        self.line("devstack", text)

    def plain(self, text: str) -> None:
        with self._lock:
            try:
                self._stream.write(text + "\n")
                self._stream.flush()
            except (OSError, ValueError):
                pass


class _OutputLogHandler(logging.Handler):
    """Shows what the embedded servers log (account creation, initdb, ...) as our own lines."""

    def __init__(self, out: Output) -> None:
        super().__init__(logging.INFO)
        self._out = out

    def emit(self, record: logging.LogRecord) -> None:
        self._out.say(record.getMessage())


# -- supervised processes --------------------------------------------------------------------


class Child:
    """A process we started and watch, with its output forwarded under its name."""

    def __init__(self, name: str, argv: Sequence[str], env: Mapping[str, str], out: Output) -> None:
        self.name = name
        # Shown in messages; "python" reads better than the full path of the venv's interpreter.
        self.command = " ".join(["python", *argv[1:]] if argv[0] == sys.executable else argv)
        self._out = out
        self.process = spawn(
            argv,
            death_signal=signal.SIGTERM,
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        self._forwarder = threading.Thread(target=self._forward, name=f"output-{name}", daemon=True)
        self._forwarder.start()

    def _forward(self) -> None:
        assert self.process.stdout is not None
        with self.process.stdout:
            for raw in self.process.stdout:
                self._out.line(self.name, raw.decode(errors="replace").rstrip("\r\n"))

    @property
    def returncode(self) -> int | None:
        """None while the process runs."""
        return self.process.poll()

    def wait(self) -> int:
        """Wait for the process to exit and for the last of its output to be shown."""
        code = self.process.wait()
        self._forwarder.join(timeout=2)
        return code

    def request_stop(self) -> None:
        """Ask the process, and only it, to shut down: it stops its own helpers in order."""
        self.process.send_signal(signal.SIGTERM)  # does nothing once the process has exited

    def finish_stop(self, deadline: float) -> None:
        """Wait until ``deadline`` for the process to exit, then kill it and everything it forked."""
        try:
            self.process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self._out.say(f"{self.name} did not stop within {STOP_GRACE_SECONDS:.0f}s; killing it")
        stop_process(self.process, ((signal.SIGKILL, 5.0),))
        self._forwarder.join(timeout=2)


def _describe_exit(code: int) -> str:
    if code < 0:  # Popen's way of saying "killed by signal -code"
        return f"killed by {signal.Signals(-code).name}"
    return f"exit status {code}"


class Supervisor:
    """Runs the one-off steps and the long-running processes, and stops them all at the end."""

    def __init__(self, env: Mapping[str, str], out: Output) -> None:
        self._env = env
        self._out = out
        self._children: list[Child] = []

    def _start(self, name: str, argv: Sequence[str]) -> Child:
        child = Child(name, argv, self._env, self._out)
        self._children.append(child)
        self._out.say(f"started {name}: {child.command} (pid {child.process.pid})")
        return child

    def run_step(self, name: str, module_args: Sequence[str]) -> None:
        """Run ``python -m <module_args>`` to completion; raise StackError if it fails."""
        child = self._start(name, [sys.executable, "-m", *module_args])
        started = time.monotonic()
        code = child.wait()
        self._children.remove(child)
        if code != 0:
            raise StackError(f"`{child.command}` failed ({_describe_exit(code)}); its output is above")
        self._out.say(f"{name} done in {time.monotonic() - started:.1f}s")

    def start_service(self, name: str, module_args: Sequence[str]) -> None:
        """Start ``python -m <module_args>``, which must keep running until we stop it."""
        self._start(name, [sys.executable, "-m", *module_args])

    def check(self) -> None:
        """Raise StackError if a long-running process has exited."""
        for child in self._children:
            code = child.returncode
            if code is not None:
                child.wait()  # show its last words before ours
                raise StackError(f"{child.name} exited unexpectedly ({_describe_exit(code)})")

    def stop_all(self) -> None:
        """Stop every running process, all at once, within one grace period."""
        running = [child for child in self._children if child.returncode is None]
        if running:
            self._out.say("stopping " + ", ".join(child.name for child in running))
        for child in running:
            child.request_stop()
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for child in self._children:
            child.finish_stop(deadline)
        self._children.clear()


# -- the stack -------------------------------------------------------------------------------


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m cara_devstack",
        description="Run Cara for development: databases, migrations, seed data, API, worker, scheduler.",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=None,
        help=f"port of the API on {HOST} (default: $PORT, else {DEFAULT_PORT})",
    )
    parser.add_argument(
        "--demo-ai",
        action="store_true",
        help="use the built-in demo AI instead of a real provider (sets CARA_DEMO_AI=1); "
        "the default when GEMINI_API_KEY is not set",
    )
    args = parser.parse_args(argv)
    if args.port is None:
        try:
            args.port = int(os.environ.get("PORT") or DEFAULT_PORT)
        except ValueError:
            parser.error(f"PORT must be a number, not {os.environ['PORT']!r}")
    if not 0 < args.port < 65536:
        parser.error(f"--port must be between 1 and 65535, not {args.port}")
    return args


def _port_in_use(port: int) -> bool:
    """True if something already listens on ``port``: uvicorn would fail to bind, and our health
    check might even get its 200 from that other server."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # Same option uvicorn uses, so a port in TIME_WAIT after a restart does not count.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError:
            return True
    return False


Server = EmbeddedPostgres | EmbeddedRedis | EmbeddedOrthanc


def _databases(stack: ExitStack, out: Output) -> tuple[str, str, list[Server]]:
    """DATABASE_URL and REDIS_URL: from the environment, else from embedded servers we start.

    The servers we start are also returned so their health can be watched; ``stack`` stops them.
    """
    database_url = os.environ.get("DATABASE_URL", "")
    redis_url = os.environ.get("REDIS_URL", "")
    servers: list[Server] = []
    if database_url:
        out.say("using DATABASE_URL from the environment")
    else:
        started = time.monotonic()
        postgres = stack.enter_context(start_postgres(DATA_DIR / "postgres"))
        servers.append(postgres)
        database_url = postgres.url
        out.say(
            f"PostgreSQL ready on {HOST}:{postgres.port} in {time.monotonic() - started:.1f}s "
            f"(log: {postgres.log_path.relative_to(REPO_ROOT)})"
        )
    if redis_url:
        out.say("using REDIS_URL from the environment")
    else:
        started = time.monotonic()
        redis_server = stack.enter_context(start_redis(DATA_DIR / "redis"))
        servers.append(redis_server)
        redis_url = redis_server.url
        out.say(
            f"Redis ready on {HOST}:{redis_server.port} in {time.monotonic() - started:.1f}s "
            f"(log: {redis_server.log_path.relative_to(REPO_ROOT)})"
        )
    return database_url, redis_url, servers


def _pacs(stack: ExitStack, env: dict[str, str], servers: list[Server], out: Output) -> None:
    """PACS_URL from the environment, else an embedded Orthanc whose DICOMweb becomes the default
    PACS of every tenant (PACS_URL, PACS_USERNAME, PACS_PASSWORD in the children's environment)."""
    if env.get("PACS_URL"):
        out.say("using PACS_URL from the environment")
        return
    if not orthanc_installed():
        out.say(
            "Orthanc is not installed (apt-get install orthanc orthanc-dicomweb): imaging answers "
            "'No PACS is configured' until it is, or until PACS_URL names one"
        )
        return
    started = time.monotonic()
    orthanc = stack.enter_context(start_orthanc(DATA_DIR / "orthanc"))
    servers.append(orthanc)
    env.update(PACS_URL=orthanc.dicomweb_url, PACS_USERNAME=orthanc.username, PACS_PASSWORD=orthanc.password)
    out.say(
        f"Orthanc (PACS, DICOMweb) ready on {HOST}:{orthanc.port} in {time.monotonic() - started:.1f}s "
        f"(log: {orthanc.log_path.relative_to(REPO_ROOT)})"
    )


def _child_env(database_url: str, redis_url: str, port: int, demo_ai: bool) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        CARA_ENV="development",
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        PYTHONUNBUFFERED="1",  # output shows up as it is written, not when a buffer fills
    )
    # Links in e-mails (password reset, invitations) must point at this server.
    env.setdefault("PUBLIC_BASE_URL", f"http://{HOST}:{port}")
    # Ctrl-C should not wait long for open consultations (the supervisor's own grace is 10 s).
    env.setdefault("CARA_DRAIN_SECONDS", "3")
    if demo_ai:
        env["CARA_DEMO_AI"] = "1"
    return env


def wants_demo_ai(flag: bool, environ: Mapping[str, str]) -> bool:
    """--demo-ai, or no provider key: a newcomer's stack answers out of the box (with a badge)."""
    return flag or not environ.get("GEMINI_API_KEY", "").strip()


def _demo_ai(env: dict[str, str]) -> list[str]:
    """Point the stack at the Gemini double's scripted demo peer; returns its command.

    Its throwaway CA is written before anything starts, so the API and the worker
    trust the double from their first connection; a real key in the environment
    is not used while --demo-ai is on.
    """
    from cara_doubles.gemini import DEFAULT_API_KEY, write_tls_files

    tls_dir = DATA_DIR / "gemini-double"
    tls = write_tls_files(tls_dir)
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port = probe.getsockname()[1]
    env.update(
        GEMINI_API_KEY=DEFAULT_API_KEY,
        GEMINI_BASE_URL=f"https://{HOST}:{port}",
        GEMINI_CA_FILE=str(tls.ca_file),
    )
    return ["cara_doubles.gemini", "--port", str(port), "--tls-dir", str(tls_dir), "--reuse-tls"]


def _wait_until_healthy(port: int, supervisor: Supervisor, servers: Sequence[Server]) -> float:
    """Poll /api/health until it answers 200; return how long that took."""
    url = f"http://{HOST}:{port}/api/health"
    started = time.monotonic()
    with httpx.Client(timeout=2.0) as client:
        while True:
            _check(supervisor, servers)
            try:
                if client.get(url).status_code == 200:
                    return time.monotonic() - started
            except httpx.HTTPError:
                pass  # not listening yet
            if time.monotonic() - started > HEALTH_TIMEOUT_SECONDS:
                raise StackError(f"{url} did not answer 200 within {HEALTH_TIMEOUT_SECONDS:.0f}s")
            time.sleep(0.25)


def _check(supervisor: Supervisor, servers: Sequence[Server]) -> None:
    supervisor.check()
    for server in servers:
        if not server.running:
            kind = {EmbeddedPostgres: "PostgreSQL", EmbeddedRedis: "Redis"}.get(type(server), "Orthanc")
            raise StackError(f"embedded {kind} exited unexpectedly; see {server.log_path}")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def _start_stripe_double(supervisor: Supervisor, env: dict[str, str], api_port: int, out: Output) -> None:
    """Without STRIPE_SECRET_KEY, payments go to the project's Stripe test double (cara_doubles.stripe):
    its hosted checkout takes the test card 4242 4242 4242 4242 and it posts signed webhooks to the
    API. Its memory starts empty at every run; the seed puts the plans back in it."""
    from cara_doubles.stripe import DEFAULT_SECRET_KEY, DEFAULT_WEBHOOK_SECRET

    port = _free_port()
    env.update(
        STRIPE_SECRET_KEY=DEFAULT_SECRET_KEY,
        STRIPE_WEBHOOK_SECRET=DEFAULT_WEBHOOK_SECRET,
        STRIPE_API_BASE=f"http://{HOST}:{port}",
    )
    webhook = f"http://{HOST}:{api_port}/api/stripe/webhook"
    supervisor.start_service("stripe", ["cara_doubles.stripe", "--port", str(port), "--webhook-url", webhook])
    deadline = time.monotonic() + 30
    while not _port_in_use(port):
        supervisor.check()
        if time.monotonic() > deadline:
            raise StackError("the Stripe test double did not start within 30s")
        time.sleep(0.1)
    out.say(f"STRIPE_SECRET_KEY unset: test payments go to the Stripe test double on {HOST}:{port}")


def _run(args: argparse.Namespace, stack: ExitStack, out: Output) -> None:
    """Bring the stack up, then watch it; returns only by raising."""
    if _port_in_use(args.port):
        raise StackError(f"port {args.port} is already in use; stop what uses it or pass --port")
    database_url, redis_url, servers = _databases(stack, out)
    demo_ai = wants_demo_ai(args.demo_ai, os.environ)
    env = _child_env(database_url, redis_url, args.port, demo_ai)
    _pacs(stack, env, servers, out)
    demo_peer = _demo_ai(env) if demo_ai else None
    if demo_ai and not args.demo_ai:
        out.say(
            "GEMINI_API_KEY unset: the demo AI answers (the Gemini double's scripted peer; the consoles "
            "show 'Demo AI — not a medical model'). Set GEMINI_API_KEY to use the real provider."
        )
    supervisor = Supervisor(env, out)
    stack.callback(supervisor.stop_all)  # runs before the databases stop: last in, first out
    if demo_peer:
        supervisor.start_service("gemini", demo_peer)

    if not env.get("STRIPE_SECRET_KEY"):
        _start_stripe_double(supervisor, env, args.port, out)
    supervisor.run_step("migrate", ["tenants", "upgrade"])
    supervisor.run_step("seed", ["cara.seed"])
    supervisor.start_service("api", ["cara.serve", "--host", HOST, "--port", str(args.port)])
    supervisor.start_service("worker", ["dramatiq", "workers.registry", "--processes", "1", "--threads", "4"])
    supervisor.start_service("scheduler", ["workers.scheduler"])

    took = _wait_until_healthy(args.port, supervisor, servers)
    out.say(f"API healthy after {took:.1f}s; press Ctrl-C to stop")
    out.plain(f"Cara is running at http://{HOST}:{args.port}")
    while True:
        _check(supervisor, servers)
        time.sleep(0.5)


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    # From now on we are shutting down, which the grace periods keep short. Another Ctrl-C must
    # not interrupt that and, say, leave PostgreSQL without its shutdown checkpoint.
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    raise StopRequested(signum)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    out = Output(sys.stdout)
    embedded_logger = logging.getLogger("cara_devstack.embedded")
    embedded_logger.addHandler(_OutputLogHandler(out))
    embedded_logger.setLevel(logging.INFO)

    # Stop signals become an exception in the main thread, so that every path out of _run()
    # goes through the ExitStack below, which stops the children and then the databases.
    previous = {sig: signal.signal(sig, _raise_stop) for sig in STOP_SIGNALS}
    status = 1
    try:
        with ExitStack() as stack:
            try:
                _run(args, stack, out)
            except StopRequested as stop:
                out.say(f"{stop} received, stopping")
                status = 0
            except (StackError, ServerError) as error:
                for sig in STOP_SIGNALS:  # as in _raise_stop: let the shutdown finish
                    signal.signal(sig, signal.SIG_IGN)
                out.say(f"error: {error}")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    out.say("stopped" if status == 0 else "stopped after an error")
    return status


if __name__ == "__main__":
    sys.exit(main())
