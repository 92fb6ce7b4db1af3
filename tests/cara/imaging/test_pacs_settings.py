"""A hospital points Cara at its own PACS over DICOMweb: the password stays on the server, and
"Test connection" tells ok, 401, timeout, unreachable and not-DICOMweb apart (real Orthanc)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import text

from cara.config import get_settings
from cara.kit.db import get_engine
from cara_devstack.embedded import free_port
from tests.cara.imaging.conftest import hospital_and_doctor


def _own(orthanc: Any, **overrides: Any) -> dict[str, Any]:
    return {
        "baseUrl": orthanc.dicomweb_url,
        "username": orthanc.username,
        "password": orthanc.password,
        **overrides,
    }


def test_default_is_the_platforms_pacs(client: Any) -> None:
    hospital, _ = hospital_and_doctor(client)
    answer = client.get("/api/imaging/pacs", headers=hospital)
    assert answer.status_code == 200
    assert answer.json() == {
        "source": "platform",
        "baseUrl": None,
        "username": None,
        "passwordSet": False,
        "platformAvailable": True,
    }
    result = client.post("/api/imaging/pacs/test", json={}, headers=hospital).json()
    assert result["result"] == "ok", result


def test_own_pacs_saved_with_its_password_never_returned(client: Any, pacs: Any) -> None:
    hospital, _ = hospital_and_doctor(client)
    saved = client.put("/api/imaging/pacs", json=_own(pacs), headers=hospital)
    assert saved.status_code == 200, saved.text
    assert saved.json() == {
        "source": "hospital",
        "baseUrl": pacs.dicomweb_url,
        "username": pacs.username,
        "passwordSet": True,
        "platformAvailable": True,
    }
    read = client.get("/api/imaging/pacs", headers=hospital)
    assert pacs.password not in read.text and pacs.password not in saved.text
    with get_engine().connect() as conn:
        schemas = conn.execute(
            text("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'hospital\\_%'")
        ).scalars()
        (schema,) = list(schemas)
        stored = conn.execute(text(f'SELECT password_encrypted FROM "{schema}".pacs_settings')).scalar_one()
    assert pacs.password not in stored  # encrypted at rest
    # The saved password is used by the test, and kept when a later save leaves it out.
    assert client.post("/api/imaging/pacs/test", json={}, headers=hospital).json()["result"] == "ok"
    kept = client.put(
        "/api/imaging/pacs", json={"baseUrl": pacs.dicomweb_url, "username": pacs.username}, headers=hospital
    )
    assert kept.json()["passwordSet"] is True
    assert client.post("/api/imaging/pacs/test", json={}, headers=hospital).json()["result"] == "ok"
    # Back to the platform's PACS.
    back = client.put("/api/imaging/pacs", json={"baseUrl": None}, headers=hospital)
    assert back.json()["source"] == "platform"
    # Each change is in the hospital's audit log, naming the host, never a credential.
    log = client.get("/api/doctors/audit-events", headers=hospital)
    assert log.status_code == 200, log.text
    changes = [e for e in log.json()["items"] if e["action"] == "pacs_settings.update"]
    assert len(changes) == 3
    assert pacs.password not in log.text


def test_connection_results(client: Any, pacs: Any, silent_pacs: str) -> None:
    hospital, _ = hospital_and_doctor(client)

    def result(**body: Any) -> dict[str, Any]:
        answer = client.post("/api/imaging/pacs/test", json=body, headers=hospital)
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    ok = result(**_own(pacs))
    assert ok["result"] == "ok" and ok["status"] == 200

    refused = result(**_own(pacs, password="not-the-password"))
    assert refused["result"] == "unauthorized" and refused["status"] == 401
    assert "username and password (401)" in refused["message"]
    assert "not-the-password" not in json.dumps(refused)

    slow = result(baseUrl=silent_pacs)
    assert slow["result"] == "timeout"
    assert "did not answer within 3 s" in slow["message"]

    closed = result(baseUrl=f"http://127.0.0.1:{free_port()}/dicom-web")
    assert closed["result"] == "unreachable"

    # Orthanc's own REST API answers /studies with JSON, but not DICOMweb's.
    rest = result(**_own(pacs, baseUrl=pacs.url))
    assert rest["result"] == "not_dicomweb", rest
    assert "DICOMweb root" in rest["message"]


def test_bad_addresses_and_roles(client: Any, pacs: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    hospital, doctor = hospital_and_doctor(client)
    for bad in (
        "ftp://pacs.example.org",
        "pacs.example.org",
        "https://user:pw@pacs.example.org/dicom-web",
        "http://[::1/dicom-web",
        "http://pacs.example.org:99999/dicom-web",
    ):
        answer = client.put("/api/imaging/pacs", json={"baseUrl": bad}, headers=hospital)
        assert answer.status_code == 422, bad
        assert "baseUrl" in answer.json()["fields"]
    # Outside tests, the server's own loopback (and link-local, e.g. cloud metadata) is refused.
    monkeypatch.setattr(get_settings(), "pacs_allow_loopback", False)
    for own in (pacs.dicomweb_url, "http://169.254.169.254/latest"):
        answer = client.put("/api/imaging/pacs", json={"baseUrl": own}, headers=hospital)
        assert answer.status_code == 422, own
        answer = client.post("/api/imaging/pacs/test", json={"baseUrl": own}, headers=hospital)
        assert answer.status_code == 422, own
    # Only the hospital reads or sets it.
    assert client.get("/api/imaging/pacs", headers=doctor).status_code == 403
    assert client.put("/api/imaging/pacs", json=_own(pacs), headers=doctor).status_code == 403
    assert client.post("/api/imaging/pacs/test", json={}, headers=doctor).status_code == 403
    assert client.get("/api/imaging/pacs").status_code == 401
