"""Certificate files: stored for real in the doctor's tenant schema, served to the doctor and
their hospital only (spec §2 "Doctor Profile", issue: files are kept, not only logged)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from cara.kit.db import session_scope
from cara.models import CertificateFile
from cara.profiles.certificates import MAX_CERTIFICATE_BYTES
from tests.cara.doctors.conftest import HospitalAccount, doctor_form, new_hospital
from tests.factories import auth, doctor_payload, signup

PDF = b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def upload(
    client: Any, token: str, content: bytes, name: str = "fwacs.pdf", mime: str = "application/pdf"
) -> Any:
    return client.post(
        "/api/auth/doctor/certificates", files={"file": (name, content, mime)}, headers=auth(token)
    )


def files_in(schema: str) -> int:
    with session_scope(schema) as s:
        return int(s.scalar(select(func.count()).select_from(CertificateFile)) or 0)


@pytest.fixture
def doctor(client: Any) -> dict[str, Any]:
    return signup(client, doctor_payload())


def test_upload_attach_save_and_download(client: Any, doctor: dict[str, Any]) -> None:
    r = upload(client, doctor["token"], PDF, name="../../etc/FWACS certificate.PDF", mime="text/plain")
    assert r.status_code == 201, r.text
    stored = r.json()
    # Type from the bytes, not from the browser; no path in the name.
    assert stored["contentType"] == "application/pdf"
    assert stored["fileName"] == "FWACS certificate.pdf"
    assert stored["size"] == len(PDF)

    saved = client.put(
        "/api/auth/doctor/profile",
        json={
            "certifications": [
                {"name": "FWACS", "issuer": "WACS", "date": "2018-05-01", "fileId": stored["id"]}
            ]
        },
        headers=auth(doctor["token"]),
    )
    assert saved.status_code == 200, saved.text
    cert = saved.json()["user"]["certifications"][0]
    assert (cert["fileId"], cert["fileName"], cert["fileSize"]) == (
        stored["id"],
        "FWACS certificate.pdf",
        len(PDF),
    )

    got = client.get(f"/api/certificates/{stored['id']}", headers=auth(doctor["token"]))
    assert got.status_code == 200
    assert got.content == PDF
    assert got.headers["content-type"] == "application/pdf"
    assert got.headers["content-disposition"].startswith("attachment;")
    assert got.headers["x-content-type-options"] == "nosniff"


def test_removing_the_certification_deletes_its_file(client: Any, doctor: dict[str, Any]) -> None:
    kept = upload(client, doctor["token"], PDF).json()
    dropped = upload(client, doctor["token"], PNG, name="bls.png").json()
    never_used = upload(client, doctor["token"], PDF).json()
    assert files_in("independent") == 3
    r = client.put(
        "/api/auth/doctor/profile",
        json={
            "certifications": [{"name": "A", "fileId": kept["id"]}, {"name": "B", "fileId": dropped["id"]}]
        },
        headers=auth(doctor["token"]),
    )
    assert r.status_code == 200
    assert files_in("independent") == 2  # the upload no certification points at is gone
    client.put(
        "/api/auth/doctor/profile",
        json={"certifications": [{"name": "A", "fileId": kept["id"]}]},
        headers=auth(doctor["token"]),
    )
    assert files_in("independent") == 1
    for gone in (dropped, never_used):
        assert client.get(f"/api/certificates/{gone['id']}", headers=auth(doctor["token"])).status_code == 404


@pytest.mark.parametrize(
    ("content", "status", "message"),
    [
        (b"GIF89a....", 422, "Only PDF, PNG or JPEG files can be uploaded."),
        (b"<html><script>alert(1)</script>", 422, "Only PDF, PNG or JPEG files can be uploaded."),
        (b"", 422, "The file is empty."),
        (b"%PDF-" + b"0" * MAX_CERTIFICATE_BYTES, 413, "The file is larger than 5 MB."),
    ],
)
def test_refused_files(
    client: Any, doctor: dict[str, Any], content: bytes, status: int, message: str
) -> None:
    r = upload(client, doctor["token"], content)
    assert r.status_code == status, r.text[:300]
    assert message in (r.json()["fields"].get("file", ""), r.json()["message"])
    assert files_in("independent") == 0


def test_a_much_larger_body_is_cut_off_before_reading(client: Any, doctor: dict[str, Any]) -> None:
    r = upload(client, doctor["token"], b"%PDF-" + b"0" * (MAX_CERTIFICATE_BYTES * 2))
    assert r.status_code == 413


def test_someone_elses_file_id_cannot_be_attached(client: Any, doctor: dict[str, Any]) -> None:
    other = signup(client, doctor_payload())
    theirs = upload(client, other["token"], PDF).json()
    r = client.put(
        "/api/auth/doctor/profile",
        json={"certifications": [{"name": "Stolen", "fileId": theirs["id"]}]},
        headers=auth(doctor["token"]),
    )
    assert r.status_code == 422
    assert r.json()["fields"]["certifications.0.file"] == "This file was not found. Please upload it again."


class TestWhoMayDownload:
    @pytest.fixture
    def setting(self, client: Any) -> tuple[HospitalAccount, str, str]:
        hospital = new_hospital(client)
        client.post("/api/doctors/new-doctor", json=doctor_form(n=1), headers=hospital.headers)
        token = client.post(
            "/api/auth/login",
            json={"email": "kofi.boateng.1@example.com", "password": "kofi-secret", "role": "doctor"},
        ).json()["token"]
        file_id = upload(client, token, PDF).json()["id"]
        return hospital, token, file_id

    def test_the_doctor_and_their_hospital(
        self, client: Any, setting: tuple[HospitalAccount, str, str]
    ) -> None:
        hospital, token, file_id = setting
        for headers in (auth(token), hospital.headers):
            r = client.get(f"/api/certificates/{file_id}", headers=headers)
            assert r.status_code == 200 and r.content == PDF

    def test_not_another_hospital_doctor_or_admin(
        self, client: Any, setting: tuple[HospitalAccount, str, str], admin_token: str
    ) -> None:
        _, _, file_id = setting
        strangers = [new_hospital(client).headers, auth(signup(client, doctor_payload())["token"])]
        for headers in strangers:
            r = client.get(f"/api/certificates/{file_id}", headers=headers)
            assert r.status_code == 404
            assert r.json()["message"] == "Certificate file not found."
        assert client.get(f"/api/certificates/{file_id}", headers=auth(admin_token)).status_code == 403
        assert client.get(f"/api/certificates/{file_id}").status_code == 401

    def test_removing_the_doctor_removes_their_files(
        self, client: Any, setting: tuple[HospitalAccount, str, str]
    ) -> None:
        hospital, _, file_id = setting
        doctor_id = client.get("/api/doctors", headers=hospital.headers).json()[0]["_id"]
        assert (
            client.request("DELETE", f"/api/doctors/{doctor_id}", headers=hospital.headers).status_code == 200
        )
        assert client.get(f"/api/certificates/{file_id}", headers=hospital.headers).status_code == 404


def test_hospitals_cannot_upload(client: Any) -> None:
    r = upload(client, new_hospital(client).token, PDF)
    assert r.status_code == 403


def test_abandoned_uploads_make_room_at_the_limit(client: Any, doctor: dict[str, Any]) -> None:
    from datetime import timedelta

    from sqlalchemy import update

    from cara.models.base import utcnow
    from cara.profiles.certificates import MAX_FILES_PER_DOCTOR

    kept = upload(client, doctor["token"], PDF).json()
    client.put(
        "/api/auth/doctor/profile",
        json={"certifications": [{"name": "Kept", "fileId": kept["id"]}]},
        headers=auth(doctor["token"]),
    )
    for _ in range(MAX_FILES_PER_DOCTOR - 1):  # uploads of edits that were cancelled
        assert upload(client, doctor["token"], PNG, name="x.png").status_code == 201
    refused = upload(client, doctor["token"], PNG, name="x.png")
    assert refused.status_code == 409  # all recent: they may belong to an edit going on now
    with session_scope("independent") as s:
        s.execute(update(CertificateFile).values(created_at=utcnow() - timedelta(hours=2)))
    assert upload(client, doctor["token"], PNG, name="x.png").status_code == 201
    assert files_in("independent") == 2  # the saved one and the new one
    got = client.get(f"/api/certificates/{kept['id']}", headers=auth(doctor["token"]))
    assert got.status_code == 200
