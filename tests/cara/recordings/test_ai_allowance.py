"""A recording has the model transcribe and draft: it spends from the doctor's summaries
allowance, like /api/summarize. Past it, completing (or retrying) is 429 and the upload waits
with every byte kept; nothing is sent to the worker."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from cara.config import get_settings
from cara.kit import throttle
from cara.kit.db import tenant_session
from cara.kit.redis import get_redis
from cara.models import RecordingUpload
from tests.cara.consultations.conftest import schema_and_account
from tests.cara.recordings.conftest import create, upload_all

DATA = (b"\x1a\x45\xdf\xa3" + bytes(range(256)) * 40)[:10_240]


@pytest.fixture
def one_draft_an_hour(monkeypatch: pytest.MonkeyPatch) -> str:
    spec = "1 per hour"
    monkeypatch.setattr(get_settings(), "rate_limit_summaries", spec)
    return spec


def _queued() -> int:
    return len(get_redis().hvals("dramatiq:recordings.msgs"))


def test_a_recording_spends_the_summaries_allowance(
    client: Any, doctor: dict[str, str], gemini: Any, one_draft_an_hour: str
) -> None:
    first = create(client, doctor).json()["id"]
    upload_all(client, doctor, first, DATA, 4096)
    done = client.post(f"/api/recordings/{first}/complete", json={"totalBytes": len(DATA)}, headers=doctor)
    assert done.status_code == 200 and done.json()["state"] == "processing"

    # The hour's one draft went on that recording: /api/summarize is refused now...
    summary = client.post("/api/summarize", json={"transcript": "Patient stable."}, headers=doctor)
    assert summary.status_code == 429 and int(summary.headers["Retry-After"]) > 0

    # ...and so is a second recording, which waits with its bytes.
    second = create(client, doctor).json()["id"]
    upload_all(client, doctor, second, DATA, 4096)
    refused = client.post(
        f"/api/recordings/{second}/complete", json={"totalBytes": len(DATA)}, headers=doctor
    )
    assert refused.status_code == 429, refused.text
    assert refused.json()["message"].startswith("Too many requests")
    assert _queued() == 1
    schema, _ = schema_and_account(doctor)
    with tenant_session(schema) as s:
        upload = s.get(RecordingUpload, uuid.UUID(second))
        assert upload is not None and upload.state == "receiving" and upload.received_bytes == len(DATA)


def test_a_summary_spends_it_for_the_recording_too(
    client: Any, doctor: dict[str, str], gemini: Any, one_draft_an_hour: str
) -> None:
    me = client.get("/api/auth/user", headers=doctor).json()
    throttle.hit("summaries", one_draft_an_hour, me["_id"])  # this hour's draft, already made
    rid = create(client, doctor).json()["id"]
    upload_all(client, doctor, rid, DATA, 4096)
    refused = client.post(f"/api/recordings/{rid}/complete", json={"totalBytes": len(DATA)}, headers=doctor)
    assert refused.status_code == 429
    assert _queued() == 0


def test_a_retry_spends_it(client: Any, doctor: dict[str, str], gemini: Any, one_draft_an_hour: str) -> None:
    rid = create(client, doctor).json()["id"]
    upload_all(client, doctor, rid, DATA, 4096)
    assert (
        client.post(
            f"/api/recordings/{rid}/complete", json={"totalBytes": len(DATA)}, headers=doctor
        ).status_code
        == 200
    )
    schema, _ = schema_and_account(doctor)
    with tenant_session(schema) as s:
        upload = s.get(RecordingUpload, uuid.UUID(rid))
        assert upload is not None
        upload.state = "failed"
        s.commit()
    refused = client.post(f"/api/recordings/{rid}/retry", headers=doctor)
    assert refused.status_code == 429
    with tenant_session(schema) as s:
        upload = s.get(RecordingUpload, uuid.UUID(rid))
        assert upload is not None and upload.state == "failed"
