"""POST /api/consultations (consent first) and open_for_live, the live relay's check."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy import select

from cara.auth.principal import principal_for_claims
from cara.auth.tokens import decode
from cara.consultations import service
from cara.kit.db import tenant_session
from cara.kit.errors import NotFound
from cara.models import Consultation, TenantAuditEvent
from tests.cara.consultations.conftest import start
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup


def open_live(headers: dict[str, str], consultation_id: object) -> Consultation:
    claims = decode(headers["Authorization"].removeprefix("Bearer "))
    assert claims is not None and claims.tenant_schema is not None
    with tenant_session(claims.tenant_schema) as session:
        principal = principal_for_claims(session, claims)
        consultation = service.open_for_live(session, principal, consultation_id)
        session.expunge(consultation)
        return consultation


def schema_of(headers: dict[str, str]) -> str:
    claims = decode(headers["Authorization"].removeprefix("Bearer "))
    assert claims is not None and claims.tenant_schema is not None
    return claims.tenant_schema


class TestStart:
    def test_consent_is_stored_and_audited(self, client: Any, doctor: dict[str, str]) -> None:
        r = start(client, doctor, patientReference={"recordNumber": " KB-1234 ", "age": 54, "sex": "female"})
        assert r.status_code == 201, r.text
        body = r.json()
        uuid.UUID(body["id"])
        assert body["console"] == "radiologist"
        assert body["state"] == "in_progress"
        assert body["lineCount"] == 0
        assert body["patientReference"] == {
            "recordNumber": "KB-1234",
            "name": None,
            "age": 54,
            "sex": "female",
        }
        assert body["consent"]["basis"] == "doctor_confirmed"
        assert body["consent"]["givenAt"]
        assert body["consent"]["givenBy"] == str(decode(doctor["Authorization"][7:]).account_id)  # type: ignore[union-attr]
        with tenant_session(schema_of(doctor)) as s:
            events = s.scalars(
                select(TenantAuditEvent).where(
                    TenantAuditEvent.action == "consultation.consent",
                    TenantAuditEvent.target_id == body["id"],
                )
            ).all()
            assert len(events) == 1
            assert events[0].detail == {"basis": "doctor_confirmed", "console": "radiologist"}
            # Audit details never carry the patient reference.
            assert "KB-1234" not in str(events[0].detail)

    def test_without_consent_nothing_starts(self, client: Any, doctor: dict[str, str]) -> None:
        r = start(client, doctor, consent=False)
        assert r.status_code == 422
        assert r.json()["fields"] == {
            "consent": "The patient's consent is required before the consultation starts."
        }

    @pytest.mark.parametrize(
        "body",
        [
            {"console": "astrologer", "consent": True},
            {"console": "generic", "consent": "yes"},
            {"console": "generic"},
            {"console": "generic", "consent": True, "patientReference": {"age": -1}},
            {"console": "generic", "consent": True, "patientReference": {"sex": "x"}},
            {"console": "x" * 51, "consent": True},
        ],
    )
    def test_bad_input_is_422(self, client: Any, doctor: dict[str, str], body: dict[str, Any]) -> None:
        r = client.post("/api/consultations", json=body, headers=doctor)
        assert r.status_code == 422, r.text
        assert "message" in r.json()

    def test_only_doctors(self, client: Any) -> None:
        hospital = auth(signup(client, hospital_payload())["token"])
        assert start(client, hospital).status_code == 403
        assert (
            client.post("/api/consultations", json={"console": "generic", "consent": True}).status_code == 401
        )


def test_consoles_are_the_assistant_profiles() -> None:
    from cara.consultations.schemas import CONSOLES
    from cara.live.assistant_profiles import ASSISTANT_PROFILES

    assert set(ASSISTANT_PROFILES) == CONSOLES


def test_without_clinical_access_nothing_starts(client: Any, monkeypatch: Any) -> None:
    from cara.config import get_settings

    monkeypatch.setattr(get_settings(), "trial_days", 0)
    lapsed = auth(signup(client, doctor_payload())["token"])
    r = start(client, lapsed)
    assert r.status_code == 403
    assert r.json()["message"] == "An active subscription is required to use Cara. Please choose a plan."


class TestOpenForLive:
    def test_own_consultation_with_consent(self, client: Any, doctor: dict[str, str]) -> None:
        cid = start(client, doctor).json()["id"]
        consultation = open_live(doctor, cid)
        assert str(consultation.id) == cid and consultation.console == "radiologist"
        assert open_live(doctor, uuid.UUID(cid)).id == consultation.id

    def test_others_and_bad_ids_are_not_found(self, client: Any, doctor: dict[str, str]) -> None:
        cid = start(client, doctor).json()["id"]
        other = auth(signup(client, doctor_payload())["token"])  # same independent schema
        hospital_token = signup(client, hospital_payload())["token"]
        staff = auth(add_staff(client, doctor_payload(), hospital_token)["token"])
        for headers in (other, staff):
            with pytest.raises(NotFound):
                open_live(headers, cid)
        for bad in ("not-a-uuid", str(uuid.uuid4()), None, 42):
            with pytest.raises(NotFound):
                open_live(doctor, bad)

    def test_signed_or_without_consent_is_not_found(self, client: Any, doctor: dict[str, str]) -> None:
        signed = start(client, doctor).json()["id"]
        legacy = start(client, doctor).json()["id"]
        with tenant_session(schema_of(doctor)) as s:
            s.get(Consultation, uuid.UUID(signed)).state = "signed"  # type: ignore[union-attr]
            s.get(Consultation, uuid.UUID(legacy)).consent_basis = None  # type: ignore[union-attr]
            s.commit()
        for cid in (signed, legacy):
            with pytest.raises(NotFound):
                open_live(doctor, cid)


def test_a_start_holds_one_database_connection(client: Any, doctor: dict[str, str]) -> None:
    """The subscription check reads through the request's session: a start never holds two pooled
    connections at once (with a pool of one, a second checkout would wait for the first)."""
    from sqlalchemy import event

    from cara.kit.db import get_engine

    engine = get_engine()
    held = {"now": 0, "most": 0}

    def checkout(*_: Any) -> None:
        held["now"] += 1
        held["most"] = max(held["most"], held["now"])

    def checkin(*_: Any) -> None:
        held["now"] -= 1

    event.listen(engine, "checkout", checkout)
    event.listen(engine, "checkin", checkin)
    try:
        r = start(client, doctor)
    finally:
        event.remove(engine, "checkout", checkout)
        event.remove(engine, "checkin", checkin)
    assert r.status_code == 201, r.text
    assert held["most"] == 1
