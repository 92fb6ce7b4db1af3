"""A recording on the real worker path: the `recordings.process` actor decodes the uploaded WebM,
asks the Gemini double for a transcript (generateContent with the audio inline), makes a
consultation of it (source 'recorded', speaker-labelled lines), deletes the raw audio and drafts
the note from the stored lines. Failures leave the upload 'failed' with its audio, and a retry
finishes the work without a second consultation."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from sqlalchemy import func, select

from cara.kit.db import tenant_session
from cara.models import RecordingPart
from cara.recordings.audio import prepare
from cara_doubles.gemini import GeminiDouble, GenerateRequest
from tests.cara.consultations.conftest import schema_and_account
from tests.cara.recordings.conftest import create, upload_all, webm_opus


def wait_state(
    client: Any, headers: dict[str, str], rid: str, *states: str, timeout: float = 40.0
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = client.get(f"/api/recordings/{rid}", headers=headers).json()
        if body["state"] in states:
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.2)


def part_count(headers: dict[str, str], rid: str) -> int:
    schema, _ = schema_and_account(headers)
    with tenant_session(schema) as s:
        return int(
            s.scalar(
                select(func.count())
                .select_from(RecordingPart)
                .where(RecordingPart.upload_id == uuid.UUID(rid))
            )
            or 0
        )


def send(client: Any, headers: dict[str, str], audio: bytes, **body: Any) -> str:
    created = create(client, headers, **body).json()
    upload_all(client, headers, created["id"], audio, 4096)
    done = client.post(
        f"/api/recordings/{created['id']}/complete", json={"totalBytes": len(audio)}, headers=headers
    )
    assert done.status_code == 200, done.text
    return str(created["id"])


def test_prepared_audio_keeps_the_length() -> None:
    prepared = prepare(webm_opus(3.0))
    assert prepared.mime_type == "audio/mp3" and abs(prepared.seconds - 3.0) < 0.1
    # A recording cut off mid-way (a closed tab) still decodes up to where it stops.
    audio = webm_opus(4.0)
    assert 0.5 < prepare(audio[: len(audio) // 2]).seconds < 3.5


class TestProcess:
    def test_recording_becomes_a_consultation_with_transcript_and_draft(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        audio = webm_opus(12.0)
        rid = send(client, doctor, audio, console="generic", durationMs=None)
        body = wait_state(client, doctor, rid, "done", "failed")
        assert body["state"] == "done" and body["error"] is None, body
        cid = body["consultationId"]
        consultation = client.get(f"/api/consultations/{cid}", headers=doctor).json()
        assert consultation["source"] == "recorded" and consultation["console"] == "generic"
        assert consultation["consent"]["basis"] == "doctor_confirmed"
        assert consultation["durationSeconds"] == 12
        lines = consultation["lines"]
        assert [line["speaker"] for line in lines] == ["user", "user"]
        assert lines[0]["text"] == "[Gemini double] Recording of 12 seconds transcribed."
        assert lines[1]["text"] == "Good morning, what brings you in today?"
        assert [d["kind"] for d in consultation["drafts"]] == ["report"]
        assert consultation["state"] == "draft"
        # The provider got MP3 with the audio inline, asked for JSON lines; then the draft request.
        transcript_request, draft_request = gemini.generate_requests
        ((mime, _),) = transcript_request.audio
        assert mime == "audio/mp3"
        assert transcript_request.body["generationConfig"]["responseMimeType"] == "application/json"
        assert (
            not draft_request.audio
            and "Clinician: Good morning, what brings you in today?" in draft_request.text
        )
        # Raw audio is never kept once processed.
        assert part_count(doctor, rid) == 0
        listed = client.get("/api/consultations", headers=doctor).json()["items"]
        assert [(c["id"], c["source"]) for c in listed] == [(cid, "recorded")]

    def test_the_patient_given_at_consent_is_the_consultations_and_never_the_models(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        reference = {"recordNumber": " KATH-20931 ", "name": "Yaa Asantewaa", "age": 61, "sex": "female"}
        rid = send(client, doctor, webm_opus(6.0), patientReference=reference)
        body = wait_state(client, doctor, rid, "done", "failed")
        assert body["state"] == "done", body
        consultation = client.get(f"/api/consultations/{body['consultationId']}", headers=doctor).json()
        assert consultation["patientReference"] == {**reference, "recordNumber": "KATH-20931"}
        asked = " ".join(request.text for request in gemini.generate_requests)
        assert gemini.generate_requests and "KATH-20931" not in asked and "Asantewaa" not in asked
        # Bad reference fields are refused before anything is stored.
        bad = create(client, doctor, patientReference={"age": 400})
        assert bad.status_code == 422, bad.text

    def test_speakers_from_the_model(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        def transcribe(request: GenerateRequest) -> str:
            return json.dumps(
                {
                    "lines": [
                        {"speaker": "clinician", "startSeconds": 0.5, "text": "How is the pain today?"},
                        {"speaker": "patient", "startSeconds": 2.0, "text": "Better since the new tablets."},
                        {"speaker": "patient", "text": "   "},
                    ]
                }
            )

        gemini.transcribe = transcribe
        rid = send(client, doctor, webm_opus(3.0))
        body = wait_state(client, doctor, rid, "done", "failed")
        assert body["state"] == "done", body
        lines = client.get(f"/api/consultations/{body['consultationId']}", headers=doctor).json()["lines"]
        assert [(line["speaker"], line["text"]) for line in lines] == [
            ("user", "How is the pain today?"),
            ("patient", "Better since the new tablets."),
        ]

    def test_a_failed_transcript_keeps_the_audio_and_retry_finishes(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        audio = webm_opus(6.0)
        gemini.fail_next_generate(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")
        rid = send(client, doctor, audio)
        failed = wait_state(client, doctor, rid, "done", "failed")
        assert failed["state"] == "failed" and failed["consultationId"] is None
        assert "overloaded" in failed["error"]
        assert part_count(doctor, rid) > 0
        assert client.get("/api/consultations", headers=doctor).json()["items"] == []
        retried = client.post(f"/api/recordings/{rid}/retry", headers=doctor)
        assert retried.status_code == 200 and retried.json()["state"] == "processing"
        done = wait_state(client, doctor, rid, "done", "failed")
        assert done["state"] == "done" and done["error"] is None
        assert part_count(doctor, rid) == 0

    def test_a_failed_draft_is_retried_without_a_second_consultation(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        from cara_doubles.gemini import default_transcribe

        def transcribe_then_fail(request: GenerateRequest) -> str:
            gemini.fail_next_generate(500, "INTERNAL", "Internal error encountered.")
            return default_transcribe(request)

        gemini.transcribe = transcribe_then_fail
        rid = send(client, doctor, webm_opus(6.0))
        failed = wait_state(client, doctor, rid, "done", "failed")
        assert failed["state"] == "failed" and failed["consultationId"] is not None
        assert "draft" in failed["error"]
        assert part_count(doctor, rid) == 0  # the transcript is stored: the audio is gone
        gemini.transcribe = default_transcribe
        assert client.post(f"/api/recordings/{rid}/retry", headers=doctor).status_code == 200
        done = wait_state(client, doctor, rid, "done", "failed")
        assert done["state"] == "done" and done["consultationId"] == failed["consultationId"]
        items = client.get("/api/consultations", headers=doctor).json()["items"]
        assert [c["id"] for c in items] == [failed["consultationId"]]
        detail = client.get(f"/api/consultations/{done['consultationId']}", headers=doctor).json()
        assert len(detail["drafts"]) == 1

    def test_audio_that_cannot_be_read_fails_clearly(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        # It starts as WebM (the upload's check), and nothing after that is.
        rid = send(client, doctor, b"\x1a\x45\xdf\xa3" + b"not audio at all" * 100)
        failed = wait_state(client, doctor, rid, "done", "failed")
        assert failed["state"] == "failed" and failed["error"] == "The recording could not be read."
        assert gemini.generate_requests == []


def test_abandoned_recordings_are_deleted_with_their_audio(
    client: Any, doctor: dict[str, str], worker: Any
) -> None:
    """The hourly `recordings.expire` job: an upload nobody sent a chunk to for a day goes, with
    its audio; recent ones stay (failed ones: test_storage_limits.py)."""
    from datetime import timedelta

    from cara.models import RecordingUpload
    from cara.models.base import utcnow
    from cara.recordings import service
    from tests.cara.recordings.conftest import put_chunk

    old, recent = (create(client, doctor).json()["id"] for _ in range(2))
    for rid in (old, recent):
        assert put_chunk(client, doctor, rid, 0, b"\x1a\x45\xdf\xa3" + b"audio" * 100).status_code == 200
    schema, _ = schema_and_account(doctor)
    with tenant_session(schema) as s:
        row = s.get(RecordingUpload, uuid.UUID(old))
        assert row is not None
        row.updated_at = utcnow() - service.ABANDONED_AFTER - timedelta(hours=1)
        s.commit()
    worker.actors[service.EXPIRE_ACTOR].send()
    deadline = time.monotonic() + 20
    while client.get(f"/api/recordings/{old}", headers=doctor).status_code != 404:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert part_count(doctor, old) == 0
    assert client.get(f"/api/recordings/{recent}", headers=doctor).json()["receivedBytes"] == 504


def test_on_a_plan_without_report_drafts_a_recording_is_drafted_as_a_summary(
    client: Any, gemini: GeminiDouble, worker: Any, monkeypatch: Any
) -> None:
    from cara.config import get_settings
    from tests.cara.admin_console.seed import subscribe
    from tests.factories import auth, doctor_payload, signup

    monkeypatch.setattr(get_settings(), "trial_days", 0)
    body = doctor_payload(specialty="General Practitioner")
    headers = auth(signup(client, body)["token"])
    subscribe(body["email"], "doctor-basic")  # summaries, no report drafts
    rid = send(client, headers, webm_opus(4.0), console="generic", durationMs=None)
    done = wait_state(client, headers, rid, "done", "failed")
    assert done["state"] == "done", done
    consultation = client.get(f"/api/consultations/{done['consultationId']}", headers=headers).json()
    assert [d["kind"] for d in consultation["drafts"]] == ["summary"]
