"""A new hospital verifies its email (the mailed link) before it adds doctors or buys a plan;
hospitals never verified are removed after UNVERIFIED_HOSPITAL_DAYS by a scheduled job."""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, text, update

from cara.auth.service import VERIFY_FIRST
from cara.config import get_settings
from cara.kit.db import session_scope
from cara.models import Account, AuditEvent, Tenant
from cara.models.base import utcnow
from tests.cara.doctors.conftest import doctor_form
from tests.factories import auth, doctor_payload, hospital_payload, signup
from workers.actors.maintenance import remove_unverified_hospitals


@pytest.fixture(autouse=True)
def verification_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(get_settings(), "hospital_email_verification", True)


def _as_an_account_from_before_links(*account_ids: str) -> None:
    """Hospitals that signed up before sign-up went by mailed link were never verified."""
    with session_scope() as s:
        s.execute(update(Account).where(Account.id.in_(account_ids)).values(email_verified_at=None))


def _verification_token(caplog: pytest.LogCaptureFixture, worker: Any) -> str:
    worker.join("mail", timeout=10_000)
    deadline = time.time() + 5
    while time.time() < deadline:
        for record in caplog.records:
            body = str(getattr(record, "mail_body", ""))
            if "/verify-email?token=" in body:
                return body.split("/verify-email?token=")[1].split()[0]
        time.sleep(0.05)
    raise AssertionError("no verification mail")


def test_hospital_verifies_before_adding_doctors_or_buying(
    client: Any, worker: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="cara.mail")
    hospital = signup(client, hospital_payload())
    # A hospital made by its mailed sign-up link has proved its address already.
    assert hospital["user"]["emailVerified"] is True
    _as_an_account_from_before_links(hospital["user"]["_id"])
    headers = auth(hospital["token"])

    r = client.post("/api/doctors/new-doctor", json=doctor_form(n=1), headers=headers)
    assert (r.status_code, r.json()["message"]) == (403, VERIFY_FIRST)
    staff = doctor_payload(isHospitalCreated=True)
    r = client.post("/api/auth/signup", json=staff, headers=headers)
    assert (r.status_code, r.json()["message"]) == (403, VERIFY_FIRST)
    body = {"planName": "Bronze", "billingCycle": "monthly", "userId": hospital["user"]["_id"]}
    r = client.post("/api/subscription/create-checkout-session", json=body, headers=headers)
    assert (r.status_code, r.json()["message"]) == (403, VERIFY_FIRST)

    assert client.post("/api/auth/resend-verification", headers=headers).status_code == 202
    token = _verification_token(caplog, worker)
    assert client.post("/api/auth/verify-email", json={"token": "not-it"}).status_code == 400
    r = client.post("/api/auth/verify-email", json={"token": token})
    assert r.status_code == 200, r.text
    assert client.get("/api/auth/user", headers=headers).json()["emailVerified"] is True
    r = client.post("/api/subscription/create-checkout-session", json=body, headers=headers)
    assert r.status_code == 200, r.text
    # Doctors are never asked: only hospitals create tenants and buy seats.
    assert signup(client, doctor_payload())["user"]["emailVerified"] is True


def test_resend_is_limited(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(get_settings(), "rate_limit_forgot_password_email", "3 per hour")
    hospital = signup(client, hospital_payload())
    statuses = [
        client.post("/api/auth/resend-verification", headers=auth(hospital["token"])).status_code
        for _ in range(5)
    ]
    assert statuses[0] == 202 and statuses[-1] == 429


def test_unverified_hospitals_are_removed_after_the_grace_period(client: Any) -> None:
    stale = signup(client, hospital_payload())
    fresh = signup(client, hospital_payload())
    verified = signup(client, hospital_payload())
    _as_an_account_from_before_links(stale["user"]["_id"], fresh["user"]["_id"])
    days = get_settings().unverified_hospital_days
    with session_scope() as s:
        s.execute(
            update(Account)
            .where(Account.id.in_([stale["user"]["_id"], verified["user"]["_id"]]))
            .values(created_at=utcnow() - timedelta(days=days, minutes=1))
        )
        s.execute(
            update(Account).where(Account.id == verified["user"]["_id"]).values(email_verified_at=utcnow())
        )
        stale_schema = s.scalar(
            select(Tenant.schema_name)
            .join(Account, Account.tenant_id == Tenant.id)
            .where(Account.id == stale["user"]["_id"])
        )

    remove_unverified_hospitals()

    with session_scope() as s:
        left = set(map(str, s.scalars(select(Account.id).where(Account.role == "hospital"))))
        assert left == {fresh["user"]["_id"], verified["user"]["_id"]}
        assert (
            s.execute(text("SELECT 1 FROM pg_namespace WHERE nspname = :n"), {"n": stale_schema}).first()
            is None
        )
        assert s.scalar(select(AuditEvent.id).where(AuditEvent.tenant_schema == stale_schema).limit(1))
    assert client.get("/api/auth/user", headers=auth(stale["token"])).status_code == 401
