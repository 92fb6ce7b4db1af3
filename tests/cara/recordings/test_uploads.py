"""/api/recordings: a consultation recorded offline, uploaded in resumable chunks.

Create (consent as for a live start; the same capture id again gives the same upload), chunks at
the expected offset (a replay is acknowledged, a gap or overlap is 409 with the offset to resume
from), the size limits (413), another doctor's or tenant's upload (404), and complete -> a job."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from cara.kit.db import tenant_session
from cara.models import RecordingPart, RecordingUpload, TenantAuditEvent
from cara.recordings import service
from tests.cara.consultations.conftest import schema_and_account
from tests.cara.recordings.conftest import create, put_chunk, upload_all
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup

# 10,240 bytes that start as WebM (the EBML magic, checked on the first chunk): the endpoints do
# not decode the audio.
DATA = (b"\x1a\x45\xdf\xa3" + bytes(range(256)) * 40)[:10_240]


class TestCreate:
    def test_create_and_create_again(self, client: Any, doctor: dict[str, str]) -> None:
        client_id = str(uuid.uuid4())
        first = create(client, doctor, clientId=client_id)
        assert first.status_code == 201, first.text
        body = first.json()
        assert body["state"] == "receiving" and body["receivedBytes"] == 0
        assert body["chunkBytes"] == service.CHUNK_BYTES and body["maxBytes"] == service.MAX_BYTES
        assert body["clientId"] == client_id and body["console"] == "generic"
        again = create(client, doctor, clientId=client_id)
        assert again.status_code == 200 and again.json()["id"] == body["id"]
        listed = client.get("/api/recordings", headers=doctor).json()["items"]
        assert [r["id"] for r in listed] == [body["id"]]
        schema, account = schema_and_account(doctor)
        with tenant_session(schema) as s:
            audits = s.scalars(
                select(TenantAuditEvent).where(TenantAuditEvent.action == "recording.consent")
            ).all()
            assert [(a.target_id, a.actor_account_id, a.detail["basis"]) for a in audits] == [
                (body["id"], account, "doctor_confirmed")
            ]

    def test_refusals(self, client: Any, doctor: dict[str, str]) -> None:
        no_consent = create(client, doctor, consent=False)
        assert no_consent.status_code == 422 and "consent" in no_consent.json()["fields"]
        assert create(client, doctor, console="astrology").status_code == 422
        bad_type = create(client, doctor, mimeType="video/mp4")
        assert bad_type.status_code == 422 and "mimeType" in bad_type.json()["fields"]
        assert create(client, doctor, clientId="nope").status_code == 422
        hospital = auth(signup(client, hospital_payload())["token"])
        assert create(client, hospital).status_code == 403
        assert client.post("/api/recordings", json={}).status_code == 401


class TestChunks:
    def test_resume_after_a_gap_and_replays(self, client: Any, doctor: dict[str, str]) -> None:
        rid = create(client, doctor).json()["id"]
        first = put_chunk(client, doctor, rid, 0, DATA[:4000])
        assert first.status_code == 200 and first.json()["receivedBytes"] == 4000
        # The connection dropped; the browser skipped ahead by mistake: 409 says where to go on.
        gap = put_chunk(client, doctor, rid, 8000, DATA[8000:])
        assert gap.status_code == 409 and gap.json()["fields"]["offset"] == "4000"
        overlap = put_chunk(client, doctor, rid, 2000, DATA[2000:6000])
        assert overlap.status_code == 409 and overlap.json()["fields"]["offset"] == "4000"
        # A retried PUT whose answer was lost: acknowledged again, nothing stored twice.
        replay = put_chunk(client, doctor, rid, 0, DATA[:4000])
        assert replay.status_code == 200 and replay.json()["receivedBytes"] == 4000
        status = client.get(f"/api/recordings/{rid}", headers=doctor).json()
        assert status["receivedBytes"] == 4000
        # Resume where the server says, to the end.
        for offset in range(status["receivedBytes"], len(DATA), 3000):
            assert put_chunk(client, doctor, rid, offset, DATA[offset : offset + 3000]).status_code == 200
        assert client.get(f"/api/recordings/{rid}", headers=doctor).json()["receivedBytes"] == len(DATA)

    def test_chunks_in_order_make_the_recording(self, client: Any, doctor: dict[str, str]) -> None:
        rid = create(client, doctor).json()["id"]
        for offset in range(0, len(DATA), 3000):
            assert put_chunk(client, doctor, rid, offset, DATA[offset : offset + 3000]).status_code == 200
        assert client.get(f"/api/recordings/{rid}", headers=doctor).json()["receivedBytes"] == len(DATA)
        schema, _ = schema_and_account(doctor)
        with tenant_session(schema) as s:
            parts = s.scalars(
                select(RecordingPart)
                .where(RecordingPart.upload_id == uuid.UUID(rid))
                .order_by(RecordingPart.offset)
            ).all()
            assert b"".join(p.data for p in parts) == DATA

    def test_size_limits(self, client: Any, doctor: dict[str, str], monkeypatch: Any) -> None:
        rid = create(client, doctor).json()["id"]
        too_big = put_chunk(client, doctor, rid, 0, b"x" * (service.CHUNK_BYTES + 1))
        assert too_big.status_code == 413
        monkeypatch.setattr(service, "MAX_BYTES", 5000)
        assert put_chunk(client, doctor, rid, 0, DATA[:4000]).status_code == 200
        over = put_chunk(client, doctor, rid, 4000, DATA[4000:6000])
        assert over.status_code == 413 and "at most" in over.json()["message"]
        assert put_chunk(client, doctor, rid, 4000, b"").status_code == 400
        negative = client.put(
            f"/api/recordings/{rid}/chunks",
            params={"offset": -1},
            content=b"abc",
            headers={**doctor, "Content-Type": "application/octet-stream"},
        )
        assert negative.status_code == 422

    def test_other_doctors_and_tenants_get_404(self, client: Any, doctor: dict[str, str]) -> None:
        rid = create(client, doctor).json()["id"]
        other = auth(signup(client, doctor_payload())["token"])  # same independent schema
        hospital_token = signup(client, hospital_payload())["token"]
        staff = auth(add_staff(client, doctor_payload(), hospital_token)["token"])  # another schema
        for headers in (other, staff):
            assert client.get(f"/api/recordings/{rid}", headers=headers).status_code == 404
            assert put_chunk(client, headers, rid, 0, DATA).status_code == 404
            done = client.post(f"/api/recordings/{rid}/complete", json={"totalBytes": 1}, headers=headers)
            assert done.status_code == 404
            assert client.post(f"/api/recordings/{rid}/retry", headers=headers).status_code == 404
            assert client.get("/api/recordings", headers=headers).json()["items"] == []
        for bad in ("not-a-uuid", str(uuid.uuid4())):
            assert client.get(f"/api/recordings/{bad}", headers=doctor).status_code == 404
        hospital = auth(hospital_token)
        assert client.get(f"/api/recordings/{rid}", headers=hospital).status_code == 403


class TestComplete:
    def test_complete_checks_every_byte_then_enqueues_the_job(
        self, client: Any, doctor: dict[str, str], gemini: Any
    ) -> None:
        from cara.kit.redis import get_redis

        rid = create(client, doctor).json()["id"]
        upload_all(client, doctor, rid, DATA, 4096)
        short = client.post(
            f"/api/recordings/{rid}/complete", json={"totalBytes": len(DATA) + 10}, headers=doctor
        )
        assert short.status_code == 409 and short.json()["fields"]["offset"] == str(len(DATA))
        done = client.post(
            f"/api/recordings/{rid}/complete",
            json={"totalBytes": len(DATA), "durationMs": 9000},
            headers=doctor,
        )
        assert done.status_code == 200 and done.json()["state"] == "processing"
        assert done.json()["durationMs"] == 9000
        # The job went to the worker's queue (no worker runs in this test), naming the upload.
        messages = [json.loads(m) for m in get_redis().hvals("dramatiq:recordings.msgs")]
        assert [(m["actor_name"], m["kwargs"]["upload_id"]) for m in messages] == [(service.ACTOR, rid)]
        # Completing again answers the state; no second job, no more chunks.
        again = client.post(f"/api/recordings/{rid}/complete", json={"totalBytes": len(DATA)}, headers=doctor)
        assert again.status_code == 200 and again.json()["state"] == "processing"
        assert len(get_redis().hvals("dramatiq:recordings.msgs")) == 1
        late = put_chunk(client, doctor, rid, len(DATA), b"more")
        assert late.status_code == 409
        assert put_chunk(client, doctor, rid, 0, DATA[:100]).status_code == 200  # a replay still acknowledged
        # Only a failed upload can be retried.
        assert client.post(f"/api/recordings/{rid}/retry", headers=doctor).status_code == 409

    def test_without_ai_nothing_is_enqueued_for_the_provider(
        self, client: Any, doctor: dict[str, str], no_ai: None, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from cara.config import get_settings

        monkeypatch.setattr(get_settings(), "transcriber", "provider")
        rid = create(client, doctor).json()["id"]
        upload_all(client, doctor, rid, DATA, 4096)
        refused = client.post(
            f"/api/recordings/{rid}/complete", json={"totalBytes": len(DATA)}, headers=doctor
        )
        assert refused.status_code == 503
        schema, _ = schema_and_account(doctor)
        with tenant_session(schema) as s:
            upload = s.get(RecordingUpload, uuid.UUID(rid))
            assert upload is not None and upload.state == "receiving"


@pytest.mark.parametrize("console", ["generic", "radiologist"])
def test_console_is_kept(client: Any, doctor: dict[str, str], console: str) -> None:
    assert create(client, doctor, console=console.upper()).json()["console"] == console


def test_a_start_time_without_zone_is_utc_and_never_in_the_future(
    client: Any, doctor: dict[str, str]
) -> None:
    naive = create(client, doctor, recordedAt="2026-01-02T03:04:05")
    assert naive.status_code == 201 and naive.json()["recordedAt"].startswith("2026-01-02T03:04:05")
    # A device clock a little ahead is brought back to now; a day and more ahead is refused.
    ahead = (datetime.now(UTC) + timedelta(hours=2)).isoformat()
    soon = create(client, doctor, recordedAt=ahead)
    assert soon.status_code == 201 and soon.json()["recordedAt"] < ahead.replace("+00:00", "Z")
    future = create(client, doctor, recordedAt="2999-01-01T00:00:00Z")
    assert future.status_code == 422 and "recordedAt" in future.json()["fields"]


def test_a_create_that_raced_another_returns_the_first(
    client: Any, doctor: dict[str, str], monkeypatch: Any
) -> None:
    """Two requests for the same capture at once: the one that loses the unique index gets the other's."""
    from cara.recordings import repository

    client_id = str(uuid.uuid4())
    first = create(client, doctor, clientId=client_id).json()
    monkeypatch.setattr(repository, "by_client_id", _none_once(repository.by_client_id))
    again = create(client, doctor, clientId=client_id)
    assert again.status_code == 200 and again.json()["id"] == first["id"]


def _none_once(real: Any) -> Any:
    calls = {"n": 0}

    def wrapper(*args: Any) -> Any:
        calls["n"] += 1
        return None if calls["n"] == 1 else real(*args)

    return wrapper
