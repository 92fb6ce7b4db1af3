"""The shaping proxy the network tests put between Chromium and Cara: rate, delay, cut, stall, control."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from cara_devstack.netshape import NetShaper, Shape


@pytest.fixture(autouse=True)
def clean_state() -> Iterator[None]:
    """No database or Redis here."""
    yield


@pytest.fixture
def echo_port() -> Iterator[int]:
    """A TCP server that echoes what it reads, one thread per connection."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):  # the proxy resets it on a cut
            while data := conn.recv(65536):
                conn.sendall(data)

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    listener.close()


def _connect(shaper: NetShaper) -> socket.socket:
    return socket.create_connection(("127.0.0.1", shaper.listen_port), timeout=5)


def _round_trip(sock: socket.socket, payload: bytes) -> bytes:
    sock.sendall(payload)
    got = b""
    while len(got) < len(payload):
        got += sock.recv(65536)
    return got


def test_bytes_pass_unchanged_and_are_counted(echo_port: int) -> None:
    shaper = NetShaper(target_port=echo_port).start_in_thread()
    try:
        with _connect(shaper) as sock:
            payload = bytes(range(256)) * 400
            assert _round_trip(sock, payload) == payload
        state = shaper.state()
        assert state["bytesUp"] == len(payload) and state["bytesDown"] == len(payload)
    finally:
        shaper.stop()


def test_the_rate_and_the_delay_are_applied(echo_port: int) -> None:
    # 400 kbit/s = 50 kB/s up; 40 kB through it takes about 0.8 s.
    shaper = NetShaper(target_port=echo_port, shape=Shape(up_kbps=400, rtt_ms=0)).start_in_thread()
    try:
        with _connect(shaper) as sock:
            start = time.monotonic()
            _round_trip(sock, b"x" * 40_000)
            elapsed = time.monotonic() - start
        assert 0.6 < elapsed < 2.5, elapsed
        shaper.set_shape(up_kbps=0, rtt_ms=300)
        with _connect(shaper) as sock:
            start = time.monotonic()
            _round_trip(sock, b"ping")
            elapsed = time.monotonic() - start
        assert 0.28 < elapsed < 1.5, elapsed  # half the RTT each way
    finally:
        shaper.stop()


def test_the_window_bounds_what_the_proxy_holds(echo_port: int) -> None:
    # 8 kbit/s up: a fast sender is soon blocked (its socket full), the proxy holds at most a window.
    shaper = NetShaper(target_port=echo_port, shape=Shape(up_kbps=8, window_kb=8)).start_in_thread()
    try:
        with _connect(shaper) as sock:
            sock.setblocking(False)
            sent = 0
            blocked_since: float | None = None
            deadline = time.monotonic() + 5.0
            while time.monotonic() < deadline:
                try:
                    sent += sock.send(b"y" * 65536)
                    blocked_since = None
                except BlockingIOError:
                    blocked_since = blocked_since or time.monotonic()
                    if time.monotonic() - blocked_since > 0.5:
                        break
                    time.sleep(0.01)
            assert blocked_since is not None, "the sender never felt back-pressure"
            # What the sender handed over waits in its kernel and the proxy's window, not in memory here.
            assert sent < 3_000_000
            assert shaper.state()["bytesUp"] < 8_000
    finally:
        shaper.stop()


def test_a_cut_resets_connections_and_refuses_new_ones_for_its_length(echo_port: int) -> None:
    shaper = NetShaper(target_port=echo_port).start_in_thread()
    try:
        sock = _connect(shaper)
        assert _round_trip(sock, b"before") == b"before"
        shaper.cut(1.0)
        with pytest.raises(OSError):
            sock.sendall(b"after")
            assert sock.recv(10) == b""  # an orderly end would fail the test too
            raise ConnectionResetError
        sock.close()
        with pytest.raises(ConnectionRefusedError):
            _connect(shaper)
        time.sleep(1.2)
        with _connect(shaper) as again:
            assert _round_trip(again, b"back") == b"back"
    finally:
        shaper.stop()


def test_a_stall_holds_bytes_without_closing(echo_port: int) -> None:
    shaper = NetShaper(target_port=echo_port).start_in_thread()
    try:
        with _connect(shaper) as sock:
            shaper.stall(0.6)
            start = time.monotonic()
            assert _round_trip(sock, b"held") == b"held"
            assert time.monotonic() - start > 0.5
    finally:
        shaper.stop()


def test_the_control_api(echo_port: int) -> None:
    shaper = NetShaper(target_port=echo_port).start_in_thread(control=True)
    base = f"http://127.0.0.1:{shaper.control_port}"

    def call(method: str, path: str, body: dict[str, float] | None = None) -> dict[str, Any]:
        response = httpx.request(method, base + path, json=body, timeout=5)
        assert response.status_code == 200
        answer: dict[str, Any] = response.json()
        return answer

    try:
        state = call("POST", "/shape", {"upKbps": 250, "downKbps": 750, "rttMs": 100})
        assert (state["upKbps"], state["downKbps"], state["rttMs"]) == (250, 750, 100)
        assert call("POST", "/cut?seconds=30")["cutSeconds"] > 25
        with pytest.raises(ConnectionRefusedError):
            _connect(shaper)
        assert call("POST", "/restore")["cutSeconds"] == 0
        time.sleep(0.1)
        with _connect(shaper) as sock:
            assert _round_trip(sock, b"ok") == b"ok"
            assert call("GET", "/state")["connections"] == 1
    finally:
        shaper.stop()
