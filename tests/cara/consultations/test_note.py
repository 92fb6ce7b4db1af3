"""The note: optimistic concurrency, sign (immutable, hashed), addenda, and regeneration that never
touches a signed note."""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import select

from cara.consultations.service import content_hash
from cara.kit.db import tenant_session
from cara.models import ConsultationNote, ConsultationNoteEntry, TenantAuditEvent
from cara_doubles.gemini import GeminiDouble
from tests.cara.consultations.conftest import add_lines, schema_and_account, start
from tests.factories import auth, doctor_payload, signup

SIGNED = "This note is signed and can no longer be changed. Add an addendum instead."


def save(client: Any, headers: dict[str, str], cid: str, if_match: str | None = None, **body: Any) -> Any:
    h = {**headers, **({"If-Match": if_match} if if_match is not None else {})}
    return client.put(f"/api/consultations/{cid}/note", json=body, headers=h)


def sign(client: Any, headers: dict[str, str], cid: str, **body: Any) -> Any:
    return client.post(f"/api/consultations/{cid}/note/sign", json=body or None, headers=headers)


@pytest.fixture
def cid(client: Any, doctor: dict[str, str]) -> str:
    consultation: str = start(client, doctor, console="generic").json()["id"]
    return consultation


class TestEdit:
    def test_versions_and_the_second_tab(self, client: Any, doctor: dict[str, str], cid: str) -> None:
        r = save(client, doctor, cid, text="First words")
        assert r.status_code == 200, r.text
        assert r.json()["version"] == 1 and r.headers["ETag"] == '"1"' and r.json()["signed"] is False
        # Two tabs opened version 1; the first saves, the second gets 409 and nothing is overwritten.
        assert save(client, doctor, cid, if_match='"1"', text="Tab A").json()["version"] == 2
        r = save(client, doctor, cid, if_match='"1"', text="Tab B")
        assert r.status_code == 409 and "another tab" in r.json()["message"]
        r = save(client, doctor, cid, version=1, text="Tab B")
        assert r.status_code == 409
        note = client.get(f"/api/consultations/{cid}", headers=doctor).json()["note"]
        assert note["text"] == "Tab A" and note["version"] == 2
        # Without a version, an existing note is not overwritten either.
        assert save(client, doctor, cid, text="blind").status_code == 409
        assert save(client, doctor, cid, if_match='W/"2"', text="Tab B, reloaded").json()["version"] == 3
        assert client.get("/api/consultations", headers=doctor).json()["items"][0]["state"] == "draft"

    def test_a_first_save_when_another_exists_is_409(
        self, client: Any, doctor: dict[str, str], cid: str
    ) -> None:
        assert save(client, doctor, cid, text="one").status_code == 200
        assert save(client, doctor, cid, version=0, text="two").status_code == 409

    def test_start_from_a_draft_and_radiology_sections(self, client: Any, doctor: dict[str, str]) -> None:
        cid = start(client, doctor, console="radiologist").json()["id"]
        schema, _ = schema_and_account(doctor)
        from cara.models import ConsultationDraft

        with tenant_session(schema) as s:
            draft = ConsultationDraft(
                consultation_id=uuid.UUID(cid),
                kind="report",
                text="Findings\nMass.",
                sections={"findings": "Mass.", "impression": ["Mass."]},
                evidence=[],
                model="m",
                prompt_version="v",
            )
            s.add(draft)
            s.commit()
            draft_id = str(draft.id)
        r = save(client, doctor, cid, fromDraftId=draft_id)
        assert r.status_code == 200, r.text
        assert r.json()["text"] == "Findings\nMass." and r.json()["sourceDraftId"] == draft_id
        sections = {
            "indication": "Screening.",
            "technique": "Mammography.",
            "findings": "9 mm spiculated mass.",
            "impression": ["Suspicious mass.", "  ", "No calcifications."],
            "radsCategory": "BI-RADS 4C",
            "recommendation": "Core biopsy.",
        }
        r = save(client, doctor, cid, version=1, sections=sections)
        assert r.status_code == 200, r.text
        assert r.json()["sections"]["impression"] == ["Suspicious mass.", "No calcifications."]
        assert (
            "Impression\n1. Suspicious mass.\n2. No calcifications.\n\nRADS category\nBI-RADS 4C"
            in r.json()["text"]
        )
        assert save(client, doctor, cid, version=2, fromDraftId=str(uuid.uuid4())).status_code == 404
        assert save(client, doctor, cid, version=2, fromDraftId="x").status_code == 404

    @pytest.mark.parametrize(
        "body",
        [
            {"text": 5},
            {"text": "x" * 100_001},
            {"sections": {"findings": "x", "extra": "y"}},
            {"sections": {"impression": "not a list"}},
            {"version": -1, "text": "x"},
        ],
    )
    def test_bad_input(self, client: Any, doctor: dict[str, str], cid: str, body: dict[str, Any]) -> None:
        r = save(client, doctor, cid, **body)
        assert r.status_code in (413, 422), r.text

    def test_bad_if_match(self, client: Any, doctor: dict[str, str], cid: str) -> None:
        assert save(client, doctor, cid, if_match="abc", text="x").status_code == 400


class TestSign:
    def test_sign_makes_the_version_immutable(self, client: Any, doctor: dict[str, str], cid: str) -> None:
        save(client, doctor, cid, text="Chest pain, ECG normal. Follow-up in a week.")
        r = sign(client, doctor, cid, version=1)
        assert r.status_code == 200, r.text
        note = r.json()
        assert note["signed"] is True
        (entry,) = note["entries"]
        assert entry["kind"] == "signature" and entry["number"] == 1
        assert entry["text"] == "Chest pain, ECG normal. Follow-up in a week."
        assert entry["authorName"].startswith("Dr Ama Mensah")
        # The hash is SHA-256 over what was signed, by whom and when, and what the document
        # shows (kept with the signature): recomputable.
        schema, account = schema_and_account(doctor)
        with tenant_session(schema) as s:
            shown = s.scalars(
                select(ConsultationNoteEntry.shown)
                .join(ConsultationNote, ConsultationNote.id == ConsultationNoteEntry.note_id)
                .where(ConsultationNote.consultation_id == cid, ConsultationNoteEntry.number == 1)
            ).one()
        assert shown is not None and shown["signerName"] == entry["authorName"]
        assert shown["licenseNumber"].startswith("GMC-") and shown["clinicName"] == "Independent practice"
        expected = content_hash(
            uuid.UUID(cid),
            1,
            "signature",
            entry["text"],
            None,
            account,
            entry["authorName"],
            datetime.fromisoformat(entry["createdAt"]),
            shown,
        )
        assert entry["contentSha256"] == expected and len(expected) == 64
        record = client.get(f"/api/consultations/{cid}", headers=doctor).json()
        assert record["state"] == "signed"
        # Edits of a signed note are refused with a clear message; the note stays as signed.
        for attempt in (save(client, doctor, cid, version=1, text="changed"), sign(client, doctor, cid)):
            assert attempt.status_code == 409 and attempt.json()["message"] == SIGNED
        assert (
            client.get(f"/api/consultations/{cid}", headers=doctor)
            .json()["note"]["text"]
            .startswith("Chest pain")
        )
        with tenant_session(schema) as s:
            actions = s.scalars(
                select(TenantAuditEvent.action)
                .where(TenantAuditEvent.target_id == cid)
                .order_by(TenantAuditEvent.id)
            ).all()
        assert actions == ["consultation.consent", "consultation.note.save", "consultation.note.sign"]

    def test_empty_note_is_422(self, client: Any, doctor: dict[str, str], cid: str) -> None:
        r = sign(client, doctor, cid)
        assert r.status_code == 422 and r.json()["message"] == "An empty note cannot be signed."
        save(client, doctor, cid, text="   \n ")
        assert sign(client, doctor, cid).status_code == 422

    def test_signing_a_stale_version_is_409(self, client: Any, doctor: dict[str, str], cid: str) -> None:
        save(client, doctor, cid, text="v1")
        save(client, doctor, cid, version=1, text="v2")
        r = client.post(f"/api/consultations/{cid}/note/sign", headers={**doctor, "If-Match": '"1"'})
        assert r.status_code == 409
        assert client.get(f"/api/consultations/{cid}", headers=doctor).json()["state"] == "draft"

    def test_addenda_never_overwrite(self, client: Any, doctor: dict[str, str], cid: str) -> None:
        save(client, doctor, cid, text="Original")
        r = client.post(f"/api/consultations/{cid}/note/addenda", json={"text": "too early"}, headers=doctor)
        assert r.status_code == 409
        sign(client, doctor, cid)
        for text in ("Troponin came back normal.", "Patient called: pain resolved."):
            r = client.post(
                f"/api/consultations/{cid}/note/addenda", json={"text": f" {text} "}, headers=doctor
            )
            assert r.status_code == 201, r.text
        entries = r.json()["entries"]
        assert [(e["number"], e["kind"], e["text"]) for e in entries] == [
            (1, "signature", "Original"),
            (2, "addendum", "Troponin came back normal."),
            (3, "addendum", "Patient called: pain resolved."),
        ]
        assert r.json()["text"] == "Original"
        assert len({e["contentSha256"] for e in entries}) == 3
        r = client.post(f"/api/consultations/{cid}/note/addenda", json={"text": "  "}, headers=doctor)
        assert r.status_code == 422

    def test_regenerate_never_touches_a_signed_note(
        self, client: Any, doctor: dict[str, str], cid: str, gemini: GeminiDouble, worker: Any
    ) -> None:
        add_lines(doctor, cid, [("user", "Hey Cara, BP 150/95 on three visits.")])
        save(client, doctor, cid, text="Hypertension, stage 2.")
        signed = sign(client, doctor, cid).json()
        gemini.generate = lambda request: json.dumps(
            {"sections": [{"heading": "", "sentences": [{"text": "New."}]}]}
        )
        r = client.post("/api/summarize", json={"consultationId": cid}, headers=doctor)
        assert r.status_code == 200, r.text
        record = client.get(f"/api/consultations/{cid}", headers=doctor).json()
        assert record["state"] == "signed" and len(record["drafts"]) == 1
        assert record["note"] == signed

    def test_others_cannot_touch_the_note(self, client: Any, doctor: dict[str, str], cid: str) -> None:
        save(client, doctor, cid, text="Mine")
        other = auth(signup(client, doctor_payload())["token"])
        assert save(client, other, cid, version=1, text="theirs").status_code == 404
        assert sign(client, other, cid).status_code == 404
        assert (
            client.post(
                f"/api/consultations/{cid}/note/addenda", json={"text": "x"}, headers=other
            ).status_code
            == 404
        )
        with tenant_session(schema_and_account(doctor)[0]) as s:
            assert s.scalars(select(ConsultationNoteEntry)).all() == []


def test_hash_is_plain_sha256() -> None:
    at = datetime.fromisoformat("2026-01-02T03:04:05+00:00")
    account = uuid.UUID(int=1)
    cid = uuid.UUID(int=2)
    canonical = json.dumps(
        {
            "consultation": str(cid),
            "number": 1,
            "kind": "signature",
            "text": "é",
            "sections": None,
            "author": str(account),
            "authorName": "Dr A",
            "at": at.isoformat(),
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    assert (
        content_hash(cid, 1, "signature", "é", None, account, "Dr A", at)
        == hashlib.sha256(canonical.encode()).hexdigest()
    )
