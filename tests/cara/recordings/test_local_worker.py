"""A recording transcribed on this server by the real `recordings.process` actor, with no AI key:
the consultation holds the dictated words (turns, word timings, confidence) and names the local
engine; no connection leaves the machine; bad input ends in a clear state on the upload."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_socket

from cara.config import get_settings
from cara.kit.db import tenant_session
from cara.models import RecordingUpload
from cara.models.base import utcnow
from cara.recordings import speech
from cara.recordings.service import EXPIRE_ACTOR, FAILED_KEPT, UNREADABLE
from tests.cara.consultations.conftest import schema_and_account
from tests.cara.recordings.conftest import create, silence_pcm, spoken_webm, upload_all, webm_from_pcm
from tests.cara.recordings.test_worker import part_count, send, wait_state
from workers.actors import recordings as recording_actors

CLINICIAN = "The patient from Kumasi has pulmonary tuberculosis. Start rifampicin six hundred milligrams."
PATIENT = "I have had a fever for three weeks."


@pytest.fixture(autouse=True)
def _local(monkeypatch: pytest.MonkeyPatch, no_ai: None) -> None:
    monkeypatch.setattr(get_settings(), "transcriber", None)  # the default: local without a key


@pytest.fixture(scope="module")
def dictation() -> bytes:
    return spoken_webm(CLINICIAN, PATIENT, pause=2.5)


def test_offline_recording_is_transcribed_on_this_server_without_a_network_call(
    client: Any, doctor: dict[str, str], worker: Any, dictation: bytes
) -> None:
    rid = send(client, doctor, dictation, durationMs=None)
    # From here to the end only this machine's database and Redis may be reached (pytest-socket);
    # the recognition process itself cannot open any socket (speech._no_network).
    pytest_socket.socket_allow_hosts(["127.0.0.1"], allow_unix_socket=True)
    try:
        body = wait_state(client, doctor, rid, "done", "failed", "waiting", timeout=90)
    finally:
        pytest_socket.enable_socket()
    assert body["state"] == "done" and body["error"] is None, body
    assert part_count(doctor, rid) == 0  # the raw audio is gone
    consultation = client.get(f"/api/consultations/{body['consultationId']}", headers=doctor).json()
    assert consultation["source"] == "recorded"
    assert consultation["transcriptEngine"] == "local:faster-whisper/tiny.en"
    lines = consultation["lines"]
    assert [line["speaker"] for line in lines] == ["user", "patient"], [line["text"] for line in lines]
    assert "tuberculosis" in lines[0]["text"].lower() and "weeks" in lines[1]["text"].lower()
    words = lines[0]["words"]
    assert words and [w["text"] for w in words][:2] == ["The", "patient"]
    assert all(0 <= w["confidence"] <= 1 and w["end"] >= w["start"] for w in words)
    assert all(w["lowConfidence"] == (w["confidence"] < 0.5) for w in words)
    assert lines[1]["words"][0]["start"] > words[-1]["end"] + 1.0
    # No AI service: no draft yet, and nothing failed.
    assert consultation["drafts"] == []


def test_silence_fails_with_the_reason(client: Any, doctor: dict[str, str], worker: Any) -> None:
    rid = send(client, doctor, webm_from_pcm(silence_pcm(6.0)))
    body = wait_state(client, doctor, rid, "done", "failed", "waiting", timeout=60)
    assert body["state"] == "failed" and body["error"] == speech.NO_SPEECH
    assert part_count(doctor, rid) > 0  # kept for a retry


def test_a_corrupt_container_fails_with_the_reason(client: Any, doctor: dict[str, str], worker: Any) -> None:
    rid = send(client, doctor, b"\x1a\x45\xdf\xa3" + bytes(range(256)) * 40)
    body = wait_state(client, doctor, rid, "done", "failed", "waiting", timeout=60)
    assert body["state"] == "failed" and body["error"] == UNREADABLE


def test_a_missing_model_folder_fails_with_the_reason(
    client: Any, doctor: dict[str, str], worker: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(get_settings(), "transcriber_model_dir", str(tmp_path / "absent"))
    rid = send(client, doctor, webm_from_pcm(silence_pcm(2.0)))
    body = wait_state(client, doctor, rid, "done", "failed", "waiting", timeout=60)
    assert body["state"] == "failed" and body["error"] == speech.MODEL_MISSING


def test_french_waits_for_the_ai_service_and_can_be_retried(
    client: Any, doctor: dict[str, str], worker: Any, dictation: bytes
) -> None:
    rid = send(client, doctor, dictation, language="fr")
    body = wait_state(client, doctor, rid, "done", "failed", "waiting", timeout=60)
    assert body["state"] == "waiting" and body["error"] == speech.not_handled("fr")
    assert "French" in body["error"]
    again = client.post(f"/api/recordings/{rid}/retry", headers=doctor)
    assert again.status_code == 200 and again.json()["state"] == "processing"
    assert wait_state(client, doctor, rid, "done", "failed", "waiting", timeout=60)["state"] == "waiting"
    # Its audio is kept for that, counted against the storage quota, and goes after 30 days like
    # a failed recording's.
    assert part_count(doctor, rid) > 0
    assert client.get("/api/recordings/storage", headers=doctor).json()["heldBytes"] == len(dictation)
    schema, _ = schema_and_account(doctor)
    with tenant_session(schema) as s:
        row = s.get(RecordingUpload, uuid.UUID(rid))
        assert row is not None
        row.updated_at = utcnow() - FAILED_KEPT - timedelta(hours=1)
        s.commit()
    worker.actors[EXPIRE_ACTOR].send()
    deadline = time.monotonic() + 20
    while client.get(f"/api/recordings/{rid}", headers=doctor).status_code != 404:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert part_count(doctor, rid) == 0


def test_a_language_tag_is_checked(client: Any, doctor: dict[str, str]) -> None:
    assert create(client, doctor, language="not a language").status_code == 422


def test_the_provider_without_a_key_is_refused_before_anything_is_enqueued(
    client: Any, doctor: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(get_settings(), "transcriber", "provider")
    rid = create(client, doctor).json()["id"]
    upload_all(client, doctor, rid, b"\x1a\x45\xdf\xa3" * 100, 4096)
    refused = client.post(f"/api/recordings/{rid}/complete", json={"totalBytes": 400}, headers=doctor)
    assert refused.status_code == 503


def test_while_every_recognition_process_is_busy_the_job_comes_back_later(
    client: Any, doctor: dict[str, str], worker: Any, dictation: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's thread is not held waiting for a recognition process: the job is sent again
    with a delay, and finishes once a process is free."""
    monkeypatch.setattr(get_settings(), "transcriber_processes", 1)
    monkeypatch.setattr(recording_actors, "BUSY_DELAY_MS", 300)
    slot = speech._slot()
    assert slot.acquire(blocking=False)  # a long recording holds the only process
    try:
        with pytest.raises(speech.Busy):
            speech.transcribe(dictation, language=None, seconds=9)
        rid = send(client, doctor, dictation)
        # Each delivery claims the upload once more: it came back instead of waiting in a thread.
        deadline = time.monotonic() + 20
        while attempts(doctor, rid) < 3:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        assert (
            wait_state(client, doctor, rid, "processing", "done", "failed", "waiting")["state"]
            == "processing"
        )
    finally:
        slot.release()
    body = wait_state(client, doctor, rid, "done", "failed", "waiting", timeout=60)
    assert body["state"] == "done", body


def attempts(headers: dict[str, str], rid: str) -> int:
    schema, _ = schema_and_account(headers)
    with tenant_session(schema) as s:
        upload = s.get(RecordingUpload, uuid.UUID(rid))
        assert upload is not None
        return upload.attempts
