"""Two API processes, as a deployment runs them (`python -m cara.serve` each, two ports, the Gemini
double behind both): SIGTERM the one holding the browser's socket mid-consultation; the browser
rejoins on the other with the consultation id in its first frame. The consultation id, its
transcript (every line, numbered on) and the model's context (the provider's session resumed with
the handle the first process kept in Redis) survive. Unlike tests/cara/live/test_rejoin.py, nothing
is shared in memory: the replicas meet only in PostgreSQL and Redis.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from cara.live import messages as m
from cara_doubles.gemini import GeminiDouble
from tests.cara.live.conftest import Browser, doctor_token
from tests.cara.live.test_relay import consultation_row, final_line, stored, wake

REPO = Path(__file__).resolve().parents[3]


@dataclass
class Replica:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def live_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/api/live"

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(name: str, env: dict[str, str], tmp_path: Path) -> Replica:
    port = _free_port()
    log = tmp_path / f"{name}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cara.serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--workers",
                "1",
            ],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return Replica(process, port, log)


def _wait_ready(replica: Replica) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and replica.process.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{replica.port}/api/health/ready", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"replica on {replica.port} did not start:\n{replica.output()}")


@pytest.fixture
def replicas(gemini: GeminiDouble, tmp_path: Path) -> Iterator[tuple[Replica, Replica]]:
    env = {
        **os.environ,
        **gemini.settings(),
        "TRIAL_DAYS": "14",
        "LIVE_RECONNECT_BACKOFF_SECONDS": "0.05",
        "CARA_DRAIN_SECONDS": "10",
        "OTEL_TRACES_EXPORTER": "none",
    }
    started = [_start("replica-a", env, tmp_path), _start("replica-b", env, tmp_path)]
    try:
        for replica in started:
            _wait_ready(replica)
        yield started[0], started[1]
    finally:
        for replica in started:
            if replica.process.poll() is None:
                replica.process.send_signal(signal.SIGTERM)
        for replica in started:
            try:
                replica.process.wait(20)
            except subprocess.TimeoutExpired:
                replica.process.kill()
                replica.process.wait(10)


def test_sigterm_of_the_replica_holding_the_socket_loses_nothing(
    client: Any, gemini: GeminiDouble, replicas: tuple[Replica, Replica]
) -> None:
    first_replica, second_replica = replicas
    token = doctor_token(client, "Cardiologist")
    browser = Browser(first_replica.live_url, token)
    try:
        consultation = browser.status("connected", timeout=15)["consultationId"]
        assert consultation == browser.consultation
        first = gemini.session(0)
        wake(browser, first)
        first.send_output_transcription("Blood pressure 150 over 95.")
        first.send_turn_complete()
        browser.until(final_line("assistant", "Blood pressure 150 over 95."))
        first.send_resumption_update("handle-two-replicas")
        first.send_input_transcription("Start amlodipine five")  # mid-sentence when the replica goes
        browser.until(lambda msg: msg.get("type") == "transcript" and "amlodipine" in msg["text"])
        time.sleep(0.3)  # the handle reaches Redis (saved as it arrives)

        first_replica.process.send_signal(signal.SIGTERM)
        # 1012: the console reconnects (to another replica), it does not start a new consultation.
        assert browser.closed(15) == (m.SERVICE_RESTART, m.RESTARTING)
    finally:
        browser.close()
    # A single server process re-raises the signal once it has shut down cleanly (uvicorn).
    assert first_replica.process.wait(30) in (0, -signal.SIGTERM), first_replica.output()
    assert "live consultations drained" in first_replica.output()
    # What the drained replica stored before it went: every line so far, the half sentence too.
    before = stored("independent", consultation, 3)
    assert before == [
        (0, "user", "Hey Cara"),
        (1, "assistant", "Blood pressure 150 over 95."),
        (2, "user", "Start amlodipine five"),
    ]

    again = Browser(second_replica.live_url, token, consultation)
    try:
        connected = again.status("connected", timeout=15)
        assert connected["consultationId"] == consultation
        assert connected["rejoin"] is True and connected["resumed"] is True
        assert connected["awake"] is True, "awake on the first replica, awake on the second"
        second = gemini.session(1)  # listed once its setup is done: waited for, not read at once
        assert second is not first
        assert second.resumption_handle == "handle-two-replicas", "the model's context comes back"
        assert consultation_row("independent", consultation).ended_at is None
        second.send_input_transcription("milligrams once daily.")
        second.send_turn_complete()
        again.until(final_line("user", "milligrams once daily."))
        second.send_output_transcription("Amlodipine 5 mg daily noted.")
        second.send_turn_complete()
        again.until(final_line("assistant", "Amlodipine 5 mg daily noted."))
    finally:
        again.close()
    lines = stored("independent", consultation, 5)
    assert lines[:3] == before, "nothing stored before the drain changed or went missing"
    assert lines[3:] == [
        (3, "user", "milligrams once daily."),
        (4, "assistant", "Amlodipine 5 mg daily noted."),
    ]
    assert [line[0] for line in lines] == list(range(5)), "no line lost or numbered twice"
    # One consultation throughout: the rejoin did not start another.
    assert (
        client.get("/api/consultations", headers={"Authorization": f"Bearer {token}"}).json()["items"][0][
            "id"
        ]
        == consultation
    )
