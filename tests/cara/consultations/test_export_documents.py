"""Exports a recipient can use on their own: the PDF as the clinic's letter (letterhead, licence,
signature line, the signer's local time, Arabic shaped), the DocumentReference standing alone
(patient and author contained, a new version per addendum) and the hash recomputable from it."""

from __future__ import annotations

import base64
import hashlib
import io
import json
from typing import Any

from fhir.resources.R4B.documentreference import DocumentReference
from pypdf import PdfReader

from tests.cara.consultations.conftest import start, subscribe
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup

ARABIC = "المريض يعاني من السعال منذ أسبوعين"


def sign(client: Any, headers: dict[str, str], text: str, **sign_body: Any) -> str:
    cid: str = start(
        client,
        headers,
        console="general-practitioner",
        patientReference={"recordNumber": "KB-2231", "name": "Kofi Asante", "sex": "male"},
    ).json()["id"]
    assert (
        client.put(f"/api/consultations/{cid}/note", json={"text": text}, headers=headers).status_code == 200
    )
    r = client.post(f"/api/consultations/{cid}/note/sign", json=sign_body, headers=headers)
    assert r.status_code == 200, r.text
    return cid


def pdf_text(client: Any, headers: dict[str, str], cid: str) -> tuple[str, set[str]]:
    r = client.get(f"/api/consultations/{cid}/export/pdf", headers=headers)
    assert r.status_code == 200, r.text
    reader = PdfReader(io.BytesIO(r.content))
    fonts: set[str] = set()
    for page in reader.pages:
        resources: Any = page["/Resources"]
        fonts |= {str(font.get_object()["/BaseFont"]) for font in resources["/Font"].values()}
    return "\n".join(page.extract_text() or "" for page in reader.pages), fonts


def staff_doctor(client: Any) -> dict[str, str]:
    hospital = signup(
        client,
        hospital_payload(
            name="Komfo Anokye Teaching Hospital",
            address="Okomfo Anokye Rd, Bantama",
            state="Ashanti",
            phoneNumber="0322022301",
        ),
    )["token"]
    subscribe(hospital)
    return auth(
        add_staff(client, doctor_payload(name="Dr Yaw Darko", licenseNumber="MDC/RN/4471"), hospital)["token"]
    )


class TestPdfLetter:
    def test_letterhead_licence_signature_line_and_local_time(self, client: Any) -> None:
        staff = staff_doctor(client)
        cid = sign(client, staff, "Cough for three weeks. Sputum for GeneXpert.", timeZone="Africa/Lagos")
        text, fonts = pdf_text(client, staff, cid)
        for expected in (
            "Komfo Anokye Teaching Hospital",
            "Okomfo Anokye Rd, Bantama, Ashanti, Ghana",
            "0322022301",
            "Licence number MDC/RN/4471",
            "Signed electronically on",
            "WAT (UTC+01:00, Africa/Lagos)",
        ):
            assert expected in text, (expected, text)
        assert " UTC by " not in text  # the signer's zone, not UTC
        assert any(f.endswith("Bold") for f in fonts), fonts  # headings are set in the bold face

    def test_without_a_zone_times_say_utc(self, client: Any, doctor: dict[str, str]) -> None:
        cid = sign(client, doctor, "Reviewed.")
        text, _ = pdf_text(client, doctor, cid)
        assert "UTC by " in text and "Independent practice" in text

    def test_arabic_reads_back_in_logical_order(self, client: Any, doctor: dict[str, str]) -> None:
        cid = sign(client, doctor, f"{ARABIC}.\nPlan: chest X-ray.", timeZone="Africa/Cairo")
        text, _ = pdf_text(client, doctor, cid)
        assert ARABIC in text, text
        assert "Plan: chest X-ray." in text

    def test_an_unknown_zone_is_422_and_the_note_stays_unsigned(
        self, client: Any, doctor: dict[str, str]
    ) -> None:
        cid: str = start(client, doctor).json()["id"]
        client.put(f"/api/consultations/{cid}/note", json={"text": "Draft."}, headers=doctor)
        r = client.post(
            f"/api/consultations/{cid}/note/sign", json={"timeZone": "Mars/Olympus"}, headers=doctor
        )
        assert r.status_code == 422 and "timeZone" in r.json()["fields"], r.text
        assert client.get(f"/api/consultations/{cid}", headers=doctor).json()["state"] != "signed"


def document_reference(client: Any, headers: dict[str, str], cid: str) -> dict[str, Any]:
    r = client.get(
        f"/api/consultations/{cid}/export/fhir", params={"resource": "document-reference"}, headers=headers
    )
    assert r.status_code == 200, r.text
    DocumentReference.model_validate(r.json())
    body: dict[str, Any] = r.json()
    return body


def references(resource: Any) -> list[str]:
    found: list[str] = []
    if isinstance(resource, dict):
        for key, value in resource.items():
            if key == "reference" and isinstance(value, str):
                found.append(value)
            else:
                found += references(value)
    elif isinstance(resource, list):
        for item in resource:
            found += references(item)
    return found


class TestDocumentReferenceAlone:
    def test_it_carries_its_patient_author_and_clinic(self, client: Any) -> None:
        staff = staff_doctor(client)
        cid = sign(client, staff, "Hypertension, amlodipine 5 mg.")
        doc = document_reference(client, staff, cid)
        contained = {r["id"]: r for r in doc["contained"]}
        # Every reference resolves inside the resource: nothing points outside it.
        refs = references(doc)
        assert refs and all(ref.startswith("#") and ref[1:] in contained for ref in refs), refs
        assert "urn:uuid:" not in json.dumps(doc)
        assert (
            doc["subject"]["identifier"]["value"] == "KB-2231" and doc["subject"]["display"] == "Kofi Asante"
        )
        patient = contained["patient"]
        assert patient["resourceType"] == "Patient" and patient["identifier"][0]["value"] == "KB-2231"
        assert contained["practitioner"]["identifier"][0]["value"] == "MDC/RN/4471"
        assert contained["organization"]["name"] == "Komfo Anokye Teaching Hospital"

    def test_an_addendum_is_a_new_version_that_replaces_the_last(
        self, client: Any, doctor: dict[str, str]
    ) -> None:
        cid = sign(client, doctor, "Findings: normal.")
        first = document_reference(client, doctor, cid)
        assert "relatesTo" not in first
        client.post(f"/api/consultations/{cid}/note/addenda", json={"text": "Lab: Hb 9.1."}, headers=doctor)
        second = document_reference(client, doctor, cid)
        assert second["masterIdentifier"]["value"] != first["masterIdentifier"]["value"]
        assert second["identifier"] == first["identifier"]  # the same signed note
        (relation,) = second["relatesTo"]
        assert relation["code"] == "replaces"
        assert relation["target"]["identifier"] == first["masterIdentifier"]
        client.post(f"/api/consultations/{cid}/note/addenda", json={"text": "Seen again."}, headers=doctor)
        third = document_reference(client, doctor, cid)
        assert third["relatesTo"][0]["target"]["identifier"] == second["masterIdentifier"]

    def test_a_recipient_recomputes_every_hash_from_the_export(
        self, client: Any, doctor: dict[str, str]
    ) -> None:
        cid = sign(client, doctor, f"{ARABIC} — review in 2 weeks.", timeZone="Africa/Accra")
        client.post(
            f"/api/consultations/{cid}/note/addenda", json={"text": "Culture negative."}, headers=doctor
        )
        doc = document_reference(client, doctor, cid)
        signed_entries = [
            c for c in doc["content"] if c.get("format", {}).get("code") == "signed-entry-canonical-json"
        ]
        assert len(signed_entries) == 2
        digests = []
        for item in signed_entries:
            data = base64.b64decode(item["attachment"]["data"])
            digests.append(hashlib.sha256(data).hexdigest())
            assert json.loads(data)["consultation"] == cid
        # The signature's hash is the note's identifier; the last entry's is this version's.
        assert digests[0] == doc["identifier"][0]["value"]
        assert digests[-1] == doc["masterIdentifier"]["value"]
        signed = json.loads(base64.b64decode(signed_entries[0]["attachment"]["data"]))
        assert signed["shown"]["timeZone"] == "Africa/Accra" and ARABIC in signed["text"]
        # The note's own page says the same hash.
        note = client.get(f"/api/consultations/{cid}", headers=doctor).json()["note"]
        assert note["entries"][0]["contentSha256"] == digests[0]
