"""Exports of a signed note: FHIR (validated by fhir.resources) and PDF (parsed back with pypdf)."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest
from fhir.resources.R4B.bundle import Bundle
from fhir.resources.R4B.composition import Composition
from fhir.resources.R4B.documentreference import DocumentReference
from pypdf import PdfReader
from sqlalchemy import select

from cara.kit.db import tenant_session
from cara.models import TenantAuditEvent
from tests.cara.consultations.conftest import schema_and_account, start, subscribe
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup


def signed(client: Any, headers: dict[str, str], text: str, console: str = "generic", **extra: Any) -> str:
    cid: str = start(client, headers, console=console, **extra).json()["id"]
    assert (
        client.put(f"/api/consultations/{cid}/note", json={"text": text}, headers=headers).status_code == 200
    )
    assert client.post(f"/api/consultations/{cid}/note/sign", headers=headers).status_code == 200
    return cid


class TestFhir:
    def test_document_bundle_validates(self, client: Any, doctor: dict[str, str]) -> None:
        cid = signed(
            client,
            doctor,
            "Chest pain <2h>, ECG & troponin normal.\n\nFollow-up in one week.",
            patientReference={"recordNumber": "KB-1234", "name": "Ama Owusu", "age": 54, "sex": "female"},
        )
        client.post(
            f"/api/consultations/{cid}/note/addenda", json={"text": "Troponin repeat normal."}, headers=doctor
        )
        r = client.get(f"/api/consultations/{cid}/export/fhir", headers=doctor)
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("application/fhir+json")
        assert "attachment" in r.headers["content-disposition"]
        bundle = Bundle.model_validate(r.json())
        assert bundle.type == "document"
        composition = bundle.entry[0].resource
        assert isinstance(composition, Composition)
        assert (
            composition.type.coding[0].system == "http://loinc.org"
            and composition.type.coding[0].code == "11488-4"
        )
        assert composition.status == "amended" and composition.attester[0].mode == "legal"
        kinds = [e.resource.__resource_type__ for e in bundle.entry]
        assert kinds == ["Composition", "Patient", "Practitioner", "Organization", "DocumentReference"]
        full_urls = {e.fullUrl for e in bundle.entry}
        # Every reference of the document resolves inside the bundle.
        refs = {m for m in json.dumps(r.json()).split('"') if m.startswith("urn:uuid:")}
        assert refs <= full_urls | {r.json()["identifier"]["value"]}
        patient = bundle.entry[1].resource
        assert patient.identifier[0].value == "KB-1234" and patient.gender == "female"
        reference = bundle.entry[4].resource
        assert isinstance(reference, DocumentReference)
        assert reference.type.coding[0].code == "11488-4"
        # The wire form is base64 (the model decodes it to bytes).
        raw = r.json()["entry"][4]["resource"]["content"][0]["attachment"]["data"]
        text = base64.b64decode(raw).decode()
        assert reference.content[0].attachment.data.decode() == text
        assert (
            text.startswith("Chest pain <2h>, ECG & troponin normal.") and "Troponin repeat normal." in text
        )
        assert "AI assistance" in json.dumps(r.json())
        # Stable: exporting again gives the same document.
        assert client.get(f"/api/consultations/{cid}/export/fhir", headers=doctor).json() == r.json()

    def test_radiology_is_an_imaging_report_and_document_reference_alone(
        self, client: Any, doctor: dict[str, str]
    ) -> None:
        cid = signed(client, doctor, "Findings\nMass.", console="radiologist")
        r = client.get(
            f"/api/consultations/{cid}/export/fhir", params={"resource": "document-reference"}, headers=doctor
        )
        assert r.status_code == 200, r.text
        reference = DocumentReference.model_validate(r.json())
        assert reference.type.coding[0].code == "18748-4" and reference.subject is None
        assert base64.b64decode(r.json()["content"][0]["attachment"]["data"]).decode() == "Findings\nMass."
        bundle = Bundle.model_validate(
            client.get(f"/api/consultations/{cid}/export/fhir", headers=doctor).json()
        )
        assert bundle.entry[0].resource.type.coding[0].code == "18748-4"
        assert (
            client.get(
                f"/api/consultations/{cid}/export/fhir", params={"resource": "x"}, headers=doctor
            ).status_code
            == 422
        )


class TestPdf:
    def test_pdf_parses_back(self, client: Any) -> None:
        hospital_token = signup(client, hospital_payload(name="Korle Bu Teaching Hospital"))["token"]
        subscribe(hospital_token)
        staff = auth(add_staff(client, doctor_payload(name="Dr Kwame Boateng"), hospital_token)["token"])
        cid = signed(client, staff, "Hypertension stage 2; start amlodipine 5 mg. Réévaluer à 4 semaines.")
        r = client.get(f"/api/consultations/{cid}/export/pdf", headers=staff)
        assert r.status_code == 200, r.text
        assert r.headers["content-type"] == "application/pdf" and r.content.startswith(b"%PDF")
        text = " ".join((page.extract_text() or "") for page in PdfReader(io.BytesIO(r.content)).pages)
        text = " ".join(text.split())
        for expected in (
            "Korle Bu Teaching Hospital",
            "Dr Kwame Boateng",
            "Hypertension stage 2; start amlodipine 5 mg.",
            "Réévaluer à 4 semaines.",
            "Drafted with AI assistance",
        ):
            assert expected in text, (expected, text)
        # Both exports are in the audit log.
        client.get(f"/api/consultations/{cid}/export/fhir", headers=staff)
        with tenant_session(schema_and_account(staff)[0]) as s:
            exports = s.scalars(
                select(TenantAuditEvent.detail).where(
                    TenantAuditEvent.action == "consultation.export", TenantAuditEvent.target_id == cid
                )
            ).all()
        assert [e["format"] for e in exports] == ["pdf", "fhir"]


@pytest.mark.parametrize("kind", ["fhir", "pdf"])
def test_unsigned_is_409_and_others_404(client: Any, doctor: dict[str, str], kind: str) -> None:
    cid = start(client, doctor).json()["id"]
    r = client.get(f"/api/consultations/{cid}/export/{kind}", headers=doctor)
    assert (
        r.status_code == 409
        and r.json()["message"] == "Only a signed note can be exported. Sign the note first."
    )
    client.put(f"/api/consultations/{cid}/note", json={"text": "draft only"}, headers=doctor)
    assert client.get(f"/api/consultations/{cid}/export/{kind}", headers=doctor).status_code == 409
    other = auth(signup(client, doctor_payload())["token"])
    signed_id = signed(client, doctor, "Signed.")
    assert client.get(f"/api/consultations/{signed_id}/export/{kind}", headers=other).status_code == 404
    hospital = auth(signup(client, hospital_payload())["token"])
    assert client.get(f"/api/consultations/{signed_id}/export/{kind}", headers=hospital).status_code == 403
