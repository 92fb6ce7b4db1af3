"""A TCP proxy that shapes, stalls and cuts the link between a browser and Cara.

``python -m cara_devstack.netshape --listen 127.0.0.1:9100 --target 127.0.0.1:8000 [--up-kbps 250]
[--down-kbps 750] [--rtt-ms 100] [--window-kb 32] [--control 127.0.0.1:9101]``

Point the browser at the listen address; every byte to and from the target goes through:

* a token bucket per direction, shared by all connections (one link, like a 3G cell): ``--up-kbps``
  (browser -> server) and ``--down-kbps`` (server -> browser), in kilobits per second, 0 = unlimited;
* a delay of half the round trip per direction (``--rtt-ms``), bytes kept in order;
* a bounded in-flight window per connection and direction (``--window-kb``): while that many bytes wait
  for the bucket or the delay, the proxy stops reading, and the small socket buffers it asks for make
  the sender's kernel buffer fill, so back-pressure reaches the browser's ``WebSocket.bufferedAmount``
  (a shaped link that reads everything into memory would hide it);
* a cut: every open connection is reset and the port refuses new ones for N seconds (the listening
  socket is closed, so connecting fails with ECONNREFUSED), then it listens again;
* a stall: connections stay open but nothing moves either way for N seconds (a dead radio link).

Control over HTTP on ``--control`` (JSON answers):

    GET  /state                   the shaping, cut/stall deadlines, open connections, bytes each way
    POST /shape  {"upKbps": 250, "downKbps": 750, "rttMs": 100, "windowKb": 32}   any subset; 0 = off
    POST /cut?seconds=8           reset every connection, refuse new ones for 8 s
    POST /stall?seconds=5         freeze every connection for 5 s (sockets stay open)
    POST /restore                 end a cut or stall now
    POST /counters/reset          zero the byte counters

From Python (tests, benchmarks): ``NetShaper(target_port=...)`` with ``start_in_thread()``, ``cut()``,
``stall()``, ``shape()``, ``restore()``, ``state()`` and ``stop()``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

log = logging.getLogger("cara.netshape")

READ_SIZE = 4096
# Small kernel buffers on the proxy's sockets: the window, not the kernel, decides what is in flight.
SOCKET_BUFFER_BYTES = 16 * 1024
LINK_MSS = 1400


@dataclass
class Shape:
    up_kbps: float = 0.0
    down_kbps: float = 0.0
    rtt_ms: float = 0.0
    window_kb: float = 32.0

    def as_json(self) -> dict[str, float]:
        return {
            "upKbps": self.up_kbps,
            "downKbps": self.down_kbps,
            "rttMs": self.rtt_ms,
            "windowKb": self.window_kb,
        }


class TokenBucket:
    """Bytes per second with a small burst; `take` may run into debt and then waits it off."""

    def __init__(self, rate_of: Callable[[], float]) -> None:
        self._rate_of = rate_of  # bytes per second, 0 = unlimited
        self._tokens = 0.0
        self._at = time.monotonic()

    async def take(self, size: int) -> None:
        rate = self._rate_of()
        if rate <= 0:
            return
        now = time.monotonic()
        burst = max(rate * 0.02, 1500.0)
        self._tokens = min(burst, self._tokens + (now - self._at) * rate)
        self._at = now
        self._tokens -= size
        if self._tokens < 0:
            await asyncio.sleep(-self._tokens / rate)


@dataclass
class _Direction:
    name: str  # "up" | "down"
    bucket: TokenBucket
    bytes: int = 0


@dataclass(eq=False)
class _Connection:
    client: asyncio.StreamWriter
    server: asyncio.StreamWriter
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def abort(self) -> None:
        for writer in (self.client, self.server):
            transport = writer.transport
            with contextlib.suppress(Exception):
                sock = transport.get_extra_info("socket")
                if sock is not None:
                    # Linger 0: close with a reset, as a dropped radio link looks to the peer.
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            transport.abort()
        for task in self.tasks:
            task.cancel()


class NetShaper:
    def __init__(
        self,
        *,
        target_host: str = "127.0.0.1",
        target_port: int,
        listen_host: str = "127.0.0.1",
        listen_port: int = 0,
        shape: Shape | None = None,
    ) -> None:
        self.target = (target_host, target_port)
        self.listen_host = listen_host
        self.listen_port = listen_port
        self.shape = shape or Shape()
        self.up = _Direction("up", TokenBucket(lambda: self.shape.up_kbps * 125.0))
        self.down = _Direction("down", TokenBucket(lambda: self.shape.down_kbps * 125.0))
        self.cut_until = 0.0
        self.stall_until = 0.0
        self._connections: set[_Connection] = set()
        self._server: asyncio.Server | None = None
        self._reopen: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._control: asyncio.Server | None = None
        self.control_port: int | None = None

    # ------------------------------------------------------------------ lifecycle

    async def start(self, control_host: str | None = None, control_port: int = 0) -> None:
        self._loop = asyncio.get_running_loop()
        await self._listen()
        if control_host is not None:
            self._control = await asyncio.start_server(self._on_control, control_host, control_port)
            self.control_port = self._control.sockets[0].getsockname()[1]

    async def _listen(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Set before listen(): accepted sockets inherit it, and the window scale is fixed at the handshake.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SOCKET_BUFFER_BYTES)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SOCKET_BUFFER_BYTES)
        # A real link's segment size: on loopback (MSS 64 KB) the browser's kernel sizes its send
        # buffer from the MSS to ~4 MB, which would swallow minutes of a slow link before the page's
        # bufferedAmount moved. Advertised in the SYN-ACK, it brings that buffer down to ~100 KB.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, LINK_MSS)
        sock.bind((self.listen_host, self.listen_port))
        self.listen_port = sock.getsockname()[1]
        self._server = await asyncio.start_server(self._on_client, sock=sock)

    async def aclose(self) -> None:
        if self._reopen is not None:
            self._reopen.cancel()
        for conn in list(self._connections):
            conn.abort()
        for server in (self._server, self._control):
            if server is not None:
                server.close()
        self._server = None

    def start_in_thread(self, control: bool = False) -> NetShaper:
        """Run on an event loop of its own (for synchronous tests); returns self once listening."""
        ready: Future[None] = Future()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop

            async def main() -> None:
                try:
                    await self.start("127.0.0.1" if control else None)
                except BaseException as exc:
                    ready.set_exception(exc)
                    raise
                ready.set_result(None)

            loop.run_until_complete(main())
            loop.run_forever()

            async def close() -> None:
                await self.aclose()
                rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
                for task in rest:
                    task.cancel()
                await asyncio.gather(*rest, return_exceptions=True)

            loop.run_until_complete(close())
            loop.close()

        self._thread = threading.Thread(target=run, name="netshape", daemon=True)
        self._thread.start()
        ready.result(10)
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    def _call(self, fn: Callable[[], Any]) -> Any:
        """Run `fn` on the proxy's loop (from any thread)."""
        assert self._loop is not None
        if self._thread is None or threading.current_thread() is self._thread:
            return fn()
        done: Future[Any] = Future()

        def run() -> None:
            try:
                done.set_result(fn())
            except BaseException as exc:
                done.set_exception(exc)

        self._loop.call_soon_threadsafe(run)
        return done.result(10)

    # ------------------------------------------------------------------ controls

    def cut(self, seconds: float) -> None:
        """Reset every connection and refuse new ones for `seconds`."""
        self._call(lambda: self._cut(seconds))

    def _cut(self, seconds: float) -> None:
        assert self._loop is not None
        self.cut_until = time.monotonic() + seconds
        if self._server is not None:
            self._server.close()
            self._server = None
        for conn in list(self._connections):
            conn.abort()
        self._connections.clear()
        if self._reopen is not None:
            self._reopen.cancel()
        self._reopen = self._loop.call_later(seconds, self._end_cut)

    def _end_cut(self) -> None:
        assert self._loop is not None
        self._reopen = None
        self.cut_until = 0.0
        if self._server is None:
            self._loop.create_task(self._listen())

    def stall(self, seconds: float) -> None:
        """Freeze every connection (both ways) for `seconds`; the sockets stay open."""
        self._call(lambda: setattr(self, "stall_until", time.monotonic() + seconds))

    def restore(self) -> None:
        def run() -> None:
            self.stall_until = 0.0
            if self._reopen is not None:
                self._reopen.cancel()
                self._end_cut()

        self._call(run)

    def set_shape(self, **changes: float) -> None:
        """up_kbps, down_kbps, rtt_ms, window_kb (0 = unlimited / no delay)."""

        def run() -> None:
            for key, value in changes.items():
                if not hasattr(self.shape, key):
                    raise ValueError(f"unknown shaping setting {key!r}")
                setattr(self.shape, key, float(value))

        self._call(run)

    def state(self) -> dict[str, Any]:
        now = time.monotonic()
        return {
            **self.shape.as_json(),
            "listenPort": self.listen_port,
            "cutSeconds": round(max(0.0, self.cut_until - now), 3),
            "stallSeconds": round(max(0.0, self.stall_until - now), 3),
            "connections": len(self._connections),
            "bytesUp": self.up.bytes,
            "bytesDown": self.down.bytes,
        }

    def reset_counters(self) -> None:
        def run() -> None:
            self.up.bytes = 0
            self.down.bytes = 0

        self._call(run)

    # ------------------------------------------------------------------ the relay

    async def _on_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._server is None or time.monotonic() < self.cut_until:
            writer.transport.abort()
            return
        try:
            upstream = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            upstream.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SOCKET_BUFFER_BYTES)
            upstream.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SOCKET_BUFFER_BYTES)
            upstream.setblocking(False)
            assert self._loop is not None
            await self._loop.sock_connect(upstream, self.target)
            server_reader, server_writer = await asyncio.open_connection(sock=upstream)
        except OSError:
            writer.transport.abort()
            return
        conn = _Connection(client=writer, server=server_writer)
        self._connections.add(conn)
        conn.tasks = [
            asyncio.create_task(self._pipe(reader, server_writer, self.up)),
            asyncio.create_task(self._pipe(server_reader, writer, self.down)),
        ]
        try:
            await asyncio.gather(*conn.tasks, return_exceptions=True)
        finally:
            self._connections.discard(conn)
            for w in (writer, server_writer):
                with contextlib.suppress(Exception):
                    w.close()

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, way: _Direction) -> None:
        """Read, pace through the bucket, delay, deliver in order; at most a window of bytes in flight."""
        queue: deque[tuple[float, bytes]] = deque()
        in_flight = 0
        changed = asyncio.Event()
        eof = False

        async def deliver() -> None:
            nonlocal in_flight
            while True:
                while not queue:
                    if eof:
                        with contextlib.suppress(Exception):
                            sink.write_eof()
                        return
                    changed.clear()
                    await changed.wait()
                due, chunk = queue[0]
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                await self._while_stalled()
                way.bytes += len(chunk)
                sink.write(chunk)
                await sink.drain()
                queue.popleft()
                in_flight -= len(chunk)
                changed.set()

        writer_task = asyncio.create_task(deliver())
        try:
            while True:
                window = int(self.shape.window_kb * 1024) or 1 << 30
                while in_flight >= window:
                    changed.clear()
                    await changed.wait()
                await self._while_stalled()
                chunk = await source.read(min(READ_SIZE, max(512, window - in_flight)))
                if not chunk:
                    break
                in_flight += len(chunk)
                await way.bucket.take(len(chunk))
                queue.append((time.monotonic() + self.shape.rtt_ms / 2000.0, chunk))
                changed.set()
            eof = True
            changed.set()
            await writer_task
        finally:
            writer_task.cancel()

    async def _while_stalled(self) -> None:
        while (left := self.stall_until - time.monotonic()) > 0:
            await asyncio.sleep(min(left, 0.05))

    # ------------------------------------------------------------------ control API

    async def _on_control(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            request_line, *header_lines = head.decode("latin-1").split("\r\n")
            method, target, _ = request_line.split(" ", 2)
            headers = {
                k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in header_lines if h)
            }
            body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
            status, answer = self._control_request(method, target, body)
        except Exception as exc:  # a bad control request gets a 400, the proxy goes on
            status, answer = 400, {"error": str(exc)}
        payload = json.dumps(answer).encode()
        writer.write(
            f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
            + payload
        )
        with contextlib.suppress(Exception):
            await writer.drain()
            writer.close()

    def _control_request(self, method: str, target: str, body: bytes) -> tuple[int, dict[str, Any]]:
        url = urlsplit(target)
        query = parse_qs(url.query)
        seconds = float(query.get("seconds", ["0"])[0])
        if method == "GET" and url.path == "/state":
            return 200, self.state()
        if method != "POST":
            return 404, {"error": "unknown control"}
        if url.path == "/shape":
            given = json.loads(body or b"{}")
            names = {"upKbps": "up_kbps", "downKbps": "down_kbps", "rttMs": "rtt_ms", "windowKb": "window_kb"}
            unknown = set(given) - set(names)
            if unknown:
                return 400, {"error": f"unknown settings: {sorted(unknown)}"}
            self.set_shape(**{names[k]: float(v) for k, v in given.items()})
        elif url.path == "/cut":
            self._cut(seconds)
        elif url.path == "/stall":
            self.stall(seconds)
        elif url.path == "/restore":
            self.restore()
        elif url.path == "/counters/reset":
            self.reset_counters()
        else:
            return 404, {"error": "unknown control"}
        return 200, self.state()


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m cara_devstack.netshape", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--listen", default="127.0.0.1:9100", help="host:port the browser connects to")
    parser.add_argument("--target", default="127.0.0.1:8000", help="host:port of Cara (API or web server)")
    parser.add_argument("--control", default="127.0.0.1:9101", help="host:port of the HTTP control API")
    parser.add_argument("--up-kbps", type=float, default=0.0, help="browser to server, kbit/s (0: off)")
    parser.add_argument("--down-kbps", type=float, default=0.0, help="server to browser, kbit/s (0: off)")
    parser.add_argument("--rtt-ms", type=float, default=0.0, help="round-trip delay added, ms")
    parser.add_argument("--window-kb", type=float, default=32.0, help="bytes in flight per direction, KiB")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s netshape %(message)s")
    listen_host, listen_port = _address(args.listen)
    target_host, target_port = _address(args.target)
    control_host, control_port = _address(args.control)
    shaper = NetShaper(
        target_host=target_host,
        target_port=target_port,
        listen_host=listen_host,
        listen_port=listen_port,
        shape=Shape(args.up_kbps, args.down_kbps, args.rtt_ms, args.window_kb),
    )

    async def run() -> None:
        await shaper.start(control_host, control_port)
        log.info(
            "listening on %s:%s -> %s:%s, control on %s:%s, %s",
            listen_host,
            shaper.listen_port,
            target_host,
            target_port,
            control_host,
            shaper.control_port,
            shaper.shape.as_json(),
        )
        await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())


if __name__ == "__main__":
    main()
