"""Drafts from the record: POST /api/summarize with a consultation id, on a real worker that asks
the Gemini double and stores the draft (model, prompt version, evidence) on the consultation."""

from __future__ import annotations

import json
import uuid
from typing import Any

from sqlalchemy import func, select

from cara.config import get_settings
from cara.consultations.radiology import render_radiology
from cara.kit.db import tenant_session
from cara.models import ConsultationDraft
from cara_doubles.gemini import GeminiDouble, GenerateRequest
from tests.cara.consultations.conftest import add_lines, schema_and_account, start
from tests.factories import auth, doctor_payload, signup

LINES = [
    ("user", "Hey Cara, screening mammogram for a 52-year-old woman, family history of breast cancer."),
    ("user", "Digital mammography, two views each side."),
    ("user", "There is a 9 mm spiculated mass in the left upper outer quadrant."),
    ("assistant", "That is suspicious; BI-RADS 4C would fit, and a biopsy is the usual next step."),
]


def line_ids(client: Any, headers: dict[str, str], cid: str) -> list[int]:
    return [line["id"] for line in client.get(f"/api/consultations/{cid}", headers=headers).json()["lines"]]


def draft_count(headers: dict[str, str], cid: str) -> int:
    schema, _ = schema_and_account(headers)
    with tenant_session(schema) as s:
        return int(
            s.scalar(
                select(func.count())
                .select_from(ConsultationDraft)
                .where(ConsultationDraft.consultation_id == uuid.UUID(cid))
            )
            or 0
        )


class TestDraftFromRecord:
    def test_summary_with_evidence_is_stored(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        cid = start(
            client, doctor, console="generic", patientReference={"name": "Ama Owusu", "recordNumber": "KB-77"}
        ).json()["id"]
        add_lines(doctor, cid, LINES)
        ids = line_ids(client, doctor, cid)

        def answer(request: GenerateRequest) -> str:
            return json.dumps(
                {
                    "sections": [
                        {
                            "heading": "Findings",
                            "sentences": [
                                {"text": "A 9 mm spiculated mass in the left breast.", "lineIds": [ids[2]]},
                                {"text": "Biopsy suggested.", "lineIds": [ids[3], 999999999]},
                                {"text": "No comparison available.", "lineIds": []},
                            ],
                        }
                    ]
                }
            )

        gemini.generate = answer
        r = client.post("/api/summarize", json={"consultationId": cid}, headers=doctor)
        assert r.status_code == 200, r.text
        body = r.json()
        assert (
            body["summary"] == "Findings\nA 9 mm spiculated mass in the left breast. Biopsy suggested. "
            "No comparison available."
        )
        draft = body["draft"]
        assert draft["kind"] == "summary" and draft["model"] == get_settings().gemini_text_model
        assert draft["promptVersion"] == "record-summary-v1" and draft["label"] == "Draft — AI-assisted"
        assert draft["focus"] is None and draft["sections"] is None and body["label"] == "Draft — AI-assisted"
        # Only this consultation's lines count as evidence; a sentence resting on none is kept
        # with no lines, so that it can be marked before signing.
        assert draft["evidence"] == [
            {"sentence": "A 9 mm spiculated mass in the left breast.", "lineIds": [ids[2]]},
            {"sentence": "Biopsy suggested.", "lineIds": [ids[3]]},
            {"sentence": "No comparison available.", "lineIds": []},
        ]
        (request,) = gemini.generate_requests
        sent = json.dumps(request.body)
        # The worker read the stored lines with their ids; the patient reference never leaves.
        assert f"[{ids[2]}] Clinician: There is a 9 mm spiculated mass" in sent
        assert "Owusu" not in sent and "KB-77" not in sent
        assert request.body["generationConfig"]["responseMimeType"] == "application/json"
        record = client.get(f"/api/consultations/{cid}", headers=doctor).json()
        assert [d["id"] for d in record["drafts"]] == [draft["id"]]
        assert record["state"] == "draft"

    def test_radiology_report_keeps_its_sections(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        cid = start(client, doctor, console="radiologist").json()["id"]
        add_lines(doctor, cid, LINES)
        ids = line_ids(client, doctor, cid)
        gemini.generate = lambda request: (
            "```json\n"
            + json.dumps(
                {
                    "indication": [
                        {"text": "Screening; family history of breast cancer.", "lineIds": [ids[0]]}
                    ],
                    "technique": [{"text": "Digital mammography, CC and MLO views.", "lineIds": [ids[1]]}],
                    "findings": [
                        {"text": "9 mm spiculated mass, left upper outer quadrant.", "lineIds": [ids[2]]}
                    ],
                    "impression": [
                        {"text": "Suspicious left breast mass.", "lineIds": [ids[2]]},
                        {"text": "No other abnormality described.", "lineIds": []},
                    ],
                    "radsCategory": {"system": "BI-RADS", "category": "4C", "lineIds": [ids[3]]},
                    "recommendation": [{"text": "Ultrasound-guided core biopsy.", "lineIds": [ids[3]]}],
                }
            )
            + "\n```"
        )
        r = client.post(
            "/api/summarize",
            json={"consultationId": cid, "kind": "report", "focus": "left breast"},
            headers=doctor,
        )
        assert r.status_code == 200, r.text
        draft = r.json()["draft"]
        assert draft["promptVersion"] == "record-radiology-v1" and draft["focus"] == "left breast"
        assert draft["sections"] == {
            "indication": "Screening; family history of breast cancer.",
            "technique": "Digital mammography, CC and MLO views.",
            "findings": "9 mm spiculated mass, left upper outer quadrant.",
            "impression": ["Suspicious left breast mass.", "No other abnormality described."],
            "radsCategory": "BI-RADS 4C",
            "recommendation": "Ultrasound-guided core biopsy.",
        }
        assert draft["text"] == render_radiology(draft["sections"])
        assert (
            "Impression\n1. Suspicious left breast mass.\n2. No other abnormality described." in draft["text"]
        )
        assert {"sentence": "BI-RADS 4C", "lineIds": [ids[3]]} in draft["evidence"]
        (request,) = gemini.generate_requests
        assert "numbered" in json.dumps(request.body) and "focusing on: left breast" in json.dumps(
            request.body
        )

    def test_plain_text_answer_is_kept_without_evidence(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        cid = start(client, doctor, console="generic").json()["id"]
        add_lines(doctor, cid, LINES)
        gemini.generate = lambda request: "Summary: suspicious left breast mass."
        r = client.post("/api/summarize", json={"consultationId": cid}, headers=doctor)
        assert r.status_code == 200, r.text
        assert r.json()["draft"]["text"] == "Summary: suspicious left breast mass."
        assert r.json()["draft"]["evidence"] == []

    def test_a_failing_job_leaves_the_consultation_unchanged(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        cid = start(client, doctor, console="generic").json()["id"]
        add_lines(doctor, cid, LINES, end=False)
        gemini.fail_next_generate(500, "INTERNAL", "model overloaded")
        r = client.post("/api/summarize", json={"consultationId": cid}, headers=doctor)
        assert r.status_code == 502, r.text
        gemini.generate = lambda request: json.dumps({"sections": []})  # nothing usable
        r = client.post("/api/summarize", json={"consultationId": cid}, headers=doctor)
        assert r.status_code == 502, r.text
        assert draft_count(doctor, cid) == 0
        assert client.get(f"/api/consultations/{cid}", headers=doctor).json()["state"] == "in_progress"

    def test_refusals(self, client: Any, doctor: dict[str, str], gemini: GeminiDouble) -> None:
        cid = start(client, doctor).json()["id"]
        # No lines yet: nothing to draft from.
        r = client.post("/api/summarize", json={"consultationId": cid}, headers=doctor)
        assert r.status_code == 422 and r.json()["message"] == "No conversation recorded yet."
        add_lines(doctor, cid, LINES)
        other = auth(signup(client, doctor_payload())["token"])
        for headers, bad in ((other, cid), (doctor, "nope"), (doctor, str(uuid.uuid4()))):
            r = client.post("/api/summarize", json={"consultationId": bad}, headers=headers)
            assert r.status_code == 404, r.text
        assert gemini.generate_requests == []

    def test_the_live_consoles_payload_keeps_the_draft_on_its_consultation(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        """A live console sends its lines and its consultation's id: the draft is kept on the
        consultation (before, drafts made during a visit were lost); asked before any line is
        stored, it is drafted from the lines sent, and kept nowhere."""
        gemini.generate = lambda request: "plain summary"
        cid = start(client, doctor).json()["id"]
        body = {"transcript": [{"speaker": "user", "text": "Cough for three weeks."}], "consultationId": cid}
        early = client.post("/api/summarize", json=body, headers=doctor)
        assert early.status_code == 200 and early.json()["summary"] == "plain summary", early.text
        assert "draft" not in early.json() and draft_count(doctor, cid) == 0
        add_lines(doctor, cid, LINES, end=False)
        r = client.post("/api/summarize", json=body, headers=doctor)
        assert r.status_code == 200 and r.json()["draft"]["kind"] == "summary", r.text
        assert draft_count(doctor, cid) == 1
        shown = client.get(f"/api/consultations/{cid}", headers=doctor).json()
        assert [d["id"] for d in shown["drafts"]] == [r.json()["draft"]["id"]]
        # The stored lines were drafted from, not the ones sent.
        assert "spiculated mass" in gemini.generate_requests[-1].text
        # Another doctor's consultation id is still 404, lines sent or not.
        other = auth(signup(client, doctor_payload())["token"])
        assert client.post("/api/summarize", json=body, headers=other).status_code == 404

    def test_the_spec_payload_still_works(
        self, client: Any, doctor: dict[str, str], gemini: GeminiDouble, worker: Any
    ) -> None:
        gemini.generate = lambda request: "plain summary"
        r = client.post("/api/summarize", json={"transcript": "Clinician: hello"}, headers=doctor)
        assert r.status_code == 200 and r.json()["summary"] == "plain summary" and "draft" not in r.json()
