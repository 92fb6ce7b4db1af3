"""GET /api/subscription/current, the facility check and the clinical access rule."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from cara.kit.db import session_scope
from cara.models import Account
from cara.subscriptions.service import grants_clinical_access
from tests.cara.admin_console.seed import subscribe
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup


def _access(email: str) -> bool:
    with session_scope() as s:
        account = s.scalar(select(Account).where(Account.email == email))
        assert account is not None
        return grants_clinical_access(s, account)


def test_no_subscription_reads_inactive_without_plan(client: Any) -> None:
    doctor = signup(client, doctor_payload())
    r = client.get("/api/subscription/current", headers=auth(doctor["token"]))
    assert r.status_code == 200
    assert r.json()["status"] == "inactive"
    assert r.json()["planId"] is None
    assert _access(doctor["user"]["email"]) is False


def test_active_subscription_shows_plan_and_grants_access(client: Any) -> None:
    body = doctor_payload()
    doctor = signup(client, body)
    subscribe(body["email"], "doctor-professional")
    r = client.get("/api/subscription/current", headers=auth(doctor["token"]))
    data = r.json()
    assert data["status"] == "active"
    assert data["billingCycle"] == "monthly"
    assert data["planId"]["name"] == "Professional"
    assert data["planId"]["price"] > 0
    assert "_id" in data["planId"]
    assert _access(body["email"]) is True


def test_trialing_grants_access_but_cancelled_does_not(client: Any) -> None:
    trial, cancelled = doctor_payload(), doctor_payload()
    signup(client, trial)
    signup(client, cancelled)
    subscribe(trial["email"], "doctor-basic", status="trialing")
    subscribe(cancelled["email"], "doctor-basic", status="canceled")
    assert _access(trial["email"]) is True
    assert _access(cancelled["email"]) is False


def test_live_subscription_wins_over_a_newer_ended_one(client: Any) -> None:
    body = doctor_payload()
    doctor = signup(client, body)
    subscribe(body["email"], "doctor-basic", status="active")
    subscribe(body["email"], "doctor-professional", status="canceled")
    r = client.get("/api/subscription/current", headers=auth(doctor["token"]))
    assert r.json()["status"] == "active"
    assert r.json()["planId"]["name"] == "Basic"


def test_hospital_created_doctor_follows_the_hospital(client: Any) -> None:
    hospital_body = hospital_payload()
    hospital = signup(client, hospital_body)
    staff = doctor_payload(isHospitalCreated=True)
    doctor = add_staff(client, staff, hospital["token"])

    r = client.get("/api/doctors/hospital-subscription-status", headers=auth(doctor["token"]))
    assert r.status_code == 200
    assert r.json() == {"hospitalSubscriptionActive": False, "status": "inactive", "planName": None}
    assert _access(staff["email"]) is False

    subscribe(hospital_body["email"], "hospital-bronze")
    r = client.get("/api/doctors/hospital-subscription-status", headers=auth(doctor["token"]))
    assert r.json() == {"hospitalSubscriptionActive": True, "status": "active", "planName": "Bronze"}
    assert _access(staff["email"]) is True


def test_hospital_created_doctor_sees_an_ended_plan_by_name(client: Any) -> None:
    hospital_body = hospital_payload()
    hospital = signup(client, hospital_body)
    doctor = add_staff(client, doctor_payload(isHospitalCreated=True), hospital["token"])
    subscribe(hospital_body["email"], "hospital-gold", status="canceled")
    r = client.get("/api/doctors/hospital-subscription-status", headers=auth(doctor["token"]))
    assert r.json() == {"hospitalSubscriptionActive": False, "status": "canceled", "planName": "Gold"}


def test_hospital_sees_its_own_subscription(client: Any) -> None:
    body = hospital_payload()
    hospital = signup(client, body)
    subscribe(body["email"], "hospital-gold")
    r = client.get("/api/subscription/current", headers=auth(hospital["token"]))
    assert r.json()["planId"]["name"] == "Gold"
    assert r.json()["planId"]["maxDoctors"] is not None


def test_roles_are_checked(client: Any, admin_token: str) -> None:
    assert client.get("/api/subscription/current").status_code == 401
    assert client.get("/api/subscription/current", headers=auth(admin_token)).status_code == 403
    hospital = signup(client, hospital_payload())
    r = client.get("/api/doctors/hospital-subscription-status", headers=auth(hospital["token"]))
    assert r.status_code == 403
    assert r.json()["message"] == "You do not have permission to access this resource."
