"""Retention: a scheduled job on a real worker deletes the transcripts and drafts of consultations
never signed once the tenant's period has passed; signed notes stay."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select

from cara.consultations import service
from cara.kit.db import tenant_session
from cara.kit.jobs import send_now
from cara.models import Consultation, ConsultationDraft, ConsultationNote, TenantAuditEvent, TranscriptLine
from cara.models.base import utcnow
from tenants.sessions import tenant_transaction
from tests.cara.consultations.conftest import add_lines, schema_and_account, start, subscribe
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup
from workers.scheduler import SCHEDULE


def retention(schema: str) -> int:
    """The scheduled job's work in one schema, in the transaction the actor opens for it."""
    with tenant_transaction(schema) as session:
        return service.apply_retention(session, schema)


def age(headers: dict[str, str], cid: str, days: int) -> None:
    schema, _ = schema_and_account(headers)
    with tenant_session(schema) as s:
        c = s.get(Consultation, uuid.UUID(cid))
        assert c is not None
        c.started_at = utcnow() - timedelta(days=days, hours=1)
        c.ended_at = c.started_at + timedelta(minutes=20)
        s.commit()


def held(headers: dict[str, str], cid: str) -> tuple[int, int, int]:
    schema, _ = schema_and_account(headers)
    key = uuid.UUID(cid)
    with tenant_session(schema) as s:
        return tuple(  # type: ignore[return-value]
            int(s.scalar(select(func.count()).select_from(model).where(model.consultation_id == key)) or 0)
            for model in (TranscriptLine, ConsultationDraft, ConsultationNote)
        )


def with_draft(headers: dict[str, str], cid: str) -> None:
    schema, _ = schema_and_account(headers)
    with tenant_session(schema) as s:
        s.add(
            ConsultationDraft(
                consultation_id=uuid.UUID(cid),
                kind="summary",
                text="Draft",
                evidence=[],
                model="m",
                prompt_version="v",
            )
        )
        s.commit()


def test_the_job_is_scheduled() -> None:
    assert any(job.actor_name == service.RETENTION_ACTOR for job in SCHEDULE)


def test_retention_on_a_real_worker(client: Any, doctor: dict[str, str], worker: Any) -> None:
    old = start(client, doctor, title="x").json()["id"]
    add_lines(doctor, old, [("user", "old transcript")])
    with_draft(doctor, old)
    client.put(f"/api/consultations/{old}/note", json={"text": "unsigned"}, headers=doctor)
    recent = start(client, doctor).json()["id"]
    add_lines(doctor, recent, [("user", "recent transcript")])
    signed = start(client, doctor).json()["id"]
    add_lines(doctor, signed, [("user", "signed transcript")])
    client.put(f"/api/consultations/{signed}/note", json={"text": "Signed note"}, headers=doctor)
    client.post(f"/api/consultations/{signed}/note/sign", headers=doctor)
    for cid in (old, signed):
        age(doctor, cid, 31)
    age(doctor, recent, 29)
    # An independent doctor with a longer period of their own keeps theirs.
    patient_doctor = auth(signup(client, doctor_payload())["token"])
    assert (
        client.put(
            "/api/consultations/settings", json={"retentionDays": 90}, headers=patient_doctor
        ).status_code
        == 200
    )
    theirs = start(client, patient_doctor).json()["id"]
    add_lines(patient_doctor, theirs, [("user", "kept for 90 days")])
    age(patient_doctor, theirs, 31)

    send_now(service.RETENTION_ACTOR, {})
    deadline = time.monotonic() + 20
    while held(doctor, old) != (0, 0, 0):
        assert time.monotonic() < deadline, held(doctor, old)
        time.sleep(0.1)
    worker.join("consultations")
    assert held(doctor, recent) == (1, 0, 0)
    assert held(doctor, signed) == (1, 0, 1)  # the signed note (and its transcript) stay
    assert held(patient_doctor, theirs) == (1, 0, 0)
    r = client.get(f"/api/consultations/{signed}", headers=doctor).json()
    assert r["note"]["signed"] is True and r["note"]["text"] == "Signed note"
    # The purged consultation is still listed, with nothing left to read, and search forgot its words.
    purged = client.get(f"/api/consultations/{old}", headers=doctor).json()
    assert purged["lines"] == [] and purged["drafts"] == [] and purged["note"] is None
    assert (
        client.get("/api/consultations", params={"q": "old transcript"}, headers=doctor).json()["items"] == []
    )
    schema, _ = schema_and_account(doctor)
    with tenant_session(schema) as s:
        entries = s.scalars(
            select(TenantAuditEvent.detail).where(TenantAuditEvent.action == "consultation.retention")
        ).all()
    assert {"consultations": 1} in entries


def test_hospital_period(client: Any) -> None:
    token = signup(client, hospital_payload())["token"]
    subscribe(token)
    staff = auth(add_staff(client, doctor_payload(), token)["token"])
    assert (
        client.put("/api/consultations/settings", json={"retentionDays": 7}, headers=auth(token)).status_code
        == 200
    )
    cid = start(client, staff).json()["id"]
    add_lines(staff, cid, [("user", "a week and a day")])
    age(staff, cid, 8)
    schema, _ = schema_and_account(staff)
    assert retention(schema) == 1
    assert held(staff, cid) == (0, 0, 0)
    assert retention(schema) == 0  # nothing left to purge


def test_the_hourly_job_gathers_search_documents(client: Any, doctor: dict[str, str]) -> None:
    cid = start(client, doctor).json()["id"]
    add_lines(doctor, cid, [("user", "Gathered by the hourly job")])
    schema, _ = schema_and_account(doctor)
    retention(schema)
    with tenant_session(schema) as s:
        c = s.get(Consultation, uuid.UUID(cid))
        assert c is not None and c.search_indexed_at is not None
    assert [
        i["id"]
        for i in client.get("/api/consultations", params={"q": "hourly"}, headers=doctor).json()["items"]
    ] == [cid]
