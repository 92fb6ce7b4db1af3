"""What one account may store as recorded audio (cara.recordings.storage), and that reaching a
limit loses nothing already stored.

Per doctor: uploads open at once (429) and bytes sent in 24 hours (429 with Retry-After); per
hospital: the audio held for all its doctors (507); in the independent doctors' shared tenant,
each doctor's own (one of them cannot fill it for another); chunks under the floor only as the
last; uploads left unfinished for a day purged, failed ones kept for a retry.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from cara.config import get_settings
from cara.kit.db import tenant_session
from cara.models import RecordingPart, RecordingUpload
from cara.models.base import utcnow
from cara.recordings import service
from tests.cara.admin_console.seed import subscribe
from tests.cara.consultations.conftest import schema_and_account
from tests.cara.recordings.conftest import create, put_chunk
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup

WEBM = b"\x1a\x45\xdf\xa3"


def audio(size: int, first: bool = True) -> bytes:
    body = bytes(range(256)) * (size // 256 + 1)
    return ((WEBM if first else b"") + body)[:size]


def stored(headers: dict[str, str], rid: str) -> int:
    """Bytes of the upload's audio in the database."""
    schema, _ = schema_and_account(headers)
    with tenant_session(schema) as s:
        return int(
            s.scalar(
                select(func.coalesce(func.sum(func.octet_length(RecordingPart.data)), 0)).where(
                    RecordingPart.upload_id == uuid.UUID(rid)
                )
            )
            or 0
        )


@pytest.fixture
def limits(monkeypatch: pytest.MonkeyPatch) -> Any:
    settings = get_settings()
    monkeypatch.setattr(settings, "recording_min_chunk_bytes", 1)
    return settings


def test_open_uploads_per_doctor(client: Any, doctor: dict[str, str], limits: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(limits, "recording_max_open_uploads", 2)
    first, second = (create(client, doctor) for _ in range(2))
    assert first.status_code == second.status_code == 201
    third = create(client, doctor)
    assert third.status_code == 429 and third.headers["Retry-After"]
    assert "2 recordings are still being sent" in third.json()["message"]
    # A retried create of an upload already made still answers it.
    again = create(client, doctor, clientId=first.json()["clientId"])
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    # Another doctor is not held back by this one's uploads.
    other = auth(signup(client, doctor_payload())["token"])
    assert create(client, other).status_code == 201
    # Once one is no longer receiving (here: failed, waiting for a retry), a new one starts.
    schema, _ = schema_and_account(doctor)
    with tenant_session(schema) as s:
        row = s.get(RecordingUpload, uuid.UUID(first.json()["id"]))
        assert row is not None
        row.state = "failed"
        s.commit()
    assert create(client, doctor).status_code == 201
    usage = client.get("/api/recordings/storage", headers=doctor).json()
    assert usage["openUploads"] == 2 and usage["maxOpenUploads"] == 2


def test_daily_bytes_per_doctor(client: Any, doctor: dict[str, str], limits: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(limits, "recording_daily_bytes", 100_000)
    rid = create(client, doctor).json()["id"]
    assert put_chunk(client, doctor, rid, 0, audio(60_000)).status_code == 200
    over = put_chunk(client, doctor, rid, 60_000, audio(60_000, first=False))
    assert over.status_code == 429, over.text
    assert 60 <= int(over.headers["Retry-After"]) <= 24 * 3600
    assert "in the last 24 hours" in over.json()["message"]
    # Nothing stored is lost, and the upload resumes where it was.
    assert stored(doctor, rid) == 60_000
    assert client.get(f"/api/recordings/{rid}", headers=doctor).json()["receivedBytes"] == 60_000
    # A smaller piece still fits; a new upload counts against the same day.
    assert put_chunk(client, doctor, rid, 60_000, audio(30_000, first=False)).status_code == 200
    second = create(client, doctor).json()["id"]
    assert put_chunk(client, doctor, second, 0, audio(20_000)).status_code == 429
    usage = client.get("/api/recordings/storage", headers=doctor).json()
    assert usage["receivedTodayBytes"] == 90_000 and usage["dailyBytes"] == 100_000
    # Bytes sent more than a day ago no longer count.
    schema, _ = schema_and_account(doctor)
    with tenant_session(schema) as s:
        row = s.get(RecordingUpload, uuid.UUID(rid))
        assert row is not None
        row.created_at = utcnow() - timedelta(hours=25)
        s.commit()
    assert put_chunk(client, doctor, second, 0, audio(20_000)).status_code == 200


def test_a_hospitals_quota_is_shared_by_its_doctors_and_shown(
    client: Any, limits: Any, monkeypatch: Any, admin_token: str
) -> None:
    monkeypatch.setattr(limits, "recording_tenant_quota_bytes", 100_000)
    body = hospital_payload()
    registered = signup(client, body)
    hospital_token = registered["token"]
    ama, kofi = (auth(add_staff(client, doctor_payload(), hospital_token)["token"]) for _ in range(2))
    subscribe(body["email"], "hospital-silver")
    first = create(client, ama).json()["id"]
    assert put_chunk(client, ama, first, 0, audio(80_000)).status_code == 200
    second = create(client, kofi).json()["id"]
    full = put_chunk(client, kofi, second, 0, audio(30_000))
    assert full.status_code == 507, full.text
    assert "your hospital" in full.json()["message"]
    assert stored(ama, first) == 80_000 and stored(kofi, second) == 0
    hospital = auth(hospital_token)
    usage = client.get("/api/recordings/storage", headers=hospital).json()
    assert usage["heldBytes"] == 80_000 and usage["quotaBytes"] == 100_000
    assert usage["openUploads"] is None
    # The platform admin sees it on the hospital's page.
    hospital_id = registered["user"]["hospitalId"]
    shown = client.get(f"/api/admin/hospitals/{hospital_id}", headers=auth(admin_token)).json()
    assert (shown["recordingHeldBytes"], shown["recordingQuotaBytes"]) == (80_000, 100_000)
    # Another hospital's quota is its own.
    other_token = signup(client, (other_body := hospital_payload()))["token"]
    stranger = auth(add_staff(client, doctor_payload(), other_token)["token"])
    subscribe(other_body["email"], "hospital-silver")
    theirs = create(client, stranger).json()["id"]
    assert put_chunk(client, stranger, theirs, 0, audio(30_000)).status_code == 200
    assert client.get("/api/recordings/storage", headers=auth(other_token)).json()["heldBytes"] == 30_000
    # Once the audio is processed it no longer counts (here: deleted with the transcript kept).
    schema, _ = schema_and_account(ama)
    with tenant_session(schema) as s:
        row = s.get(RecordingUpload, uuid.UUID(first))
        assert row is not None
        row.state = "done"
        s.commit()
    assert put_chunk(client, kofi, second, 0, audio(30_000)).status_code == 200


def test_one_independent_doctor_cannot_fill_the_shared_tenant(
    client: Any, doctor: dict[str, str], limits: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(limits, "recording_independent_quota_bytes", 100_000)
    monkeypatch.setattr(limits, "recording_tenant_quota_bytes", 100_000)
    rid = create(client, doctor).json()["id"]
    assert put_chunk(client, doctor, rid, 0, audio(90_000)).status_code == 200
    refused = put_chunk(client, doctor, rid, 90_000, audio(20_000, first=False))
    assert refused.status_code == 507 and "your account" in refused.json()["message"]
    other = auth(signup(client, doctor_payload())["token"])  # the same independent schema
    assert schema_and_account(other)[0] == schema_and_account(doctor)[0]
    theirs = create(client, other).json()["id"]
    assert put_chunk(client, other, theirs, 0, audio(90_000)).status_code == 200
    assert client.get("/api/recordings/storage", headers=other).json()["heldBytes"] == 90_000


def test_small_chunks_only_as_the_last(
    client: Any, doctor: dict[str, str], limits: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(limits, "recording_min_chunk_bytes", 64 * 1024)
    rid = create(client, doctor).json()["id"]
    assert create(client, doctor).json()["minChunkBytes"] == 64 * 1024
    assert put_chunk(client, doctor, rid, 0, audio(64 * 1024)).status_code == 200
    assert put_chunk(client, doctor, rid, 64 * 1024, b"x").status_code == 200  # the last one
    after = put_chunk(client, doctor, rid, 64 * 1024 + 1, b"y")
    assert after.status_code == 422 and "data" in after.json()["fields"]
    assert stored(doctor, rid) == 64 * 1024 + 1
    # One-byte chunks stop after the first: the old 164 bytes stored per byte sent cannot build up.
    tiny = create(client, doctor).json()["id"]
    assert put_chunk(client, doctor, tiny, 0, WEBM).status_code == 200
    assert put_chunk(client, doctor, tiny, 4, b"z").status_code == 422


def test_unfinished_uploads_go_after_a_day_failed_ones_stay_for_a_retry(
    client: Any, doctor: dict[str, str], limits: Any
) -> None:
    schema, _ = schema_and_account(doctor)
    ids = [create(client, doctor).json()["id"] for _ in range(3)]
    for rid in ids:
        assert put_chunk(client, doctor, rid, 0, audio(1_000)).status_code == 200
    stale, failed, recent = ids
    with tenant_session(schema) as s:
        for rid, state in ((stale, "receiving"), (failed, "failed")):
            row = s.get(RecordingUpload, uuid.UUID(rid))
            assert row is not None
            row.state = state
            row.updated_at = utcnow() - timedelta(hours=25)
        s.commit()
    with tenant_session(schema) as s:
        assert service.expire_abandoned(s) == 1
        s.commit()
    assert client.get(f"/api/recordings/{stale}", headers=doctor).status_code == 404
    assert stored(doctor, failed) == 1_000 and stored(doctor, recent) == 1_000
    with tenant_session(schema) as s:
        assert service.expire_abandoned(s, now=utcnow() + service.FAILED_KEPT) == 2
        s.commit()
    assert client.get(f"/api/recordings/{failed}", headers=doctor).status_code == 404


def test_storage_is_for_hospitals_and_doctors(client: Any, admin_token: str) -> None:
    assert client.get("/api/recordings/storage").status_code == 401
    assert client.get("/api/recordings/storage", headers=auth(admin_token)).status_code == 403
