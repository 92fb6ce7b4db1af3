"""Rejoin, never restart: a dropped browser socket comes back to the same consultation.

The browser keeps the consultation id and sends it again in its first frame. The relay that takes it
resumes the provider's session with the handle kept in Redis (the model keeps its context), or primes
a fresh one with the stored transcript; numbering of transcript lines goes on, nothing is lost, the
wake state carries over. Two sockets never hold one consultation: the newer takes it over.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from cara.kit import lifecycle
from cara.live import messages as m
from cara.live import rejoin
from cara.serve import DrainingServer, config
from cara_doubles.gemini import GeminiDouble
from tests.cara.live.conftest import Browser, doctor_token, start_consultation, start_in_thread
from tests.cara.live.test_relay import connect, consultation_row, final_line, is_type, stored, wake

Open = Any


def _kill(browser: Browser) -> None:
    """The network goes: the socket is dropped without a close handshake."""
    browser.ws.socket.close()
    browser.close()


def test_a_dropped_socket_rejoins_the_same_consultation_and_resumes_the_model(
    client: Any, gemini: GeminiDouble, open_console: Open
) -> None:
    token = doctor_token(client, "Cardiologist")
    browser, consultation = connect(open_console, token)
    first = gemini.session(0)
    wake(browser, first)
    first.send_output_transcription("Sinus rhythm, rate 72.")
    first.send_turn_complete()
    browser.until(is_type("turnComplete"))
    first.send_resumption_update("handle-7")
    first.send_input_transcription("The patient also reports")  # mid-sentence
    browser.until(
        lambda msg: msg.get("type") == "transcript" and not msg["final"] and msg["speaker"] == "user"
    )
    _kill(browser)

    # The half sentence is stored when the socket goes; the consultation waits for the doctor.
    assert stored("independent", consultation, 3) == [
        (0, "user", "Hey Cara"),
        (1, "assistant", "Sinus rhythm, rate 72."),
        (2, "user", "The patient also reports"),
    ]
    assert first.closed.wait(5)

    again = open_console(token, None, consultation)
    connected = again.status("connected")
    assert connected["consultationId"] == consultation
    assert connected["rejoin"] is True and connected["resumed"] is True
    assert connected["awake"] is True, "awake before the drop, awake after"
    second = gemini.session(1)
    assert second.resumption_handle == "handle-7", "the model's context comes back with the handle"
    assert consultation_row("independent", consultation).ended_at is None

    second.send_input_transcription("chest pain on exertion.")
    second.send_turn_complete()
    again.until(final_line("user", "chest pain on exertion."))
    assert [line[0] for line in stored("independent", consultation, 4)] == [0, 1, 2, 3]
    assert stored("independent", consultation, 4)[3] == (3, "user", "chest pain on exertion.")


def test_without_a_usable_handle_the_rejoin_primes_a_fresh_session_with_the_stored_transcript(
    client: Any, gemini: GeminiDouble, open_console: Open
) -> None:
    token = doctor_token(client, "Cardiologist")
    browser, consultation = connect(open_console, token)
    first = gemini.session(0)
    wake(browser, first)
    first.send_output_transcription("Troponin is normal.")
    first.send_turn_complete()
    browser.until(is_type("turnComplete"))
    first.send_resumption_update("expired-handle")
    browser.until(is_type("ping"), timeout=3)  # the handle has reached Redis by the next second
    _kill(browser)
    assert stored("independent", consultation, 2)

    gemini.reject_resumption = True
    again = open_console(token, None, consultation)
    connected = again.status("connected", timeout=10)
    assert connected["consultationId"] == consultation and connected["resumed"] is False
    fresh = gemini.session(1)  # listed once its setup is done: waited for, not read at once
    assert fresh.resumption_handle is None
    primed = fresh.wait_for(lambda msg: "clientContent" in msg)["clientContent"]
    context = primed["turns"][0]["parts"][0]["text"]
    assert "Clinician: Hey Cara" in context and "Cara: Troponin is normal." in context
    assert rejoin.load(uuid.UUID(consultation)).handle is None


def test_asleep_stays_asleep_across_a_rejoin(client: Any, gemini: GeminiDouble, open_console: Open) -> None:
    token = doctor_token(client, "Cardiologist")
    browser, consultation = connect(open_console, token)
    first = gemini.session(0)
    wake(browser, first)
    first.send_input_transcription(" go to sleep")
    browser.until(lambda msg: msg.get("type") == "wake" and msg["awake"] is False)
    first.send_turn_complete()
    browser.until(is_type("turnComplete"))
    _kill(browser)
    assert first.closed.wait(5)
    again = open_console(token, None, consultation)
    assert again.status("connected")["awake"] is False


def test_a_newer_socket_takes_the_consultation_over(
    client: Any, gemini: GeminiDouble, open_console: Open
) -> None:
    token = doctor_token(client, "Cardiologist")
    old, consultation = connect(open_console, token)
    first = gemini.session(0)
    first.send_input_transcription("Hey Cara, blood pressure 150 over 95")  # open line
    old.until(is_type("transcript"))
    # The link stalled without the server noticing; the console reconnects.
    new = open_console(token, None, consultation)
    assert new.status("connected", timeout=10)["consultationId"] == consultation
    assert old.closed(5)[0] == m.CLOSE_CODES["replaced"]
    assert stored("independent", consultation, 1) == [(0, "user", "Hey Cara, blood pressure 150 over 95")]
    gemini.session(1).send_output_transcription("Noted.")
    gemini.session(1).send_turn_complete()
    new.until(final_line("assistant", "Noted."))
    assert [line[0] for line in stored("independent", consultation, 2)] == [0, 1]


def test_a_consultation_of_another_doctor_is_not_found(
    client: Any, gemini: GeminiDouble, open_console: Open, live_server: str
) -> None:
    someone = doctor_token(client, "Cardiologist")
    theirs = start_consultation(live_server, someone)
    assert theirs is not None
    browser = open_console(doctor_token(client, "Cardiologist"), None, theirs)
    error = browser.status("error")
    assert error["code"] == "not_found"
    assert browser.closed()[0] == m.CLOSE_CODES["not_found"]
    assert gemini.sessions == []


def test_nothing_is_relayed_without_a_consultation(
    client: Any, gemini: GeminiDouble, live_server: str, browsers: list[Browser]
) -> None:
    browser = Browser(live_server, doctor_token(client), start=False)
    browsers.append(browser)
    error = browser.status("error")
    assert error["code"] == "bad_request" and error["message"] == m.NO_CONSULTATION
    assert browser.closed()[0] == m.CLOSE_CODES["bad_request"]
    assert gemini.sessions == []


# ------------------------------------------------------------------ a replica drains


@pytest.fixture
def replica(app: Any) -> Iterator[tuple[DrainingServer, str]]:
    cfg = config(app)
    cfg.host, cfg.port = "127.0.0.1", 0
    server = DrainingServer(cfg)
    thread, url = start_in_thread(server, "replica")
    yield server, url
    server.should_exit = True
    thread.join(15)
    lifecycle.reset()


def test_a_drained_replica_hands_the_consultation_to_another(
    client: Any, gemini: GeminiDouble, replica: tuple[DrainingServer, str], open_console: Open
) -> None:
    server, url = replica
    token = doctor_token(client, "Cardiologist")
    browser = Browser(url, token)
    try:
        consultation = browser.status("connected")["consultationId"]
        first = gemini.session(0)
        wake(browser, first)
        first.send_resumption_update("handle-drain")
        first.send_input_transcription(" the patient in bed four")  # mid-sentence
        browser.until(lambda msg: msg.get("type") == "transcript" and "bed four" in msg["text"])
        server.should_exit = True  # what SIGTERM does (cara.serve)
        assert browser.closed(10) == (m.SERVICE_RESTART, m.RESTARTING)
    finally:
        browser.close()
    # Both replicas run in this process here; the other replica (not shutting down) serves again.
    lifecycle.reset()

    again = open_console(token, None, consultation)
    connected = again.status("connected", timeout=10)
    assert connected["consultationId"] == consultation and connected["resumed"] is True
    # The double lists a session once its setup is done, which may be a moment after the
    # browser is told: wait for it rather than read the list at once.
    second = gemini.session(1)
    assert [s.resumption_handle for s in gemini.sessions] == [None, "handle-drain"]
    assert connected["awake"] is True
    second.send_output_transcription("Bed four noted.")
    second.send_turn_complete()
    again.until(final_line("assistant", "Bed four noted."))
    lines = stored("independent", consultation, 2)
    assert [line[0] for line in lines] == [0, 1], "no line lost or numbered twice"
    assert lines[0][2].startswith("Hey Cara") and "bed four" in lines[0][2]
    assert lines[-1] == (len(lines) - 1, "assistant", "Bed four noted.")
