"""What a signed note shows (title, patient reference, signer, licence, clinic, time) is fixed at
signing: later renames and edit attempts change neither the record nor any export of it."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select

from cara.consultations.service import content_hash
from cara.kit.db import tenant_session
from cara.models import ConsultationNote, ConsultationNoteEntry
from tests.cara.consultations.conftest import schema_and_account, start, subscribe
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup

SIGNED_TITLE = "The note is signed: its title can no longer change."


def signed(client: Any, headers: dict[str, str]) -> str:
    cid: str = start(
        client,
        headers,
        console="generic",
        patientReference={"recordNumber": "KB-77", "name": "Ama Owusu"},
    ).json()["id"]
    title = {"title": "Chest pain review"}
    assert client.patch(f"/api/consultations/{cid}", json=title, headers=headers).status_code == 200
    note = {"text": "ECG normal."}
    assert client.put(f"/api/consultations/{cid}/note", json=note, headers=headers).status_code == 200
    assert client.post(f"/api/consultations/{cid}/note/sign", headers=headers).status_code == 200
    return cid


def exports(client: Any, path: str, headers: dict[str, str]) -> list[bytes]:
    return [
        client.get(f"{path}/export/pdf", headers=headers).content,
        client.get(f"{path}/export/fhir", headers=headers).content,
        client.get(f"{path}/export/fhir", params={"resource": "document-reference"}, headers=headers).content,
    ]


def rename(client: Any, headers: dict[str, str], name: str, licence: str) -> None:
    r = client.put("/api/auth/doctor/profile", json={"name": name, "licenseNumber": licence}, headers=headers)
    assert r.status_code == 200, r.text


def test_title_of_a_signed_note_cannot_change(client: Any) -> None:
    doctor = auth(signup(client, doctor_payload())["token"])
    cid = signed(client, doctor)
    r = client.patch(f"/api/consultations/{cid}", json={"title": "Something else"}, headers=doctor)
    assert r.status_code == 409 and r.json()["message"] == SIGNED_TITLE
    assert client.get(f"/api/consultations/{cid}", headers=doctor).json()["title"] == "Chest pain review"
    # Before signing the title still changes.
    other: str = start(client, doctor, console="generic").json()["id"]
    r = client.patch(f"/api/consultations/{other}", json={"title": "B"}, headers=doctor)
    assert r.status_code == 200 and r.json()["title"] == "B"


def test_exports_are_byte_identical_after_a_rename(client: Any) -> None:
    doctor = auth(signup(client, doctor_payload(name="Dr Kofi Annan", licenseNumber="MDC-1"))["token"])
    cid = signed(client, doctor)
    path = f"/api/consultations/{cid}"
    first = exports(client, path, doctor)
    assert first[0].startswith(b"%PDF") and b"Dr Kofi Annan" in first[1]
    assert b"Chest pain review" in first[1]
    rename(client, doctor, "Dr Kofi A. Annan-Mensah", "MDC-2")
    client.patch(path, json={"title": "Renamed"}, headers=doctor)
    client.patch(path, json={"patientReference": {"recordNumber": "X-1"}}, headers=doctor)
    again = exports(client, path, doctor)
    assert again == first
    # The signer's licence number is on the document, as it was at signing.
    assert b"MDC-1" in first[1] and b"MDC-2" not in first[1]
    # A note signed after the rename shows the new name and licence.
    later = exports(client, f"/api/consultations/{signed(client, doctor)}", doctor)
    assert b"Dr Kofi A. Annan-Mensah" in later[1] and b"MDC-2" in later[1]


def test_hospital_sees_the_signer_as_signed(client: Any) -> None:
    token = signup(client, hospital_payload(name="Ridge Hospital"))["token"]
    subscribe(token)
    hospital = auth(token)
    staff = auth(add_staff(client, doctor_payload(name="Dr Efua Asante"), token)["token"])
    cid = signed(client, staff)
    path = f"/api/consultations/signed/{cid}"
    first = exports(client, path, hospital)
    rename(client, staff, "Dr Efua Boateng", "MDC-9")
    (item,) = client.get("/api/consultations/signed", headers=hospital).json()["items"]
    assert item["doctorName"] == "Dr Efua Asante" and item["title"] == "Chest pain review"
    detail = client.get(path, headers=hospital).json()
    assert detail["doctorName"] == "Dr Efua Asante"
    assert exports(client, path, hospital) == first


def test_a_note_signed_before_shows_today_and_its_hash_still_verifies(client: Any) -> None:
    """A signature kept without `shown` (signed before tenant revision t0009): its hash is the
    one computed without it, and its exports show today's values, as before."""
    doctor = auth(signup(client, doctor_payload(name="Dr Yaw Darko", licenseNumber="MDC-5"))["token"])
    cid = signed(client, doctor)
    schema, account = schema_and_account(doctor)
    with tenant_session(schema) as s:
        entry = s.scalars(
            select(ConsultationNoteEntry)
            .join(ConsultationNote, ConsultationNote.id == ConsultationNoteEntry.note_id)
            .where(ConsultationNote.consultation_id == cid)
        ).one()
        old = content_hash(
            uuid.UUID(cid), 1, "signature", entry.text, None, account, entry.author_name, entry.created_at
        )
        assert old != entry.content_sha256  # new signatures also hash what they show
        entry.shown, entry.content_sha256 = None, old
        s.commit()
    rename(client, doctor, "Dr Yaw K. Darko", "MDC-6")
    bundle = client.get(f"/api/consultations/{cid}/export/fhir", headers=doctor).content
    assert b"Dr Yaw K. Darko" in bundle and old.encode() in bundle and b"MDC-" not in bundle
