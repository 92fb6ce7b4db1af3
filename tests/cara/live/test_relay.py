"""The relay end to end: a 'browser' on a real socket, the API on uvicorn, the Gemini double over TLS."""

from __future__ import annotations

import base64
import time
import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy import text

from cara.config import get_settings
from cara.kit.db import get_engine
from cara_doubles.gemini import GeminiDouble, LiveSession, decode_base64
from tests.cara.live.conftest import Browser, Json, doctor_token, hospital_doctor_token
from tests.factories import hospital_payload, signup

Open = Callable[..., Browser]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def is_type(kind: str) -> Callable[[Json], bool]:
    return lambda message: message.get("type") == kind


def final_line(speaker: str, text_: str) -> Callable[[Json], bool]:
    return lambda m: (
        m.get("type") == "transcript" and m["final"] and m["speaker"] == speaker and m["text"] == text_
    )


def stored(schema: str, consultation: str, expected: int, timeout: float = 5.0) -> list[tuple[int, str, str]]:
    """The consultation's stored lines (waiting for the writer to catch up to `expected`)."""
    deadline = time.monotonic() + timeout
    while True:
        with get_engine().connect() as conn:
            rows = [
                (r.seq, r.speaker, r.text)
                for r in conn.execute(
                    text(
                        f'SELECT seq, speaker, text FROM "{schema}".transcript_lines'
                        " WHERE consultation_id = :c ORDER BY seq"
                    ),
                    {"c": uuid.UUID(consultation)},
                )
            ]
        if len(rows) >= expected or time.monotonic() > deadline:
            return rows
        time.sleep(0.05)


def consultation_row(schema: str, consultation: str) -> Any:
    with get_engine().connect() as conn:
        return conn.execute(
            text(f'SELECT * FROM "{schema}".consultations WHERE id = :c'), {"c": uuid.UUID(consultation)}
        ).one()


def connect(open_console: Open, token: str, console: str | None = None) -> tuple[Browser, str]:
    browser = open_console(token, console)
    connected = browser.status("connected")
    return browser, connected["consultationId"]


def wake(browser: Browser, session: LiveSession) -> None:
    session.send_input_transcription("Hey Cara")
    browser.until(lambda m: m.get("type") == "wake" and m["awake"] is True)


# ------------------------------------------------------------------ audio and transcripts


class TestAudio:
    def test_microphone_audio_reaches_gemini_unchanged(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        browser, _ = connect(open_console, doctor_token(client))
        # 8 chunks of 2048 samples, every byte value (both base64 alphabets differ on some)
        chunks = [bytes(range(256)) * 16 for _ in range(8)]
        for chunk in chunks:
            browser.send({"type": "audio", "data": b64(chunk)})
        session = gemini.session(0)
        assert session.wait_for_audio(sum(map(len, chunks))) == b"".join(chunks)
        mimes = {m["realtimeInput"]["audio"]["mimeType"] for m in session.received if "realtimeInput" in m}
        assert mimes == {"audio/pcm;rate=16000"}

    def test_reply_audio_reaches_the_browser_unchanged(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        browser, _ = connect(open_console, doctor_token(client, "Radiologist"))
        session = gemini.session(0)
        wake(browser, session)
        reply = bytes(range(256)) * 30
        session.send_audio(reply)
        audio = browser.until(is_type("audio"))
        assert base64.b64decode(audio["data"]) == reply
        assert audio["mimeType"] == "audio/pcm;rate=24000"

    def test_url_safe_base64_from_the_service_reaches_the_browser_as_standard_base64(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        browser, _ = connect(open_console, doctor_token(client, "Radiologist"))
        session = gemini.session(0)
        wake(browser, session)
        reply = bytes(range(256)) * 3  # every byte value: both alphabets differ on some
        url_safe = base64.urlsafe_b64encode(reply).decode()
        part = {"inlineData": {"mimeType": "audio/pcm;rate=24000", "data": url_safe}}
        session.send({"serverContent": {"modelTurn": {"parts": [part]}}})
        audio = browser.until(is_type("audio"))
        assert audio["data"] == base64.b64encode(reply).decode()

    def test_interrupted_is_forwarded_so_playback_stops(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        browser, _ = connect(open_console, doctor_token(client, "Radiologist"))
        session = gemini.session(0)
        wake(browser, session)
        session.send_output_transcription("The lesion measures")
        session.send_interrupted()
        browser.until(is_type("interrupted"))
        # The cut-off reply is still a line of the transcript, closed before the interruption.
        assert any(final_line("assistant", "The lesion measures")(m) for m in browser.seen)

    def test_video_frames_and_typed_questions_go_upstream(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        browser, consultation = connect(open_console, doctor_token(client, "Radiologist"))
        jpeg = b"\xff\xd8\xff\xe0" + bytes(100)
        browser.send({"type": "video", "data": b64(jpeg)})
        browser.send({"type": "text", "text": "Describe this chest film"})
        browser.send({"type": "audioStreamEnd"})
        session = gemini.session(0)
        video = session.wait_for(lambda m: "video" in m.get("realtimeInput", {}))
        assert decode_base64(video["realtimeInput"]["video"]["data"]) == jpeg
        assert video["realtimeInput"]["video"]["mimeType"] == "image/jpeg"
        typed = session.wait_for(lambda m: "text" in m.get("realtimeInput", {}))
        assert typed["realtimeInput"]["text"] == "Describe this chest film"
        session.wait_for(lambda m: m.get("realtimeInput", {}).get("audioStreamEnd") is True)
        # A typed question is the clinician's own act: it wakes Cara and is part of the transcript.
        browser.until(lambda m: m.get("type") == "wake" and m["awake"] is True)
        assert stored("independent", consultation, 1) == [(0, "user", "Describe this chest film")]


class TestTranscripts:
    def test_both_sides_stored_in_the_doctors_tenant_as_they_arrive(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        browser, consultation = connect(open_console, doctor_token(client, "Cardiologist"))
        session = gemini.session(0)
        session.send_input_transcription("Hey Cara,")
        session.send_input_transcription(" what does a QTc of 520 mean?")
        session.send_output_transcription("A QTc of 520 ms is markedly prolonged.")
        browser.until(final_line("user", "Hey Cara, what does a QTc of 520 mean?"))
        # Stored before the turn is over: the user's line closed when Cara began.
        assert stored("independent", consultation, 1)[:1] == [
            (0, "user", "Hey Cara, what does a QTc of 520 mean?")
        ]
        session.send_turn_complete()
        browser.until(is_type("turnComplete"))
        assert stored("independent", consultation, 2) == [
            (0, "user", "Hey Cara, what does a QTc of 520 mean?"),
            (1, "assistant", "A QTc of 520 ms is markedly prolonged."),
        ]
        interim = [m for m in browser.seen if m.get("type") == "transcript" and not m["final"]]
        assert [m["text"] for m in interim if m["speaker"] == "user"] == [
            "Hey Cara,",
            "Hey Cara, what does a QTc of 520 mean?",
        ]

    def test_hospital_doctor_lines_go_to_the_hospital_schema_only(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        token, schema = hospital_doctor_token(client, "Nurse")
        browser, consultation = connect(open_console, token, "nurse")
        session = gemini.session(0)
        session.send_input_transcription("Hey Cara, wound dressing frequency?")
        session.send_turn_complete()
        browser.until(is_type("turnComplete"))
        assert stored(schema, consultation, 1) == [(0, "user", "Hey Cara, wound dressing frequency?")]
        assert stored("independent", consultation, 0, timeout=0) == []
        row = consultation_row(schema, consultation)
        assert row.console == "nurse" and row.model == get_settings().gemini_live_model

    def test_consultation_is_closed_when_the_browser_leaves(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        browser, consultation = connect(open_console, doctor_token(client))
        session = gemini.session(0)
        session.send_input_transcription("half a sentence")  # never finished by the service
        browser.until(is_type("transcript"))
        browser.close()
        assert stored("independent", consultation, 1) == [(0, "user", "half a sentence")]
        deadline = time.monotonic() + 5
        while consultation_row("independent", consultation).ended_at is None:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert session.closed.wait(5)
        assert session.close_code == 1000, "the doctor left: a normal close at the provider"


# ------------------------------------------------------------------ wake phrases


class TestWakePhrases:
    def test_cardiology_answers_only_after_hey_cara_and_sleeps_on_request(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        browser, consultation = connect(open_console, doctor_token(client, "Cardiologist"))
        session = gemini.session(0)
        # Before 'Hey Cara': the reply is neither played nor stored.
        session.send_input_transcription("the patient is 54")
        session.send_audio(b"\x01\x00" * 100)
        session.send_output_transcription("Noted.")
        session.send_turn_complete()
        browser.until(is_type("turnComplete"))
        assert not [m for m in browser.seen if m["type"] == "audio"]
        assert not [m for m in browser.seen if m.get("speaker") == "assistant"]

        session.send_input_transcription("Hey Cara, is this STEMI?")
        browser.until(lambda m: m.get("type") == "wake" and m["awake"] is True)
        session.send_audio(b"\x02\x00" * 100)
        browser.until(is_type("audio"))
        session.send_output_transcription("The ST elevation pattern suggests it.")
        session.send_turn_complete()
        browser.until(is_type("turnComplete"))

        session.send_input_transcription("Thank you. Go to sleep.")
        browser.until(lambda m: m.get("type") == "wake" and m["awake"] is False)
        assert browser.seen[-2]["type"] == "interrupted"  # playback stops at once
        session.send_audio(b"\x03\x00" * 100)
        session.send_output_transcription("Goodbye.")
        session.send_turn_complete()
        browser.until(is_type("turnComplete"))
        assert [base64.b64decode(m["data"])[:2] for m in browser.seen if m["type"] == "audio"] == [
            b"\x02\x00"
        ]
        assert [line[1:] for line in stored("independent", consultation, 4)] == [
            ("user", "the patient is 54"),
            ("user", "Hey Cara, is this STEMI?"),
            ("assistant", "The ST elevation pattern suggests it."),
            ("user", "Thank you. Go to sleep."),
        ]

    def test_radiology_ignores_go_to_sleep(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        browser, _ = connect(open_console, doctor_token(client, "Radiologist"))
        session = gemini.session(0)
        wake(browser, session)
        session.send_input_transcription("go to sleep")
        session.send_audio(b"\x04\x00" * 10)
        browser.until(is_type("audio"))
        assert not [m for m in browser.seen if m.get("type") == "wake" and m["awake"] is False]


# ------------------------------------------------------------------ tools


class TestDoseConstraintTool:
    def test_tool_call_round_trip(self, client: Any, gemini: GeminiDouble, open_console: Open) -> None:
        browser, consultation = connect(open_console, doctor_token(client, "Radiotherapist"))
        session = gemini.session(0)
        args = {"organ": "spinal cord", "metric": "Dmax", "value": 30, "fractions": 10}
        session.send_tool_call("check_dose_constraint", args, call_id="fc-7")
        answer = session.wait_for(lambda m: "toolResponse" in m)["toolResponse"]["functionResponses"]
        assert len(answer) == 1
        assert answer[0]["id"] == "fc-7" and answer[0]["name"] == "check_dose_constraint"
        result = answer[0]["response"]
        assert result["eqd2Gy"] == 36.0 and result["withinLimit"] is True
        assert result["source"]["row"] == "Spinal cord | Dmax | 50 Gy | myelopathy 0.2%"
        shown = browser.until(is_type("toolResult"))
        assert shown["result"] == result
        line = next(m for m in browser.seen if m.get("type") == "transcript" and m["speaker"] == "tool")
        assert line["final"] and "36 Gy EQD2" in line["text"] and "within limit" in line["text"]
        assert stored("independent", consultation, 1) == [(0, "tool", line["text"])]

    def test_bad_arguments_get_an_error_answer(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        connect(open_console, doctor_token(client, "Radiotherapist"))
        session = gemini.session(0)
        session.send_tool_call("check_dose_constraint", {"organ": "pancreas", "metric": "Dmax", "value": "x"})
        response = session.wait_for(lambda m: "toolResponse" in m)["toolResponse"]["functionResponses"][0]
        assert response["response"] == {"error": "'value' must be a number."}

    def test_other_consoles_have_no_such_tool(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        connect(open_console, doctor_token(client, "Cardiologist"))
        session = gemini.session(0)
        session.send_tool_call("check_dose_constraint", {"organ": "heart", "metric": "V25", "value": 5})
        response = session.wait_for(lambda m: "toolResponse" in m)["toolResponse"]["functionResponses"][0]
        assert response["response"] == {"error": "Unknown function 'check_dose_constraint'."}


# ------------------------------------------------------------------ long consultations


class TestResumption:
    def test_go_away_resumes_with_the_latest_handle_and_loses_no_line(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        browser, consultation = connect(open_console, doctor_token(client, "Cardiologist"))
        first = gemini.session(0)
        first.send_resumption_update("handle-1")
        first.send_input_transcription("Hey Cara, summarise the echo")
        first.send_resumption_update("handle-2")
        first.send_resumption_update("not-usable", resumable=False)
        first.send_output_transcription("The ejection fraction is")  # cut off by the switch
        first.send_go_away("5s")
        browser.status("reconnecting")
        # Audio spoken during the switch is kept and delivered to the new connection.
        browser.send({"type": "audio", "data": b64(b"\x05\x00" * 2048)})
        second = gemini.session(1)
        assert second.resumption_handle == "handle-2"
        assert browser.status("connected")["resumed"] is True
        assert second.wait_for_audio(4096) == b"\x05\x00" * 2048
        assert first.closed.wait(5)
        second.send_output_transcription("thirty-five percent.")
        second.send_turn_complete()
        browser.until(is_type("turnComplete"))
        assert stored("independent", consultation, 3) == [
            (0, "user", "Hey Cara, summarise the echo"),
            (1, "assistant", "The ejection fraction is"),
            (2, "assistant", "thirty-five percent."),
        ]
        finals = [(m["seq"], m["text"]) for m in browser.seen if m.get("type") == "transcript" and m["final"]]
        assert [seq for seq, _ in finals] == [0, 1, 2]
        assert not [m for m in browser.seen if m.get("state") == "error"]
        # The browser's socket stayed open all along: it still relays.
        browser.send({"type": "text", "text": "and the valves?"})
        second.wait_for(lambda m: m.get("realtimeInput", {}).get("text") == "and the valves?")
        browser.close()
        deadline = time.monotonic() + 5
        while consultation_row("independent", consultation).ended_at is None:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert consultation_row("independent", consultation).reconnects == 1

    def test_dropped_connection_resumes(self, client: Any, gemini: GeminiDouble, open_console: Open) -> None:
        browser, consultation = connect(open_console, doctor_token(client, "Radiologist"))
        first = gemini.session(0)
        first.send_resumption_update("handle-A")
        first.send_input_transcription("Hey Cara, a nodule of 9 mm")
        browser.until(is_type("transcript"))
        first.drop()  # no close frame, as when the network fails
        browser.status("reconnecting")
        second = gemini.session(1)
        assert second.resumption_handle == "handle-A"
        browser.status("connected")
        assert stored("independent", consultation, 1) == [(0, "user", "Hey Cara, a nodule of 9 mm")]

    def test_refused_handle_falls_back_to_a_fresh_session_primed_with_the_transcript(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        browser, consultation = connect(open_console, doctor_token(client, "Cardiologist"))
        first = gemini.session(0)
        wake(browser, first)
        first.send_output_transcription("Sinus rhythm, rate 72.")
        first.send_turn_complete()
        browser.until(is_type("turnComplete"))
        first.send_resumption_update("expired-handle")
        gemini.reject_resumption = True
        first.close(1011, "Internal error encountered.")
        browser.status("reconnecting")
        fresh = gemini.session(1)  # the refused resumption never completed its setup
        assert fresh.resumption_handle is None
        primed = fresh.wait_for(lambda m: "clientContent" in m)["clientContent"]
        assert primed["turnComplete"] is False
        context = primed["turns"][0]["parts"][0]["text"]
        assert "Clinician: Hey Cara" in context and "Cara: Sinus rhythm, rate 72." in context
        connected = browser.status("connected")
        assert connected["resumed"] is False and connected["awake"] is True  # still awake: server state
        assert stored("independent", consultation, 2) == [
            (0, "user", "Hey Cara"),
            (1, "assistant", "Sinus rhythm, rate 72."),
        ]

    def test_gives_up_after_the_retries_and_says_why(
        self, client: Any, gemini: GeminiDouble, open_console: Open, monkeypatch: Any
    ) -> None:
        monkeypatch.setattr(get_settings(), "live_reconnect_attempts", 2)
        browser, _ = connect(open_console, doctor_token(client))
        for _ in range(3):
            gemini.refuse_next_setup(1011, "The service is currently unavailable.")
        gemini.session(0).close(1011, "Internal error encountered.")
        error = browser.status("error", timeout=10)
        assert error["message"] == "The service is currently unavailable." and error["code"] == "upstream"
        assert browser.closed() == (4502, "The service is currently unavailable.")


# ------------------------------------------------------------------ failures and refusals


class TestFailures:
    def test_upstream_error_is_shown_with_its_message(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        gemini.refuse_next_setup(1008, "models/gemini-old is not found for API version v1beta.")
        browser = open_console(doctor_token(client))
        browser.status("connecting")
        error = browser.status("error")
        # The console shows 'Connection failed: {message}'.
        assert error["message"] == "models/gemini-old is not found for API version v1beta."
        assert browser.closed()[0] == 4502

    def test_wrong_api_key(
        self, client: Any, gemini: GeminiDouble, open_console: Open, monkeypatch: Any
    ) -> None:
        monkeypatch.setattr(get_settings(), "gemini_api_key", "not-the-key")
        browser = open_console(doctor_token(client))
        assert browser.status("error")["message"] == "API key not valid. Please pass a valid API key."

    def test_unreachable_provider(
        self, client: Any, gemini: GeminiDouble, open_console: Open, monkeypatch: Any
    ) -> None:
        monkeypatch.setattr(get_settings(), "gemini_base_url", "https://127.0.0.1:9")
        browser = open_console(doctor_token(client))
        assert browser.status("error")["message"] == "Could not reach the AI service."

    def test_without_a_key_the_console_says_the_service_is_not_configured(
        self, client: Any, no_ai: None, open_console: Open
    ) -> None:
        browser = open_console(doctor_token(client))
        error = browser.status("error")
        assert error == {
            "type": "status",
            "state": "error",
            "code": "not_configured",
            "message": "The AI service is not configured. Please contact your administrator.",
        }
        assert browser.closed()[0] == 4503

    def test_bad_frames_get_an_error_and_the_consultation_goes_on(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        browser, _ = connect(open_console, doctor_token(client))
        browser.send_raw("{not json")
        assert browser.until(is_type("error"))["message"] == "Malformed JSON."
        browser.send({"type": "audio", "data": "AAAA"})
        assert browser.until(is_type("error"))["message"] == "Audio must be whole 16-bit samples."
        browser.send_raw(b"\x00\x01")
        assert browser.until(is_type("error"))["message"] == "Send JSON text frames."
        browser.send({"type": "auth", "token": "again"})
        assert browser.until(is_type("error"))["message"] == "Already authenticated."
        browser.send({"type": "audio", "data": b64(b"\x06\x00" * 8)})
        assert gemini.session(0).wait_for_audio(16) == b"\x06\x00" * 8


class TestAccess:
    def test_hospital_and_admin_are_refused(
        self, client: Any, gemini: GeminiDouble, open_console: Open, admin_token: str
    ) -> None:
        hospital = signup(client, hospital_payload())["token"]
        for token in (hospital, admin_token):
            browser = open_console(token)
            error = browser.status("error")
            assert error["code"] == "forbidden"
            assert error["message"] == "You do not have permission to access this resource."
            assert browser.closed()[0] == 4403
        assert gemini.sessions == []

    def test_invalid_or_missing_token(self, client: Any, gemini: GeminiDouble, open_console: Open) -> None:
        browser = open_console("not-a-token")
        assert browser.status("error")["message"] == "Authentication failed. Please log in again."
        assert browser.closed()[0] == 4401
        browser = open_console(None)
        browser.send({"type": "audio", "data": b64(b"\x00\x00")})  # no auth frame first
        assert browser.status("error")["message"] == "No authentication token found"
        assert browser.closed()[0] == 4401
        assert gemini.sessions == []

    def test_a_logged_out_token_is_refused(
        self, client: Any, gemini: GeminiDouble, open_console: Open
    ) -> None:
        token = doctor_token(client)
        assert (
            client.post("/api/auth/logout", headers={"Authorization": f"Bearer {token}"}).status_code == 200
        )
        browser = open_console(token)
        assert browser.status("error")["code"] == "unauthorized"


class TestPrivacy:
    def test_no_transcript_text_or_token_in_the_logs(
        self, client: Any, gemini: GeminiDouble, open_console: Open, caplog: Any
    ) -> None:
        import logging

        caplog.set_level(logging.DEBUG)
        token = doctor_token(client, "Radiotherapist")
        browser, consultation = connect(open_console, token)
        session = gemini.session(0)
        session.send_input_transcription("Hey Cara, Mrs Adjoa Boateng, cervix, 45 Gy")
        session.send_tool_call("check_dose_constraint", {"organ": "rectum", "metric": "V50", "value": 41})
        session.wait_for(lambda m: "toolResponse" in m)
        browser.send({"type": "text", "text": "what about the bladder of Mrs Boateng"})
        session.wait_for(lambda m: "text" in m.get("realtimeInput", {}))
        session.close(1011, "Internal error encountered.")
        browser.status("connected")  # resumed: the failure was logged
        browser.close()
        deadline = time.monotonic() + 5
        while consultation_row("independent", consultation).ended_at is None:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        # The relay logs the end after closing its provider client, a moment after the row.
        while not any(record.getMessage() == "live consultation ended" for record in caplog.records):
            assert time.monotonic() < deadline, "the end of the consultation was never logged"
            time.sleep(0.05)
        logged = "\n".join(f"{record.getMessage()} {record.__dict__}" for record in caplog.records)
        assert "live consultation ended" in logged and "live upstream failed" in logged
        for secret in ("Boateng", "cervix", "bladder", "V50", token):
            found = [r for r in caplog.records if secret in f"{r.getMessage()} {r.__dict__}"]
            assert not found, (secret, [(r.name, r.getMessage()) for r in found])
