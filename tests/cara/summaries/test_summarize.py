"""POST /api/summarize: the request waits for a real worker that asks the Gemini double."""

from __future__ import annotations

import time
from typing import Any

import pytest

from cara.config import get_settings
from cara.kit.redis import get_redis
from cara_doubles.gemini import GeminiDouble, GenerateRequest
from tests.factories import auth, doctor_payload, hospital_payload, signup

TRANSCRIPT = "Clinician: Hey Cara, 67-year-old with chest pain.\nCara: Consider an ECG within ten minutes."


@pytest.fixture
def doctor(client: Any) -> dict[str, str]:
    return auth(signup(client, doctor_payload(specialty="General Practitioner"))["token"])


def summarize(client: Any, headers: dict[str, str], **body: Any) -> Any:
    return client.post("/api/summarize", json=body, headers=headers)


class TestSummary:
    def test_summary_comes_from_the_worker(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        gemini.generate = lambda request: f"SUMMARY of {len(request.text)} chars"
        r = summarize(client, doctor, transcript=TRANSCRIPT)
        assert r.status_code == 200, r.text
        (request,) = gemini.generate_requests
        assert r.json() == {
            "summary": f"SUMMARY of {len(request.text)} chars",
            "kind": "summary",
            "label": "Draft — AI-assisted",
        }
        assert request.model == get_settings().gemini_text_model
        parts = [p["text"] for p in request.body["contents"][0]["parts"]]
        assert parts == [
            f"Transcript of the conversation:\n\n{TRANSCRIPT}",
            "Generate a concise summary of the preceding conversation.",
        ]
        assert "Use only what the transcript says" in request.body["systemInstruction"]["parts"][0]["text"]
        # Nothing of the job is left behind in Redis but the expiring, already read result list.
        assert [k for k in get_redis().keys("cara:summary:*") if k.endswith(":input")] == []

    def test_report_draft_with_a_focus_topic(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        lines = [
            {"speaker": "user", "text": "Hey Cara, BP 150/95 on three visits."},
            {"speaker": "assistant", "text": "That meets the threshold for hypertension."},
            {"speaker": "user", "text": "   "},
        ]
        r = summarize(client, doctor, transcript=lines, kind="report", focus="  blood pressure ")
        assert r.status_code == 200, r.text
        assert r.json()["kind"] == "report"
        parts = [p["text"] for p in gemini.generate_requests[0].body["contents"][0]["parts"]]
        assert parts[0].endswith(
            "Clinician: Hey Cara, BP 150/95 on three visits.\n"
            "Cara: That meets the threshold for hypertension."
        )
        assert (
            parts[1]
            == "Generate a report draft based on the preceding conversation focusing on: blood pressure."
        )

    def test_timeout(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any, monkeypatch: Any
    ) -> None:
        monkeypatch.setattr(get_settings(), "summary_timeout_seconds", 1.0)
        gemini.generate_delay_seconds = 2.5
        started = time.monotonic()
        r = summarize(client, doctor, transcript=TRANSCRIPT)
        assert r.status_code == 504
        assert r.json() == {"message": "Summary generation timed out. Please try again.", "fields": {}}
        assert time.monotonic() - started < 2.5

    def test_provider_error_is_passed_on(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        gemini.fail_next_generate(429, "RESOURCE_EXHAUSTED", "Quota exceeded for this project.")
        r = summarize(client, doctor, transcript=TRANSCRIPT)
        assert r.status_code == 502
        assert (
            r.json()["message"]
            == "The AI service could not generate the summary: Quota exceeded for this project."
        )

    def test_nothing_to_summarise(self, client: Any, doctor: dict[str, str], gemini: GeminiDouble) -> None:
        for transcript in (None, "", "   ", [], [{"speaker": "user", "text": " "}]):
            r = summarize(client, doctor, transcript=transcript)
            assert r.status_code == 422
            assert r.json() == {
                "message": "No conversation recorded yet.",
                "fields": {"transcript": "No conversation recorded yet."},
            }
        assert gemini.generate_requests == []

    def test_bad_bodies(self, client: Any, doctor: dict[str, str], gemini: GeminiDouble) -> None:
        r = summarize(client, doctor, transcript=TRANSCRIPT, kind="poem")
        assert r.status_code == 422 and r.json()["fields"] == {"kind": "Is not an accepted value"}
        r = summarize(client, doctor, transcript="x" * 200_001)
        assert r.status_code == 422 and r.json()["fields"] == {"transcript": "Is too long"}
        r = summarize(client, doctor, transcript="nul\x00")
        assert r.status_code == 422
        r = client.post(
            "/api/summarize", content=b"[1]", headers={**doctor, "Content-Type": "application/json"}
        )
        assert r.status_code == 400


class TestAccess:
    def test_without_a_key(self, client: Any, doctor: dict[str, str], no_ai: None) -> None:
        r = summarize(client, doctor, transcript=TRANSCRIPT)
        assert r.status_code == 503
        assert r.json()["message"] == "The AI service is not configured. Please contact your administrator."

    def test_doctors_only(self, client: Any, gemini: GeminiDouble, admin_token: str) -> None:
        hospital = auth(signup(client, hospital_payload())["token"])
        for headers in (hospital, auth(admin_token)):
            r = summarize(client, headers, transcript=TRANSCRIPT)
            assert r.status_code == 403
            assert r.json()["message"] == "You do not have permission to access this resource."
        assert summarize(client, {}, transcript=TRANSCRIPT).status_code == 401
        assert gemini.generate_requests == []


def test_generate_request_text_helper() -> None:
    request = GenerateRequest(model="m", body={"contents": [{"parts": [{"text": "a"}, {"text": "b"}]}]})
    assert request.text == "a\nb"
