"""Shutting an API replica down: readiness turns 503, live consultations end with 1012 after their
transcript is stored, and the browser is told it is reconnecting."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import text

from cara.kit import lifecycle
from cara.kit.db import get_engine
from cara.live import messages as m
from cara.live import relay
from cara.serve import DrainingServer, config
from cara_doubles.gemini import GeminiDouble
from tests.cara.live.conftest import Browser, doctor_token, start_in_thread


@pytest.fixture(autouse=True)
def _serving_again() -> Iterator[None]:
    yield
    lifecycle.reset()


@pytest.fixture
def replica(app: Any) -> Iterator[tuple[DrainingServer, str]]:
    """A replica of its own, started the way deployments start it (cara.serve), to be shut down."""
    cfg = config(app)
    cfg.host, cfg.port = "127.0.0.1", 0
    server = DrainingServer(cfg)
    thread, url = start_in_thread(server, "replica")
    yield server, url
    server.should_exit = True
    thread.join(15)


def test_readiness_fails_while_draining_and_liveness_does_not(client: Any) -> None:
    assert client.get("/api/health").json()["status"] == "ok"
    assert client.get("/api/health/ready").status_code == 200
    lifecycle.begin_draining()
    r = client.get("/api/health")
    assert r.status_code == 503
    assert r.json() == {"status": "draining", "database": "ok", "broker": "ok"}
    ready = client.get("/api/health/ready")
    assert ready.status_code == 503 and ready.json() == {"status": "draining"}
    live = client.get("/api/health/live")
    assert live.status_code == 200 and live.json() == {"status": "ok"}


def test_probes_do_not_fail_every_replica_on_a_shared_outage(client: Any, monkeypatch: Any) -> None:
    import cara.health.endpoints as health

    monkeypatch.setattr(health, "_broker_ok", lambda: False)
    assert client.get("/api/health").status_code == 503  # what monitors alert on
    assert client.get("/api/health/ready").json() == {"status": "ok"}
    assert client.get("/api/health/live").status_code == 200


def test_new_live_sockets_are_sent_elsewhere_while_draining(
    gemini: GeminiDouble, open_console: Callable[..., Browser]
) -> None:
    lifecycle.begin_draining()
    browser = open_console(None)  # closed before it could even send its token
    # 1012 (service restart), not a 44xx refusal: the web client reconnects, to another replica.
    assert browser.closed() == (1012, m.RESTARTING)
    assert gemini.sessions == []


def test_shutdown_ends_consultations_with_1012_after_storing_them(
    client: Any, gemini: GeminiDouble, replica: tuple[DrainingServer, str]
) -> None:
    server, url = replica
    browser = Browser(url, doctor_token(client))
    try:
        consultation = browser.status("connected")["consultationId"]
        assert relay.open_consultations()["cardiologist"] >= 1  # what the live-sessions gauge reads
        gemini.session(0).send_input_transcription("Hey Cara, patient in bed four")  # not finished yet
        browser.until(lambda msg: msg.get("type") == "transcript")

        server.should_exit = True  # what SIGTERM does (uvicorn's handle_exit)
        restarting = browser.status("reconnecting", timeout=10)
        assert restarting["message"] == m.RESTARTING
        assert browser.closed(10) == (1012, m.RESTARTING)
    finally:
        browser.close()

    with get_engine().connect() as conn:
        row = conn.execute(
            text("SELECT ended_at FROM independent.consultations WHERE id = :c"), {"c": consultation}
        ).one()
        lines = conn.execute(
            text("SELECT speaker, text FROM independent.transcript_lines WHERE consultation_id = :c"),
            {"c": consultation},
        ).all()
    assert row.ended_at is not None, "the consultation is closed before the socket"
    assert [tuple(line) for line in lines] == [("user", "Hey Cara, patient in bed four")]
    assert gemini.session(0).closed.wait(5), "the provider connection is closed too"
    assert gemini.session(0).close_code == 1000, "a normal close, not an error, at the provider"


def test_a_slow_last_write_does_not_lose_the_close_reason(
    client: Any, gemini: GeminiDouble, replica: tuple[DrainingServer, str], monkeypatch: Any
) -> None:
    """The relay's last write (the usage counters, in Redis) is slow, as on a loaded machine: the
    drain still waits for it, so the browser's close carries the reason, not the bare 1012 the
    server's own shutdown sends."""
    import time

    counted = relay.usage.add

    def slow_add(*args: Any, **kwargs: Any) -> None:
        time.sleep(0.5)
        counted(*args, **kwargs)

    monkeypatch.setattr(relay.usage, "add", slow_add)
    server, url = replica
    browser = Browser(url, doctor_token(client))
    try:
        browser.status("connected")
        server.should_exit = True
        browser.status("reconnecting", timeout=10)
        assert browser.closed(10) == (m.SERVICE_RESTART, m.RESTARTING)
    finally:
        browser.close()
