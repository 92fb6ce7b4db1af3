"""The note in a template, with ICD-10 codes and their evidence: asked for, written by itself at
the visit's end, codes accepted by the doctor, signed, exported (FHIR Condition, PDF). The
Gemini double answers JSON in the asked shape from the lines it was sent (no scripted answer)."""

from __future__ import annotations

import io
import time
import uuid
from typing import Any

from fhir.resources.R4B.bundle import Bundle
from pypdf import PdfReader

from cara.consultations import service as consultations
from cara.kit.db import tenant_session
from cara_doubles.gemini import NOT_A_CODE, GeminiDouble
from tenants.sessions import TenantTransactions
from tests.cara.consultations.conftest import add_lines, schema_and_account, start
from tests.factories import auth, doctor_payload, hospital_payload, signup

VISIT = [
    ("user", "Kofi Asante, 46, has had a productive cough for three weeks with night sweats."),
    ("user", "He was treated for hypertension last year; blood pressure today 150 over 95."),
    ("user", "Chest sounds: crackles in the right upper zone. Sputum for GeneXpert today."),
    ("user", "Start amlodipine 5 mg daily and review in two weeks with the sputum result."),
]


def visit(client: Any, headers: dict[str, str], console: str = "general-practitioner") -> str:
    cid: str = start(client, headers, console=console).json()["id"]
    add_lines(headers, cid, VISIT)
    return cid


def gp(client: Any) -> dict[str, str]:
    return auth(signup(client, doctor_payload(specialty="General Practitioner"))["token"])


class TestTemplates:
    def test_each_console_offers_its_templates_default_first(self, client: Any) -> None:
        doctor = gp(client)
        r = client.get("/api/templates", params={"console": "radiologist"}, headers=doctor)
        assert r.status_code == 200, r.text
        ids = [t["id"] for t in r.json()]
        assert ids[0] == "radiology-ct" and r.json()[0]["default"] is True
        assert "radiology-mammography" in ids and "soap" in ids and "nursing-handover" not in ids
        nurse = client.get("/api/templates", params={"console": "nurse"}, headers=doctor).json()
        assert nurse[0]["id"] == "nursing-handover"
        assert [s["heading"] for s in nurse[0]["sections"]] == [
            "Situation",
            "Background",
            "Assessment",
            "Recommendation",
        ]
        bad = client.get("/api/templates", params={"console": "dentist"}, headers=doctor)
        assert bad.status_code == 422 and "console" in bad.json()["fields"]
        hospital = auth(signup(client, hospital_payload())["token"])
        assert client.get("/api/templates", params={"console": "nurse"}, headers=hospital).status_code == 403


class TestNoteDraft:
    def test_the_note_in_soap_with_evidence_and_only_real_codes(
        self, client: Any, gemini: GeminiDouble, worker: Any
    ) -> None:
        doctor = gp(client)
        cid = visit(client, doctor)
        r = client.post("/api/summarize", json={"consultationId": cid, "kind": "note"}, headers=doctor)
        assert r.status_code == 200, r.text
        draft = r.json()["draft"]
        assert draft["kind"] == "note" and draft["templateId"] == "soap" and draft["templateVersion"] == 1
        # Headed in the template's order, each sentence citing the line it rests on.
        headings = [block.split("\n")[0] for block in draft["text"].split("\n\n")]
        assert headings == [h for h in ("Subjective", "Objective", "Assessment", "Plan") if h in headings]
        assert len(headings) >= 2 and draft["evidence"]
        ids = {line["id"] for line in client.get(f"/api/consultations/{cid}", headers=doctor).json()["lines"]}
        assert all(set(e["lineIds"]) <= ids for e in draft["evidence"])
        codes = {c["code"]: c for c in draft["codes"]}
        assert "R05" in codes and "I10" in codes, codes
        assert NOT_A_CODE not in codes  # the double proposed it; it is not a WHO ICD-10 code
        assert codes["R05"]["title"] == "Cough" and codes["R05"]["lineIds"] and codes["R05"]["sentences"]
        # The double was asked in the template's shape.
        asked = gemini.generate_requests[-1].body["generationConfig"]["responseJsonSchema"]["properties"]
        assert {"subjective", "objective", "assessment", "plan", "codes"} <= set(asked)

    def test_a_radiology_template_fills_the_structured_report(
        self, client: Any, gemini: GeminiDouble, worker: Any
    ) -> None:
        doctor = auth(signup(client, doctor_payload(specialty="Radiologist"))["token"])
        cid = visit(client, doctor, console="radiologist")
        r = client.post(
            "/api/summarize",
            json={"consultationId": cid, "kind": "note", "template": "radiology-plain-film"},
            headers=doctor,
        )
        assert r.status_code == 200, r.text
        draft = r.json()["draft"]
        assert draft["templateId"] == "radiology-plain-film"
        assert set(draft["sections"]) >= {"indication", "technique", "findings", "impression"}
        assert "plain radiograph" in gemini.generate_requests[-1].text

    def test_bad_requests_name_their_field_and_store_nothing(
        self, client: Any, gemini: GeminiDouble, worker: Any
    ) -> None:
        doctor = gp(client)
        cid = visit(client, doctor)
        for body, field in (
            ({"consultationId": cid, "kind": "note", "template": "no-such"}, "template"),
            ({"consultationId": cid, "kind": "note", "template": "radiology-ct"}, "template"),
            ({"kind": "note", "transcript": "Clinician: cough"}, "consultationId"),
        ):
            r = client.post("/api/summarize", json=body, headers=doctor)
            assert r.status_code == 422 and field in r.json()["fields"], (body, r.text)
        assert client.get(f"/api/consultations/{cid}", headers=doctor).json()["drafts"] == []


class TestCodesAcceptedAndSigned:
    def test_accept_two_codes_sign_and_export(self, client: Any, gemini: GeminiDouble, worker: Any) -> None:
        doctor = gp(client)
        cid = visit(client, doctor)
        draft = client.post(
            "/api/summarize", json={"consultationId": cid, "kind": "note"}, headers=doctor
        ).json()["draft"]
        url = f"/api/consultations/{cid}/note"
        saved = client.put(
            url, json={"fromDraftId": draft["id"], "version": 0, "codes": ["r05", "I10"]}, headers=doctor
        )
        assert saved.status_code == 200, saved.text
        note = saved.json()
        assert [c["code"] for c in note["codes"]] == ["R05", "I10"]
        assert note["codes"][0]["lineIds"]  # the draft's evidence came with the accepted code
        # A code outside ICD-10 is 422 naming the field, and the note stays as it was.
        bad = client.put(
            url,
            json={"text": "changed", "version": note["version"], "codes": ["R05", "X99.9Z"]},
            headers=doctor,
        )
        assert bad.status_code == 422 and "codes" in bad.json()["fields"], bad.text
        kept = client.get(f"/api/consultations/{cid}", headers=doctor).json()["note"]
        assert kept["version"] == note["version"] and kept["text"] == note["text"]
        assert (
            client.post(f"{url}/sign", json={"timeZone": "Africa/Accra"}, headers=doctor).status_code == 200
        )

        bundle_json = client.get(f"/api/consultations/{cid}/export/fhir", headers=doctor).json()
        bundle = Bundle.model_validate(bundle_json)
        composition = bundle.entry[0].resource
        assert composition.type.coding[0].code == "11506-3"  # SOAP is a progress note
        conditions = [e.resource for e in bundle.entry if e.resource.__resource_type__ == "Condition"]
        assert sorted(c.code.coding[0].code for c in conditions) == ["I10", "R05"]
        assert all(c.code.coding[0].system == "http://hl7.org/fhir/sid/icd-10" for c in conditions)
        diagnoses = next(s for s in composition.section if s.title == "Diagnoses (ICD-10)")
        assert len(diagnoses.entry) == 2
        full_urls = {e.fullUrl for e in bundle.entry}
        assert {ref.reference for ref in diagnoses.entry} <= full_urls

        pdf = client.get(f"/api/consultations/{cid}/export/pdf", headers=doctor)
        text = " ".join(
            " ".join(p.extract_text() or "" for p in PdfReader(io.BytesIO(pdf.content)).pages).split()
        )
        assert "Diagnoses (ICD-10)" in text and "R05 Cough" in text and "Note (SOAP note)" in text
        # Signed codes cannot change.
        assert client.put(url, json={"codes": []}, headers=doctor).status_code == 409


class TestNoteAtVisitEnd:
    def test_the_note_writes_itself_when_the_visit_ends_once(
        self, client: Any, gemini: GeminiDouble, worker: Any
    ) -> None:
        doctor = auth(signup(client, doctor_payload(specialty="Nurse"))["token"])
        cid = start(client, doctor, console="nurse").json()["id"]
        add_lines(doctor, cid, VISIT, end=False)
        schema, account = schema_and_account(doctor)
        TenantTransactions(schema).run(consultations.end_live, account, uuid.UUID(cid), 0, schema)
        deadline = time.monotonic() + 20
        drafts: list[Any] = []
        while time.monotonic() < deadline and not drafts:
            drafts = client.get(f"/api/consultations/{cid}", headers=doctor).json()["drafts"]
            time.sleep(0.2)
        assert drafts, "no note was written at the visit's end"
        (draft,) = drafts
        assert draft["kind"] == "note" and draft["templateId"] == "nursing-handover"
        assert draft["evidence"]
        # Ending again (a rejoin that drops) writes no second note.
        TenantTransactions(schema).run(consultations.end_live, account, uuid.UUID(cid), 1, schema)
        time.sleep(1.5)
        assert len(client.get(f"/api/consultations/{cid}", headers=doctor).json()["drafts"]) == 1

    def test_nothing_is_asked_for_a_visit_where_nothing_was_said(self, client: Any) -> None:
        doctor = gp(client)
        cid = start(client, doctor, console="generic").json()["id"]
        schema, account = schema_and_account(doctor)
        with tenant_session(schema) as s:
            assert not consultations.wants_note_at_end(s, account, uuid.UUID(cid))


class TestDraftChanges:
    def test_the_hospital_sees_how_much_drafts_change_per_template(
        self, client: Any, gemini: GeminiDouble, worker: Any
    ) -> None:
        from tests.cara.consultations.conftest import subscribe
        from tests.factories import add_staff

        hospital = signup(client, hospital_payload())["token"]
        subscribe(hospital)
        staff = auth(add_staff(client, doctor_payload(specialty="General Practitioner"), hospital)["token"])
        for rewrite in (False, True):
            cid = visit(client, staff)
            draft = client.post(
                "/api/summarize", json={"consultationId": cid, "kind": "note"}, headers=staff
            ).json()["draft"]
            body: dict[str, Any] = {"fromDraftId": draft["id"], "version": 0}
            if rewrite:
                body = {
                    "text": "Cough, three weeks. Sputum sent. Amlodipine started.",
                    "fromDraftId": draft["id"],
                    "version": 0,
                }
            assert client.put(f"/api/consultations/{cid}/note", json=body, headers=staff).status_code == 200
            assert client.post(f"/api/consultations/{cid}/note/sign", headers=staff).status_code == 200
        r = client.get("/api/consultations/draft-changes", headers=auth(hospital))
        assert r.status_code == 200, r.text
        (row,) = r.json()
        assert row["template"] == "soap" and row["templateTitle"] == "SOAP note" and row["signed"] == 2
        # One signed as drafted (0), one rewritten (close to 1): the mean lies between.
        assert 0.3 < row["meanChanged"] < 0.7, row
        assert client.get("/api/consultations/draft-changes", headers=staff).status_code == 403
        other = auth(signup(client, hospital_payload())["token"])
        assert client.get("/api/consultations/draft-changes", headers=other).json() == []

    def test_changed_share_counts_words(self) -> None:
        from cara.consultations.service.notes import changed_share

        assert changed_share("a b c d", "a b c d") == 0.0
        assert changed_share("a b c d", "w x y z") == 1.0
        assert 0.0 < changed_share("cough for three weeks", "cough for two weeks") < 0.5
