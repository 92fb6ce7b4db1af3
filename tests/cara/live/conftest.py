"""A real server for the live socket, and a scripted 'browser' that talks to it."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
import pytest
import uvicorn
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from cara.live.assistant_profiles import assistant_profile_for
from tests.factories import add_staff, doctor_payload, hospital_payload, signup

Json = dict[str, Any]


def start_in_thread(server: uvicorn.Server, name: str) -> tuple[threading.Thread, str]:
    """Run a uvicorn server in a thread; returns the thread and the live socket's URL."""
    thread = threading.Thread(target=server.run, name=name, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not (server.started and server.servers):
        assert time.monotonic() < deadline and thread.is_alive(), f"{name} did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    return thread, f"ws://127.0.0.1:{port}/api/live"


@pytest.fixture(scope="session")
def live_server(app: Any) -> Iterator[str]:
    """The app on uvicorn in a thread: real sockets between 'browser', relay and double."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", ws="websockets-sansio")
    server = uvicorn.Server(config)
    thread, url = start_in_thread(server, "live-server")
    yield url
    server.should_exit = True
    thread.join(10)


def start_consultation(live_url: str, token: str, console: str = "generic") -> str | None:
    """POST /api/consultations with the patient's consent, on the server of `live_url`; the id, or
    None when the server refuses (a token or an account the test expects the socket to refuse)."""
    parts = urlsplit(live_url)
    base = f"http://{parts.netloc}"
    query = dict(parse_qsl(parts.query))
    profile = assistant_profile_for(query.get("specialty"), console)
    body = {"console": profile.key if profile else console, "consent": True}
    response = httpx.post(
        f"{base}/api/consultations", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    return str(response.json()["id"]) if response.status_code == 201 else None


class Browser:
    """What the web console does on the socket, with timeouts instead of hangs."""

    def __init__(
        self, url: str, token: str | None = None, consultation: str | None = None, *, start: bool = True
    ) -> None:
        """`consultation`: the id to join; without one, a consultation is started over HTTP first as
        the console does after the consent dialog (`start=False`: none, for the refusals)."""
        self._stack = contextlib.ExitStack()
        if consultation is None and token is not None and start:
            consultation = start_consultation(url, token)
        self.consultation = consultation
        self.ws: ClientConnection = self._stack.enter_context(
            connect(url, open_timeout=5, max_size=16 * 1024 * 1024)
        )
        self.seen: list[Json] = []
        if token is not None:
            auth: Json = {"type": "auth", "token": token}
            if consultation is not None:
                auth["consultationId"] = consultation
            self.send(auth)

    def send(self, message: Json) -> None:
        self.ws.send(json.dumps(message))

    def send_raw(self, data: str | bytes) -> None:
        self.ws.send(data)

    def recv(self, timeout: float = 5.0) -> Json:
        message: Json = json.loads(self.ws.recv(timeout=timeout))
        self.seen.append(message)
        return message

    def until(self, predicate: Callable[[Json], bool], timeout: float = 5.0) -> Json:
        """Read until a message matches (earlier ones stay in `seen`)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching message; seen: {[m.get('type') for m in self.seen]}")
            message = self.recv(left)
            if predicate(message):
                return message

    def status(self, state: str, timeout: float = 5.0) -> Json:
        return self.until(lambda m: m.get("type") == "status" and m.get("state") == state, timeout)

    def closed(self, timeout: float = 5.0) -> tuple[int | None, str]:
        """Read until the server closes; returns the close code and reason."""
        try:
            while True:
                self.recv(timeout)
        except ConnectionClosed as closed:
            frame = closed.rcvd
            return (frame.code, frame.reason) if frame else (None, "")

    def close(self) -> None:
        self._stack.close()


@pytest.fixture
def browsers() -> Iterator[list[Browser]]:
    opened: list[Browser] = []
    yield opened
    for browser in opened:
        browser.close()


@pytest.fixture
def open_console(live_server: str, browsers: list[Browser]) -> Callable[..., Browser]:
    def open_(token: str | None, console: str | None = None, consultation: str | None = None) -> Browser:
        url = live_server + (f"?{urlencode({'specialty': console})}" if console else "")
        browser = Browser(url, token, consultation)
        browsers.append(browser)
        return browser

    return open_


def doctor_token(client: Any, specialty: str = "Cardiologist", **overrides: Any) -> str:
    token: str = signup(client, doctor_payload(specialty=specialty, **overrides))["token"]
    return token


def hospital_doctor_token(client: Any, specialty: str = "Radiotherapist") -> tuple[str, str]:
    """A doctor of a subscribed hospital (lives in the hospital's schema); returns (token, schema)."""
    from cara.auth import tokens
    from tests.cara.admin_console.seed import subscribe

    hospital_body = hospital_payload()
    hospital = signup(client, hospital_body)
    subscribe(hospital_body["email"], "hospital-bronze")  # its doctors may use the assistant
    doctor = add_staff(client, doctor_payload(specialty=specialty, isHospitalCreated=True), hospital["token"])
    claims = tokens.decode(doctor["token"])
    assert claims is not None and claims.tenant_schema and claims.tenant_schema.startswith("hospital_")
    return doctor["token"], claims.tenant_schema


@pytest.fixture(autouse=True)
def _assistant_needs_a_subscription(doctors_on_trial: None) -> None:
    """The assistant is gated on the subscription; the doctors here are on trial."""
