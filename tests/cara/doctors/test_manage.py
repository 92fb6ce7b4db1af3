"""A hospital adds, lists, edits, (de)activates and removes its own doctors (spec §2, §4, §7, §8)."""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

import pytest
from sqlalchemy import select, text

from cara.kit.db import get_engine, session_scope
from cara.models import (
    Account,
    CertificateFile,
    Consultation,
    ConsultationDraft,
    ConsultationNote,
    ConsultationNoteEntry,
    DoctorProfile,
    RecordingPart,
    RecordingUpload,
    TenantAuditEvent,
    TranscriptLine,
)
from cara.models.base import utcnow
from tests.cara.doctors.conftest import HospitalAccount, doctor_form, new_hospital
from tests.factories import auth, doctor_payload, signup

IN_USE_SUBJECT = "A hospital tried to add you on Cara"


def add(client: Any, hospital: HospitalAccount, **overrides: Any) -> Any:
    body = doctor_form(**{"hospitalId": hospital.hospital_id, **overrides})
    return client.post("/api/doctors/new-doctor", json=body, headers=hospital.headers)


def listed(client: Any, hospital: HospitalAccount) -> list[dict[str, Any]]:
    r = client.get(
        "/api/doctors",
        params={"hospitalId": hospital.hospital_id, "isHospitalCreated": "true"},
        headers=hospital.headers,
    )
    assert r.status_code == 200, r.text
    doctors: list[dict[str, Any]] = r.json()
    return doctors


def tenant_audit(schema_of: HospitalAccount) -> list[tuple[str, str | None, str | None]]:
    with session_scope() as s:
        schema = s.execute(
            text(
                "SELECT t.schema_name FROM platform.tenants t JOIN platform.hospitals h ON h.tenant_id = t.id"
                " WHERE h.id = :h"
            ),
            {"h": schema_of.hospital_id},
        ).scalar_one()
    with session_scope(schema) as s:
        rows = s.execute(
            select(
                TenantAuditEvent.action, TenantAuditEvent.target_id, TenantAuditEvent.actor_account_id
            ).order_by(TenantAuditEvent.id)
        ).all()
    return [(a, t, str(actor) if actor else None) for a, t, actor in rows]


def login(client: Any, email: str, password: str) -> Any:
    return client.post("/api/auth/login", json={"email": email, "password": password, "role": "doctor"})


class TestAdd:
    def test_adds_a_doctor_who_can_sign_in(self, client: Any, hospital: HospitalAccount) -> None:
        r = add(client, hospital, n=1)
        assert r.status_code == 201, r.text
        doctor = r.json()
        assert doctor["name"] == "Dr Kofi Boateng 1"
        assert doctor["hospitalId"] == hospital.hospital_id
        assert doctor["isHospitalCreated"] is True and doctor["isActive"] is True
        assert doctor["specialty"] == "Cardiologist" and doctor["experience"] == 7
        # Default availability: Monday to Friday 09:00-17:00, weekend off.
        days = {d["day"]: d for d in doctor["availability"]}
        assert days["Monday"] == {
            "day": "Monday",
            "startTime": "09:00",
            "endTime": "17:00",
            "isAvailable": True,
        }
        assert days["Sunday"]["isAvailable"] is False

        signed_in = login(client, "kofi.boateng.1@example.com", "kofi-secret")
        assert signed_in.status_code == 200, signed_in.text
        user = signed_in.json()["user"]
        assert user["hospitalId"] == hospital.hospital_id and user["isHospitalCreated"] is True
        assert ("doctor.created", doctor["_id"], hospital.account_id) in tenant_audit(hospital)

    def test_specialty_defaults_to_radiologist_and_phone_alias_is_read(
        self, client: Any, hospital: HospitalAccount
    ) -> None:
        body = doctor_form(n=2, hospitalId=hospital.hospital_id)
        del body["specialty"], body["phoneNumber"]
        body["phone"] = "+233 24 412 3456"
        r = client.post("/api/doctors/new-doctor", json=body, headers=hospital.headers)
        assert r.status_code == 201, r.text
        assert r.json()["specialty"] == "Radiologist"
        assert r.json()["phoneNumber"] == "+233 24 412 3456"

    def test_every_missing_field_has_its_message(self, client: Any, hospital: HospitalAccount) -> None:
        r = client.post(
            "/api/doctors/new-doctor",
            json={"hospitalId": hospital.hospital_id, "experience": -1},
            headers=hospital.headers,
        )
        assert r.status_code == 422
        assert r.json()["fields"] == {
            "name": "Name is required",
            "email": "Email is required",
            "phoneNumber": "Phone number is required",
            "licenseNumber": "License number is required",
            "experience": "Experience cannot be negative",
            "country": "Country is required",
            "state": "State/Province is required",
            "password": "Password is required",
        }
        assert listed(client, hospital) == []

    @pytest.mark.parametrize(
        ("overrides", "field", "message"),
        [
            ({"email": "not-an-email"}, "email", "Invalid email format"),
            ({"password": "12345"}, "password", "Password must be at least 6 characters"),
            ({"phoneNumber": "call me"}, "phoneNumber", "Invalid phone number format"),
            ({"specialty": "Surgeon"}, "specialty", "Invalid specialty"),
            ({"experience": 81}, "experience", "Experience must be 80 years or less"),
            ({"state": "  "}, "state", "State/Province is required"),
        ],
    )
    def test_bad_values_are_refused(
        self, client: Any, hospital: HospitalAccount, overrides: dict[str, Any], field: str, message: str
    ) -> None:
        r = add(client, hospital, n=3, **overrides)
        assert r.status_code == 422
        assert r.json()["fields"][field] == message

    def test_a_taken_email_is_not_revealed(
        self, client: Any, hospital: HospitalAccount, worker: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        """An address with an account elsewhere is answered as a fresh one (same status and
        shape), no account is made or changed, and the address's owner is told by mail."""
        caplog.set_level(logging.INFO, logger="cara.mail")
        independent = doctor_payload()
        signup(client, independent)
        fresh = add(client, hospital, n=40)
        assert fresh.status_code == 201, fresh.text
        r = add(client, hospital, n=4, email=independent["email"].upper())
        assert r.status_code == 201, r.text
        assert set(r.json()) == set(fresh.json())
        assert r.json()["email"] == independent["email"]
        assert r.json()["hospitalId"] == hospital.hospital_id
        assert [d["email"] for d in listed(client, hospital)] == [fresh.json()["email"]]
        with session_scope() as s:
            owner = s.scalar(select(Account).where(Account.email == independent["email"]))
            assert owner is not None and owner.hospital_id is None
        assert [a for a, _, _ in tenant_audit(hospital)].count("doctor.created") == 1
        # One of the hospital's own doctors is no secret to it: that stays a 409.
        own = add(client, hospital, n=41, email=fresh.json()["email"])
        assert own.status_code == 409
        assert own.json()["fields"]["email"] == "An account with this email already exists."
        worker.join("mail", timeout=10_000)
        deadline = time.time() + 5
        while not [r for r in caplog.records if getattr(r, "mail_subject", "") == IN_USE_SUBJECT]:
            assert time.time() < deadline, "the address's owner was not told"
            time.sleep(0.05)

    def test_without_a_subscription_the_refusal_names_it(self, client: Any) -> None:
        unpaid = new_hospital(client, plan=None)
        r = add(client, unpaid, n=5)
        assert r.status_code == 403
        assert "subscription" in r.json()["message"].lower()
        assert listed(client, unpaid) == []

    def test_the_plan_limit_is_enforced(self, client: Any, hospital: HospitalAccount) -> None:
        for n in range(5):  # Bronze: 5 doctors
            assert add(client, hospital, n=10 + n).status_code == 201
        limit = client.get(
            f"/api/subscription/check-doctor-limit/{hospital.hospital_id}", headers=hospital.headers
        )
        assert limit.json()["canAdd"] is False
        r = add(client, hospital, n=20)
        assert r.status_code == 403
        assert r.json()["message"] == (
            "Doctor limit reached for your current subscription plan (5 doctors). "
            "Upgrade your subscription to add more doctors."
        )
        assert len(listed(client, hospital)) == 5

    def test_hospital_created_signup_follows_the_same_limit(
        self, client: Any, hospital: HospitalAccount
    ) -> None:
        for n in range(5):
            assert add(client, hospital, n=30 + n).status_code == 201
        r = client.post(
            "/api/auth/signup", json=doctor_payload(isHospitalCreated=True), headers=hospital.headers
        )
        assert r.status_code == 403
        assert "subscription" in r.json()["message"]

    def test_another_hospitals_id_is_not_found(self, client: Any, hospital: HospitalAccount) -> None:
        other = new_hospital(client)
        r = add(client, hospital, n=6, hospitalId=other.hospital_id)
        assert r.status_code == 404
        assert r.json()["message"] == "Hospital not found."
        assert listed(client, other) == [] and listed(client, hospital) == []

    @pytest.mark.parametrize("role", ["doctor", "admin", "anonymous"])
    def test_only_hospitals_manage_doctors(self, client: Any, role: str, admin_token: str) -> None:
        headers = {
            "doctor": auth(signup(client, doctor_payload())["token"]),
            "admin": auth(admin_token),
            "anonymous": {},
        }[role]
        r = client.post("/api/doctors/new-doctor", json=doctor_form(n=7), headers=headers)
        assert r.status_code == (401 if role == "anonymous" else 403)
        r = client.get("/api/doctors", headers=headers)
        assert r.status_code == (401 if role == "anonymous" else 403)
        if role == "anonymous":
            assert r.json()["message"] == "No authentication token found"


class TestList:
    def test_lists_own_doctors_by_name(self, client: Any, hospital: HospitalAccount) -> None:
        for n, name in enumerate(["Dr Yaa Asantewaa", "Dr Abena Owusu", "Dr Kwesi Appiah"]):
            assert add(client, hospital, n=40 + n, name=name).status_code == 201
        other = new_hospital(client)
        assert add(client, other, n=50).status_code == 201
        names = [d["name"] for d in listed(client, hospital)]
        assert names == ["Dr Abena Owusu", "Dr Kwesi Appiah", "Dr Yaa Asantewaa"]

    def test_without_hospital_id_the_callers_own(self, client: Any, hospital: HospitalAccount) -> None:
        add(client, hospital, n=41)
        r = client.get("/api/doctors", headers=hospital.headers)
        assert [d["email"] for d in r.json()] == ["kofi.boateng.41@example.com"]

    @pytest.mark.parametrize("bad", ["not-a-uuid", str(uuid.uuid4()), "\u0000"])
    def test_a_foreign_or_bad_hospital_id_is_not_found(
        self, client: Any, hospital: HospitalAccount, bad: str
    ) -> None:
        r = client.get("/api/doctors", params={"hospitalId": bad}, headers=hospital.headers)
        assert r.status_code == 404
        assert r.json()["message"] == "Hospital not found."

    def test_a_refused_token(self, client: Any) -> None:
        r = client.get("/api/doctors", headers=auth("not-a-token"))
        assert r.status_code == 401
        assert r.json()["message"] == "Authentication failed. Please log in again."


class TestUpdate:
    def test_edits_fields_and_keeps_the_directory_in_step(
        self, client: Any, hospital: HospitalAccount
    ) -> None:
        doctor = add(client, hospital, n=60).json()
        r = client.put(
            f"/api/doctors/{doctor['_id']}",
            json={
                "hospitalId": hospital.hospital_id,
                "experience": 12,
                "specialty": "Nurse",
                "state": "Volta",
            },
            headers=hospital.headers,
        )
        assert r.status_code == 200, r.text
        assert (r.json()["experience"], r.json()["specialty"], r.json()["state"]) == (12, "Nurse", "Volta")
        with session_scope() as s:
            account = s.get(Account, uuid.UUID(doctor["_id"]))
            assert account is not None and account.specialty == "Nurse"
        events = [e for e in tenant_audit(hospital) if e[0] == "doctor.updated"]
        assert events == [("doctor.updated", doctor["_id"], hospital.account_id)]

    def test_validation_and_unique_email(self, client: Any, hospital: HospitalAccount) -> None:
        first = add(client, hospital, n=61).json()
        add(client, hospital, n=62)
        url = f"/api/doctors/{first['_id']}"
        r = client.put(url, json={"name": " ", "experience": -2}, headers=hospital.headers)
        assert r.status_code == 422
        assert r.json()["fields"] == {
            "name": "Name is required",
            "experience": "Experience cannot be negative",
        }
        # A taken address is answered as any other: the change waits for the address to confirm
        # (tests/cara/auth/test_account_changes.py), so the hospital learns nothing of it.
        r = client.put(url, json={"email": "kofi.boateng.62@example.com"}, headers=hospital.headers)
        assert r.status_code == 200 and r.json()["email"] == first["email"]
        r = client.put(url, json={"hospitalId": hospital.hospital_id}, headers=hospital.headers)
        assert r.status_code == 400
        assert listed(client, hospital)[0]["name"] == first["name"]

    def test_deactivated_doctor_is_refused_everywhere(self, client: Any, hospital: HospitalAccount) -> None:
        doctor = add(client, hospital, n=63).json()
        token = login(client, doctor["email"], "kofi-secret").json()["token"]
        assert client.get("/api/auth/user", headers=auth(token)).status_code == 200

        r = client.put(f"/api/doctors/{doctor['_id']}", json={"isActive": False}, headers=hospital.headers)
        assert r.status_code == 200 and r.json()["isActive"] is False
        refused = login(client, doctor["email"], "kofi-secret")
        assert refused.status_code == 403
        assert "deactivated" in refused.json()["message"]
        assert client.get("/api/auth/user", headers=auth(token)).status_code == 403
        assert client.get("/api/subscription/current", headers=auth(token)).status_code == 403

        client.put(f"/api/doctors/{doctor['_id']}", json={"isActive": True}, headers=hospital.headers)
        assert login(client, doctor["email"], "kofi-secret").status_code == 200
        actions = [a for a, target, _ in tenant_audit(hospital) if target == doctor["_id"]]
        assert actions == ["doctor.created", "doctor.deactivated", "doctor.activated"]


def hospital_schema(of: HospitalAccount) -> str:
    with session_scope() as s:
        schema: str = s.execute(
            text(
                "SELECT t.schema_name FROM platform.tenants t JOIN platform.hospitals h ON h.tenant_id = t.id"
                " WHERE h.id = :h"
            ),
            {"h": of.hospital_id},
        ).scalar_one()
    return schema


def add_clinical_rows(schema: str, doctor: uuid.UUID) -> None:
    """One row of each table that hangs off a doctor: a certificate file, a consultation with a
    transcript line, a draft, a note and its signature, a recording upload made into that
    consultation with one part of audio."""
    with session_scope(schema) as s:
        s.add(
            CertificateFile(
                account_id=doctor,
                file_name="c.pdf",
                content_type="application/pdf",
                size_bytes=1,
                sha256="0" * 64,
                content=b"%",
            )
        )
        consultation = Consultation(doctor_account_id=doctor, console="generic", model="m")
        s.add(consultation)
        s.flush()
        s.add(
            TranscriptLine(
                consultation_id=consultation.id, seq=0, speaker="user", text="t", spoken_at=utcnow()
            )
        )
        s.add(
            ConsultationDraft(
                consultation_id=consultation.id, kind="summary", text="d", model="m", prompt_version="v"
            )
        )
        note = ConsultationNote(consultation_id=consultation.id, text="n")
        s.add(note)
        s.flush()
        s.add(
            ConsultationNoteEntry(
                note_id=note.id,
                number=1,
                kind="signature",
                text="n",
                author_name="Dr",
                content_sha256="0" * 64,
            )
        )
        upload = RecordingUpload(
            doctor_account_id=doctor,
            client_id=uuid.uuid4(),
            console="generic",
            consent_basis="doctor_confirmed",
            recorded_at=utcnow(),
            mime_type="audio/webm",
            state="done",
            consultation_id=consultation.id,
        )
        s.add(upload)
        s.flush()
        s.add(RecordingPart(upload_id=upload.id, offset=0, data=b"a"))


_ROWS_OF = {
    "doctors": "SELECT count(*) FROM doctors WHERE account_id = :d",
    "certificate_files": "SELECT count(*) FROM certificate_files WHERE account_id = :d",
    "consultations": "SELECT count(*) FROM consultations WHERE doctor_account_id = :d",
    "transcript_lines": "SELECT count(*) FROM transcript_lines t JOIN consultations c"
    " ON c.id = t.consultation_id WHERE c.doctor_account_id = :d",
    "consultation_drafts": "SELECT count(*) FROM consultation_drafts x JOIN consultations c"
    " ON c.id = x.consultation_id WHERE c.doctor_account_id = :d",
    "consultation_notes": "SELECT count(*) FROM consultation_notes x JOIN consultations c"
    " ON c.id = x.consultation_id WHERE c.doctor_account_id = :d",
    "consultation_note_entries": "SELECT count(*) FROM consultation_note_entries e"
    " JOIN consultation_notes x ON x.id = e.note_id JOIN consultations c ON c.id = x.consultation_id"
    " WHERE c.doctor_account_id = :d",
    "recording_uploads": "SELECT count(*) FROM recording_uploads WHERE doctor_account_id = :d",
    "recording_parts": "SELECT count(*) FROM recording_parts p JOIN recording_uploads u"
    " ON u.id = p.upload_id WHERE u.doctor_account_id = :d",
}


def rows_of(schema: str, doctor: uuid.UUID | None) -> dict[str, int]:
    """The doctor's rows in each table of the schema (None: every row)."""
    with get_engine().connect() as conn:
        conn.execute(text(f'SET LOCAL search_path TO "{schema}"'))
        counts = {}
        for table, query in _ROWS_OF.items():
            if doctor is None:
                query = f"SELECT count(*) FROM {table}"
            counts[table] = int(conn.execute(text(query), {"d": doctor}).scalar_one())
        conn.rollback()
    return counts


class TestRemove:
    def test_removes_account_profile_and_records_it(self, client: Any, hospital: HospitalAccount) -> None:
        doctor = add(client, hospital, n=70).json()
        r = client.request(
            "DELETE",
            f"/api/doctors/{doctor['_id']}",
            json={"hospitalId": hospital.hospital_id},
            headers=hospital.headers,
        )
        assert r.status_code == 200, r.text
        assert r.json() == {"message": "Doctor removed successfully", "id": doctor["_id"]}
        assert listed(client, hospital) == []
        assert login(client, doctor["email"], "kofi-secret").status_code == 401
        with session_scope() as s:
            assert s.get(Account, uuid.UUID(doctor["_id"])) is None
        assert ("doctor.removed", doctor["_id"], hospital.account_id) in tenant_audit(hospital)
        # The seat is free again.
        limit = client.get(
            f"/api/subscription/check-doctor-limit/{hospital.hospital_id}", headers=hospital.headers
        )
        assert limit.json()["doctorCount"] == 0

    def test_removes_the_doctors_own_rows_and_only_theirs_keeping_the_record(
        self, client: Any, hospital: HospitalAccount
    ) -> None:
        # No key from the schema into platform.accounts cascades: the removal deletes these rows.
        gone, kept = (uuid.UUID(add(client, hospital, n=n).json()["_id"]) for n in (71, 72))
        schema = hospital_schema(hospital)
        for doctor in (gone, kept):
            add_clinical_rows(schema, doctor)
        before = {doctor: rows_of(schema, doctor) for doctor in (gone, kept, None)}
        assert all(n == 1 for n in before[gone].values()), before[gone]

        r = client.request("DELETE", f"/api/doctors/{gone}", headers=hospital.headers)
        assert r.status_code == 200, r.text
        # What is the account's goes; the consultation record (notes, drafts, transcript) stays
        # with the hospital (tests/cara/consultations/test_removed_doctor_records.py).
        record = {"consultations", "transcript_lines", "consultation_drafts", "consultation_notes"}
        record |= {"consultation_note_entries"}
        after = rows_of(schema, gone)
        assert {t: n for t, n in after.items() if t not in record} == {
            t: 0 for t in before[gone] if t not in record
        }
        assert {t: after[t] for t in record} == {t: before[gone][t] for t in record}
        assert rows_of(schema, kept) == before[kept]
        # Children of what went (an upload's audio) are gone too, not orphaned.
        everything = rows_of(schema, None)
        assert everything["recording_parts"] == before[kept]["recording_parts"]
        assert everything["certificate_files"] == before[kept]["certificate_files"]

    def test_missing_doctor(self, client: Any, hospital: HospitalAccount) -> None:
        for bad in (str(uuid.uuid4()), "nope"):
            r = client.request("DELETE", f"/api/doctors/{bad}", headers=hospital.headers)
            assert r.status_code == 404
            assert r.json()["message"] == "Doctor not found."


class TestAcrossHospitals:
    """Hospital A using hospital B's ids: 404, and nothing changes."""

    def test_cannot_touch_another_hospitals_doctor(self, client: Any, hospital: HospitalAccount) -> None:
        other = new_hospital(client)
        theirs = add(client, other, n=80).json()
        url = f"/api/doctors/{theirs['_id']}"
        attempts = [
            client.put(url, json={"name": "Taken over"}, headers=hospital.headers),
            client.put(url, json={"isActive": False}, headers=hospital.headers),
            client.put(
                url, json={"isActive": False, "hospitalId": other.hospital_id}, headers=hospital.headers
            ),
            client.request("DELETE", url, headers=hospital.headers),
            client.request("DELETE", url, json={"hospitalId": other.hospital_id}, headers=hospital.headers),
        ]
        assert [r.status_code for r in attempts] == [404] * 5
        assert listed(client, other) == [theirs]
        assert login(client, theirs["email"], "kofi-secret").status_code == 200
        assert [a for a, _, _ in tenant_audit(hospital)] == []

    def test_an_independent_doctors_id_is_not_a_hospitals(
        self, client: Any, hospital: HospitalAccount
    ) -> None:
        independent = signup(client, doctor_payload())
        r = client.put(
            f"/api/doctors/{independent['user']['_id']}", json={"isActive": False}, headers=hospital.headers
        )
        assert r.status_code == 404
        with session_scope() as s:
            account = s.get(Account, uuid.UUID(independent["user"]["_id"]))
            assert account is not None and account.is_active


def test_the_tenant_audit_log_is_append_only(client: Any, hospital: HospitalAccount) -> None:
    add(client, hospital, n=90)
    from sqlalchemy.exc import DBAPIError

    with session_scope() as s:
        schema = s.execute(
            text(
                "SELECT t.schema_name FROM platform.tenants t JOIN platform.hospitals h ON h.tenant_id = t.id"
                " WHERE h.id = :h"
            ),
            {"h": hospital.hospital_id},
        ).scalar_one()
    for statement in (
        f"UPDATE \"{schema}\".audit_events SET action = 'doctor.forged'",
        f'DELETE FROM "{schema}".audit_events',
    ):
        with pytest.raises(DBAPIError, match="append-only"), session_scope() as s:
            s.execute(text(statement))
    assert [a for a, _, _ in tenant_audit(hospital)] == ["doctor.created"]


def test_profiles_live_in_the_hospitals_schema_only(client: Any, hospital: HospitalAccount) -> None:
    doctor = add(client, hospital, n=91).json()
    with session_scope("independent") as s:
        found = s.scalar(select(DoctorProfile).where(DoctorProfile.account_id == uuid.UUID(doctor["_id"])))
        assert found is None
