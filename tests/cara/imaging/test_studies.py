"""Studies brought in through the API into the tenant's PACS (STOW-RS) and found again (QIDO-RS),
strictly per tenant and per doctor, against a real Orthanc; bad input is named and stores nothing."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import httpx
import pytest

from cara.config import get_settings
from tests.cara.imaging.conftest import consultation, ct_study, encode, hospital_and_doctor, upload
from tests.factories import auth, doctor_payload, signup


def _on_pacs(orthanc: Any, study_uid: str) -> int:
    """How many instances Orthanc holds of a study, asked directly."""
    answer = httpx.get(
        f"{orthanc.dicomweb_url}/studies",
        params={"StudyInstanceUID": study_uid, "includefield": "00201208"},
        auth=(orthanc.username, orthanc.password),
    )
    assert answer.status_code == 200
    found = answer.json()
    return int(found[0]["00201208"]["Value"][0]) if found else 0


def _files(study: list[Any]) -> list[tuple[str, bytes]]:
    return [(f"IMG{index:04d}.dcm", encode(ds)) for index, ds in enumerate(study, 1)]


def test_upload_then_find_by_patient_accession_date_and_modality(
    client: Any, doctor: dict[str, str], pacs: Any
) -> None:
    cid = consultation(client, doctor)
    study = ct_study(3, patient="Mensah^Kofi", accession="ACC77")
    uid = study[0].StudyInstanceUID
    answer = upload(client, doctor, cid, _files(study))
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body["storedInstances"] == 3 and body["failedFiles"] == []
    (out,) = body["studies"]
    assert out["studyInstanceUid"] == uid
    assert out["consultationId"] == cid
    assert out["modalities"] == ["CT"] and out["instanceCount"] == 3
    assert _on_pacs(pacs, uid) == 3

    def found(**params: Any) -> list[str]:
        answer = client.get("/api/imaging/studies", params=params, headers=doctor)
        assert answer.status_code == 200, answer.text
        return [s["studyInstanceUid"] for s in answer.json()["studies"]]

    listed = client.get("/api/imaging/studies", headers=doctor).json()["studies"]
    assert [s["studyInstanceUid"] for s in listed] == [uid]
    assert listed[0]["patientName"] == "Mensah^Kofi"
    assert listed[0]["accessionNumber"] == "ACC77"
    assert listed[0]["studyDate"] == "2026-11-20"
    assert listed[0]["instanceCount"] == 3
    assert found(patient="mensah") == [uid]
    assert found(patient="Owusu") == []
    assert found(accession="ACC77") == [uid]
    assert found(accession="ACC78") == []
    assert found(modality="ct") == [uid]
    assert found(modality="MR") == []
    assert found(dateFrom="2026-11-01", dateTo="2026-11-30") == [uid]
    assert found(dateFrom="2026-11-21") == []
    assert found(consultationId=cid) == [uid]
    assert found(consultationId=consultation(client, doctor)) == []
    # Bringing a study in is audited (the doctor's tenant log), with no patient data.
    from sqlalchemy import select

    from cara.kit.db import tenant_session
    from cara.models import TenantAuditEvent

    with tenant_session("independent") as session:
        added = session.scalars(
            select(TenantAuditEvent).where(TenantAuditEvent.action == "imaging.study_added")
        ).all()
    assert [event.detail["instances"] for event in added] == [3]
    assert "Mensah" not in str(added[0].detail)
    # More instances of the same study later: the same study, held by the same doctor.
    more = ct_study(1)
    more[0].StudyInstanceUID = uid
    again = upload(client, doctor, cid, _files(more))
    assert again.status_code == 201, again.text
    assert again.json()["studies"][0]["instanceCount"] == 4


def test_a_zip_with_a_folder_inside(client: Any, doctor: dict[str, str], pacs: Any) -> None:
    cid = consultation(client, doctor)
    study = ct_study(3)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in _files(study):
            archive.writestr(f"CT/SERIES1/{name}", data)
        archive.writestr("__MACOSX/CT/._IMG0001.dcm", b"resource fork")
        archive.writestr("CT/.DS_Store", b"finder")
    answer = upload(client, doctor, cid, [("study.zip", buffer.getvalue())])
    assert answer.status_code == 201, answer.text
    assert answer.json()["storedInstances"] == 3
    assert _on_pacs(pacs, study[0].StudyInstanceUID) == 3


def test_studies_are_strictly_per_tenant_and_per_doctor(
    client: Any, doctor: dict[str, str], pacs: Any
) -> None:
    study = ct_study(2, patient="Boateng^Yaw")
    uid = study[0].StudyInstanceUID
    assert upload(client, doctor, consultation(client, doctor), _files(study)).status_code == 201

    _, hospital_doctor = hospital_and_doctor(client)
    other_independent = auth(signup(client, doctor_payload(specialty="Radiologist"))["token"])
    for stranger in (hospital_doctor, other_independent):
        # Not listed, not found by name, not reachable by its UID through the consultation filter.
        assert client.get("/api/imaging/studies", headers=stranger).json()["studies"] == []
        assert (
            client.get("/api/imaging/studies", params={"patient": "Boateng"}, headers=stranger).json()[
                "studies"
            ]
            == []
        )
        # Sending a file with the same StudyInstanceUID does not make the study theirs.
        forged = ct_study(1, patient="Boateng^Yaw")
        forged[0].StudyInstanceUID = uid
        answer = upload(client, stranger, consultation(client, stranger), _files(forged))
        assert answer.status_code == 409, answer.text
        assert "IMG0001.dcm" in answer.json()["message"]
        assert client.get("/api/imaging/studies", headers=stranger).json()["studies"] == []
    assert _on_pacs(pacs, uid) == 2  # nothing was added to the study
    assert [
        s["studyInstanceUid"] for s in client.get("/api/imaging/studies", headers=doctor).json()["studies"]
    ] == [uid]


def test_another_doctors_consultation_is_not_found(client: Any, doctor: dict[str, str]) -> None:
    other = auth(signup(client, doctor_payload(specialty="Radiologist"))["token"])
    answer = upload(client, other, consultation(client, doctor), _files(ct_study(1)))
    assert answer.status_code == 404
    assert (
        client.get(
            "/api/imaging/studies", params={"consultationId": consultation(client, doctor)}, headers=other
        ).status_code
        == 404
    )


def test_a_hospitals_own_pacs(client: Any, pacs: Any) -> None:
    hospital, staff = hospital_and_doctor(client)
    own = {"baseUrl": pacs.dicomweb_url, "username": pacs.username, "password": pacs.password}
    assert client.put("/api/imaging/pacs", json=own, headers=hospital).status_code == 200
    study = ct_study(2)
    answer = upload(client, staff, consultation(client, staff), _files(study))
    assert answer.status_code == 201, answer.text
    assert [
        s["studyInstanceUid"] for s in client.get("/api/imaging/studies", headers=staff).json()["studies"]
    ] == [study[0].StudyInstanceUID]


def test_not_dicom_and_truncated_files_are_named_and_nothing_is_stored(
    client: Any, doctor: dict[str, str], pacs: Any
) -> None:
    cid = consultation(client, doctor)
    study = ct_study(2)
    good = _files(study)
    whole = encode(study[1])
    for bad_name, bad, problem in (
        ("notes.txt", b"this is not an image" * 20, "is not a DICOM file"),
        ("IMG0002.dcm", whole[: len(whole) // 2], "is cut short"),
        ("empty.dcm", b"", "is not a DICOM file"),
    ):
        answer = upload(client, doctor, cid, [good[0], (bad_name, bad)])
        assert answer.status_code == 422, answer.text
        assert answer.json()["message"].startswith(f"Nothing was stored: {bad_name} {problem}")
        assert bad_name in answer.json()["fields"]
    assert _on_pacs(pacs, study[0].StudyInstanceUID) == 0
    assert client.get("/api/imaging/studies", headers=doctor).json()["studies"] == []


def test_zip_bomb_and_too_many_files(
    client: Any, doctor: dict[str, str], pacs: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = get_settings()
    monkeypatch.setattr(settings, "imaging_max_unpacked_bytes", 4 * 1024 * 1024)
    monkeypatch.setattr(settings, "imaging_max_files", 3)
    cid = consultation(client, doctor)
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("IMG0001.dcm", b"\0" * (64 * 1024 * 1024))  # 64 MB in about 64 kB
    assert len(bomb.getvalue()) < 200 * 1024
    answer = upload(client, doctor, cid, [("bomb.zip", bomb.getvalue())])
    assert answer.status_code == 413, answer.text
    assert answer.json()["message"] == "bomb.zip expands past 4 MB once unzipped; send it in parts."

    study = ct_study(4)
    answer = upload(client, doctor, cid, _files(study))
    assert answer.status_code == 413, answer.text
    assert "at most 3 files" in answer.json()["message"]
    many = io.BytesIO()
    with zipfile.ZipFile(many, "w") as archive:
        for name, data in _files(study):
            archive.writestr(name, data)
    answer = upload(client, doctor, cid, [("four.zip", many.getvalue())])
    assert answer.status_code == 413, answer.text
    assert answer.json()["message"] == "An upload holds at most 3 files (four.zip); send the study in parts."
    assert _on_pacs(pacs, study[0].StudyInstanceUID) == 0


def test_pacs_refusing_or_silent_is_a_clear_4xx(
    client: Any, doctor: dict[str, str], pacs: Any, silent_pacs: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    study = ct_study(1)
    monkeypatch.setattr(get_settings(), "pacs_password", "not-the-password")
    answer = upload(client, doctor, consultation(client, doctor), _files(study))
    assert answer.status_code == 424, answer.text
    assert "refused Cara's username and password (401)" in answer.json()["message"]
    assert "PACS_PASSWORD" in answer.json()["message"]
    monkeypatch.setattr(get_settings(), "pacs_password", pacs.password)
    assert client.get("/api/imaging/studies", headers=doctor).json()["studies"] == []

    hospital, staff = hospital_and_doctor(client)
    assert client.put("/api/imaging/pacs", json={"baseUrl": silent_pacs}, headers=hospital).status_code == 200
    answer = upload(client, staff, consultation(client, staff), _files(ct_study(1)))
    assert answer.status_code == 424, answer.text
    assert "did not answer within 3 s" in answer.json()["message"]
    assert "the hospital's PACS settings" in answer.json()["message"]
    assert _on_pacs(pacs, study[0].StudyInstanceUID) == 0


def test_bad_search_input_and_roles(client: Any, doctor: dict[str, str]) -> None:
    for params in (
        {"patient": "*"},
        {"patient": "a,b"},
        {"modality": "C1"},
        {"dateFrom": "2026-12-01", "dateTo": "2026-11-01"},
    ):
        assert client.get("/api/imaging/studies", params=params, headers=doctor).status_code == 422, params
    assert (
        client.get("/api/imaging/studies", params={"dateFrom": "yesterday"}, headers=doctor).status_code
        == 422
    )
    hospital, _ = hospital_and_doctor(client)
    assert client.get("/api/imaging/studies", headers=hospital).status_code == 403
    assert upload(client, hospital, "00000000-0000-0000-0000-000000000000", []).status_code == 403
    assert client.get("/api/imaging/studies").status_code == 401
    no_form = client.post("/api/imaging/studies", json={"consultationId": "x"}, headers=doctor)
    assert no_form.status_code == 415
    only_the_id = client.post(
        "/api/imaging/studies", files={"consultationId": (None, consultation(client, doctor))}, headers=doctor
    )
    assert only_the_id.status_code == 422, only_the_id.text
    assert "files" in only_the_id.json()["fields"]
