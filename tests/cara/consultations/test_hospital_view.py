"""The hospital's view: its own doctors' signed notes, read-only and audited; never drafts, never
another hospital's; admins and doctors see none of it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from cara.kit.db import tenant_session
from cara.models import TenantAuditEvent
from tests.cara.consultations.conftest import schema_and_account, start, subscribe
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup


def hospital_with_doctor(client: Any, name: str) -> tuple[dict[str, str], dict[str, str], str]:
    token = signup(client, hospital_payload())["token"]
    subscribe(token)
    staff = add_staff(client, doctor_payload(name=name), token)
    return auth(token), auth(staff["token"]), str(schema_and_account(auth(staff["token"]))[1])


def note(client: Any, headers: dict[str, str], text: str, *, sign: bool) -> str:
    cid: str = start(client, headers, patientReference={"recordNumber": "MRN-9"}).json()["id"]
    client.put(f"/api/consultations/{cid}/note", json={"text": text}, headers=headers)
    if sign:
        assert client.post(f"/api/consultations/{cid}/note/sign", headers=headers).status_code == 200
    return cid


def test_hospital_lists_and_reads_its_doctors_signed_notes(client: Any) -> None:
    hospital, staff, staff_id = hospital_with_doctor(client, "Dr Efua Asante")
    _, colleague, colleague_id = hospital_with_doctor(client, "Dr Other Hospital")
    colleague_hospital_note = note(client, colleague, "Elsewhere", sign=True)
    signed = note(client, staff, "Signed: angina, start aspirin.", sign=True)
    draft = note(client, staff, "Only a draft", sign=False)

    r = client.get("/api/consultations/signed", headers=hospital)
    assert r.status_code == 200, r.text
    items = r.json()["items"]
    assert [i["id"] for i in items] == [signed]
    assert items[0]["doctorName"] == "Dr Efua Asante" and items[0]["doctorId"] == staff_id
    assert items[0]["patientReference"]["recordNumber"] == "MRN-9" and items[0]["signedAt"]
    by_doctor = client.get(
        "/api/consultations/signed", params={"doctorId": staff_id}, headers=hospital
    ).json()
    assert [i["id"] for i in by_doctor["items"]] == [signed]
    assert (
        client.get("/api/consultations/signed", params={"doctorId": colleague_id}, headers=hospital).json()[
            "items"
        ]
        == []
    )

    r = client.get(f"/api/consultations/signed/{signed}", headers=hospital)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["note"]["text"] == "Signed: angina, start aspirin." and body["note"]["signed"] is True
    assert "drafts" not in body and "lines" not in body and body["note"]["sourceDraftId"] is None
    # Drafts, other hospitals' notes and unknown ids are all simply not found.
    for cid in (draft, colleague_hospital_note, "nope"):
        assert client.get(f"/api/consultations/signed/{cid}", headers=hospital).status_code == 404
    # Read-only: the hospital cannot edit, sign or add to a note.
    assert (
        client.put(
            f"/api/consultations/{signed}/note", json={"text": "x", "version": 1}, headers=hospital
        ).status_code
        == 403
    )
    assert (
        client.post(
            f"/api/consultations/{signed}/note/addenda", json={"text": "x"}, headers=hospital
        ).status_code
        == 403
    )
    # Every view is audited, in the hospital's schema.
    client.get(f"/api/consultations/signed/{signed}", headers=hospital)
    with tenant_session(schema_and_account(staff)[0]) as s:
        views = s.scalars(
            select(TenantAuditEvent).where(
                TenantAuditEvent.action == "consultation.hospital_view", TenantAuditEvent.target_id == signed
            )
        ).all()
    assert len(views) == 2 and all(v.detail == {"doctor": staff_id} for v in views)


def test_doctors_and_admins_see_none(client: Any, admin_token: str) -> None:
    _, staff, _ = hospital_with_doctor(client, "Dr A")
    signed = note(client, staff, "Signed.", sign=True)
    for headers in (staff, auth(admin_token)):
        assert client.get("/api/consultations/signed", headers=headers).status_code == 403
        assert client.get(f"/api/consultations/signed/{signed}", headers=headers).status_code == 403
    assert client.get(f"/api/consultations/{signed}", headers=auth(admin_token)).status_code == 403


def test_bad_parameters(client: Any) -> None:
    hospital, _, _ = hospital_with_doctor(client, "Dr B")
    assert (
        client.get("/api/consultations/signed", params={"doctorId": "x"}, headers=hospital).status_code == 404
    )
    assert (
        client.get("/api/consultations/signed", params={"cursor": "zz"}, headers=hospital).status_code == 400
    )
    assert client.get("/api/consultations/signed", params={"limit": 0}, headers=hospital).status_code == 422


def test_hospital_downloads_its_doctors_signed_notes(client: Any, admin_token: str) -> None:
    """FHIR and PDF of a signed note, as the doctor gets them; one audit entry per download; drafts,
    other hospitals' notes and bad ids are 404; doctors and admins are refused."""
    import io
    import json

    from fhir.resources.R4B.bundle import Bundle
    from fhir.resources.R4B.documentreference import DocumentReference
    from pypdf import PdfReader

    hospital, staff, staff_id = hospital_with_doctor(client, "Dr Kwame Mensah")
    other_hospital, colleague, _ = hospital_with_doctor(client, "Dr Elsewhere")
    signed = note(client, staff, "Signed: hypertension, start amlodipine.", sign=True)
    draft = note(client, staff, "Only a draft", sign=False)
    elsewhere = note(client, colleague, "Elsewhere", sign=True)

    r = client.get(f"/api/consultations/signed/{signed}/export/fhir", headers=hospital)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/fhir+json")
    assert r.headers["content-disposition"].startswith("attachment;")
    assert r.headers["cache-control"] == "private, no-store"
    bundle = Bundle.model_validate(json.loads(r.content))
    assert bundle.type == "document"
    assert r.content == client.get(f"/api/consultations/{signed}/export/fhir", headers=staff).content
    r = client.get(
        f"/api/consultations/signed/{signed}/export/fhir",
        params={"resource": "document-reference"},
        headers=hospital,
    )
    assert DocumentReference.model_validate(json.loads(r.content)).status == "current"
    r = client.get(f"/api/consultations/signed/{signed}/export/pdf", headers=hospital)
    assert r.status_code == 200 and r.headers["content-type"] == "application/pdf"
    text = " ".join((page.extract_text() or "") for page in PdfReader(io.BytesIO(r.content)).pages)
    assert "amlodipine" in text and "Dr Kwame Mensah" in text

    for cid in (draft, elsewhere, "nope"):
        for kind in ("fhir", "pdf"):
            assert (
                client.get(f"/api/consultations/signed/{cid}/export/{kind}", headers=hospital).status_code
                == 404
            )
    # The other hospital does not see this one's notes either.
    assert (
        client.get(f"/api/consultations/signed/{signed}/export/pdf", headers=other_hospital).status_code
        == 404
    )
    for headers in (staff, auth(admin_token)):
        assert (
            client.get(f"/api/consultations/signed/{signed}/export/pdf", headers=headers).status_code == 403
        )
    assert (
        client.get(
            f"/api/consultations/signed/{signed}/export/fhir", params={"resource": "x"}, headers=hospital
        ).status_code
        == 422
    )

    hospital_id = schema_and_account(hospital)[1]
    with tenant_session(schema_and_account(staff)[0]) as s:
        downloads = s.scalars(
            select(TenantAuditEvent).where(
                TenantAuditEvent.action == "consultation.export",
                TenantAuditEvent.target_id == signed,
                TenantAuditEvent.actor_account_id == hospital_id,
            )
        ).all()
    assert sorted(d.detail["format"] for d in downloads) == ["fhir", "fhir", "pdf"]
    assert all(d.detail["doctor"] == staff_id for d in downloads)
