"""Removing a doctor closes their account but keeps their consultations: every signed note stays
in the hospital's view, under the name it was signed with, with byte-identical exports; unsigned
drafts are left to the hospital's retention rule, and nothing else of the doctor survives."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import func, select

from cara.kit.db import session_scope, tenant_session
from cara.models import Account, Consultation, DoctorProfile, TenantAuditEvent
from tests.cara.consultations.conftest import schema_and_account
from tests.cara.consultations.test_hospital_view import hospital_with_doctor, note


def _signed(client: Any, hospital: dict[str, str], **params: str) -> list[dict[str, Any]]:
    r = client.get("/api/consultations/signed", params=params, headers=hospital)
    assert r.status_code == 200, r.text
    items: list[dict[str, Any]] = r.json()["items"]
    return items


def test_a_removed_doctors_signed_notes_stay_with_the_hospital(client: Any) -> None:
    hospital, staff, staff_id = hospital_with_doctor(client, "Dr Ama Owusu")
    _, stays, stays_id = hospital_with_doctor(client, "Dr Yaw Boateng")
    schema = schema_and_account(staff)[0]
    signed = note(client, staff, "Signed: malaria, artemether-lumefantrine.", sign=True)
    draft = note(client, staff, "Unsigned draft", sign=False)
    pdf = client.get(f"/api/consultations/signed/{signed}/export/pdf", headers=hospital).content
    fhir = client.get(f"/api/consultations/signed/{signed}/export/fhir", headers=hospital).content
    me = client.get("/api/auth/user", headers=staff).json()

    r = client.request("DELETE", f"/api/doctors/{staff_id}", headers=hospital)
    assert r.status_code == 200, r.text

    # The account is closed: no sign-in, no profile, no seat, not in the doctor list.
    signin = client.post(
        "/api/auth/login", json={"email": me["email"], "password": "secret1", "role": "doctor"}
    )
    assert signin.status_code == 401, signin.text
    with session_scope() as s:
        assert s.get(Account, uuid.UUID(staff_id)) is None
    with tenant_session(schema) as s:
        assert (
            s.scalar(
                select(func.count())
                .select_from(DoctorProfile)
                .where(DoctorProfile.account_id == uuid.UUID(staff_id))
            )
            == 0
        )
        kept = set(
            s.scalars(select(Consultation.id).where(Consultation.doctor_account_id == uuid.UUID(staff_id)))
        )
    # The consultations stay: the signed one for the law, the draft until retention takes it.
    assert kept == {uuid.UUID(signed), uuid.UUID(draft)}

    # The hospital still lists, reads and exports the signed note, under the signer's name.
    items = _signed(client, hospital)
    assert [i["id"] for i in items] == [signed]
    assert items[0]["doctorName"] == "Dr Ama Owusu" and items[0]["doctorRemoved"] is True
    assert items[0]["doctorId"] == staff_id
    assert [i["id"] for i in _signed(client, hospital, doctorId=staff_id)] == [signed]
    r = client.get(f"/api/consultations/signed/{signed}", headers=hospital)
    assert r.status_code == 200, r.text
    assert r.json()["note"]["text"] == "Signed: malaria, artemether-lumefantrine."
    assert r.json()["doctorName"] == "Dr Ama Owusu"
    assert client.get(f"/api/consultations/signed/{signed}/export/pdf", headers=hospital).content == pdf
    assert client.get(f"/api/consultations/signed/{signed}/export/fhir", headers=hospital).content == fhir
    # A draft is still never the hospital's to read.
    assert client.get(f"/api/consultations/signed/{draft}", headers=hospital).status_code == 404
    with tenant_session(schema) as s:
        views = s.scalars(
            select(TenantAuditEvent.detail).where(
                TenantAuditEvent.action == "consultation.hospital_view", TenantAuditEvent.target_id == signed
            )
        ).all()
    assert views == [{"doctor": staff_id}]

    # Another hospital's doctor is untouched, and still not in this hospital's view.
    assert client.get("/api/auth/user", headers=stays).status_code == 200
    assert _signed(client, hospital, doctorId=stays_id) == []


def test_a_signed_note_from_before_signatures_kept_what_they_show_keeps_its_signer(client: Any) -> None:
    """A note signed before `shown` was kept fell back to the live account's name; once that account
    is gone it shows the name written into the signature entry."""
    from sqlalchemy import update

    from cara.models import ConsultationNote, ConsultationNoteEntry

    hospital, staff, staff_id = hospital_with_doctor(client, "Dr Kofi Ansah")
    schema = schema_and_account(staff)[0]
    signed = note(client, staff, "Signed long ago.", sign=True)
    with tenant_session(schema) as s:
        note_id = s.scalar(
            select(ConsultationNote.id).where(ConsultationNote.consultation_id == uuid.UUID(signed))
        )
        s.execute(
            update(ConsultationNoteEntry).where(ConsultationNoteEntry.note_id == note_id).values(shown=None)
        )
        s.commit()
    assert client.request("DELETE", f"/api/doctors/{staff_id}", headers=hospital).status_code == 200
    items = _signed(client, hospital)
    assert [(i["id"], i["doctorName"]) for i in items] == [(signed, "Dr Kofi Ansah")]
    r = client.get(f"/api/consultations/signed/{signed}/export/pdf", headers=hospital)
    assert r.status_code == 200
