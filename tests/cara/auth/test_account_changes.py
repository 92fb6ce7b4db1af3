"""Safe account changes: the sign-in email and the password change only with the current
password; the old address is told and may undo an email change for 72 hours; every change
signs the other sessions out; a hospital editing its doctor's email learns nothing of other
accounts (the new address confirms)."""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from cara.kit.db import session_scope
from cara.models import Account, AuditEvent, EmailChange
from cara.models.base import utcnow
from tests.cara.doctors.conftest import new_hospital
from tests.factories import add_staff, auth, doctor_payload, signup

PASSWORD = "secret1"  # doctor_payload's


@pytest.fixture
def mails(caplog: pytest.LogCaptureFixture, worker: Any) -> Any:
    """The mails the worker has written to the log so far: (to, subject, body) for each."""
    caplog.set_level(logging.INFO, logger="cara.mail")

    def read(count: int) -> list[dict[str, str]]:
        worker.join("mail", timeout=10_000)
        deadline = time.time() + 5
        while True:
            found = [
                {"subject": str(getattr(r, "mail_subject", "")), "body": str(getattr(r, "mail_body", ""))}
                for r in caplog.records
                if getattr(r, "mail_subject", None)
            ]
            if len(found) >= count or time.time() > deadline:
                return found
            time.sleep(0.05)

    return read


def _link_token(body: str, path: str) -> str:
    return body.split(f"{path}?token=")[1].split()[0]


def _login(client: Any, email: str, password: str = PASSWORD) -> Any:
    return client.post("/api/auth/login", json={"email": email, "password": password, "role": "doctor"})


def test_email_change_needs_the_password_signs_others_out_and_can_be_undone(client: Any, mails: Any) -> None:
    doctor = signup(client, doctor_payload())
    old_email = doctor["user"]["email"]
    other_session = _login(client, old_email).json()["token"]

    r = client.post(
        "/api/auth/change-email", json={"email": "new.me@example.com"}, headers=auth(doctor["token"])
    )
    assert r.status_code == 422 and r.json()["fields"] == {"currentPassword": "Current password is required"}
    r = client.post(
        "/api/auth/change-email",
        json={"email": "new.me@example.com", "currentPassword": "wrong-one"},
        headers=auth(doctor["token"]),
    )
    assert (
        r.status_code == 422 and r.json()["fields"]["currentPassword"] == "Your current password is incorrect"
    )

    r = client.post(
        "/api/auth/change-email",
        json={"email": "New.Me@example.com", "currentPassword": PASSWORD},
        headers=auth(doctor["token"]),
    )
    assert r.status_code == 200, r.text
    renewed = r.json()["token"]
    assert r.json()["user"]["email"] == "new.me@example.com"
    # This session goes on with the new token; every other one (and the old token) is out.
    assert client.get("/api/auth/user", headers=auth(renewed)).status_code == 200
    assert client.get("/api/auth/user", headers=auth(other_session)).status_code == 401
    assert client.get("/api/auth/user", headers=auth(doctor["token"])).status_code == 401
    assert _login(client, "new.me@example.com").status_code == 200

    notice = next(m for m in mails(1) if "sign-in email" in m["subject"])
    token = _link_token(notice["body"], "/undo-email-change")
    r = client.post("/api/auth/undo-email-change", json={"token": token})
    assert r.status_code == 200, r.text
    assert _login(client, old_email).status_code == 200
    assert _login(client, "new.me@example.com").status_code == 401
    assert client.get("/api/auth/user", headers=auth(renewed)).status_code == 401  # undo signs all out
    assert client.post("/api/auth/undo-email-change", json={"token": token}).status_code == 400  # once
    with session_scope() as s:
        actions = set(s.scalars(select(AuditEvent.action)))
    assert {"account.email_changed", "account.email_change_undone"} <= actions


def test_undo_link_expires_after_72_hours(client: Any, mails: Any) -> None:
    doctor = signup(client, doctor_payload())
    r = client.post(
        "/api/auth/change-email",
        json={"email": "later@example.com", "currentPassword": PASSWORD},
        headers=auth(doctor["token"]),
    )
    assert r.status_code == 200
    token = _link_token(mails(1)[-1]["body"], "/undo-email-change")
    with session_scope() as s:
        s.execute(update(EmailChange).values(expires_at=utcnow() - timedelta(seconds=1)))
    r = client.post("/api/auth/undo-email-change", json={"token": token})
    assert r.status_code == 400
    assert client.post("/api/auth/undo-email-change", json={"token": "made-up"}).status_code == 400


def test_taken_email_and_same_email(client: Any) -> None:
    doctor = signup(client, doctor_payload())
    other = signup(client, doctor_payload())
    body = {"email": other["user"]["email"], "currentPassword": PASSWORD}
    assert client.post("/api/auth/change-email", json=body, headers=auth(doctor["token"])).status_code == 409
    body = {"email": doctor["user"]["email"], "currentPassword": PASSWORD}
    r = client.post("/api/auth/change-email", json=body, headers=auth(doctor["token"]))
    assert r.status_code == 422 and "email" in r.json()["fields"]


def test_password_change_needs_the_password_and_signs_others_out(client: Any, mails: Any) -> None:
    doctor = signup(client, doctor_payload())
    email = doctor["user"]["email"]
    other_session = _login(client, email).json()["token"]
    bad = {"currentPassword": "not-it", "newPassword": "another-secret"}
    r = client.post("/api/auth/change-password", json=bad, headers=auth(doctor["token"]))
    assert r.status_code == 422 and "currentPassword" in r.json()["fields"]
    short = {"currentPassword": PASSWORD, "newPassword": "x"}
    r = client.post("/api/auth/change-password", json=short, headers=auth(doctor["token"]))
    assert r.status_code == 422 and "newPassword" in r.json()["fields"]

    good = {"currentPassword": PASSWORD, "newPassword": "another-secret"}
    r = client.post("/api/auth/change-password", json=good, headers=auth(doctor["token"]))
    assert r.status_code == 200, r.text
    assert client.get("/api/auth/user", headers=auth(r.json()["token"])).status_code == 200
    assert client.get("/api/auth/user", headers=auth(other_session)).status_code == 401
    assert _login(client, email).status_code == 401
    assert _login(client, email, "another-secret").status_code == 200
    assert any("password was changed" in m["subject"] for m in mails(1))


def test_a_hospital_cannot_tell_whether_an_address_has_an_account(client: Any, mails: Any) -> None:
    """Editing its doctor's email, a hospital gets the same answer for a free address and for one
    another tenant's account uses; the change is made when the new address confirms."""
    hospital = new_hospital(client)
    doctor = add_staff(client, doctor_payload(), hospital.token)["user"]
    elsewhere = signup(client, doctor_payload())["user"]["email"]
    url = f"/api/doctors/{doctor['_id']}"

    answers = []
    for email in (elsewhere, "fresh.address@example.com"):
        r = client.put(url, json={"email": email}, headers=hospital.headers)
        answers.append((r.status_code, r.json()))
    assert answers[0] == answers[1]
    assert answers[0][0] == 200 and answers[0][1]["email"] == doctor["email"]  # unchanged until confirmed

    sent = mails(2)
    in_use = next(m for m in sent if "nothing was changed" in m["body"])
    assert "token=" not in in_use["body"]
    confirm = next(m for m in sent if "/confirm-email-change?token=" in m["body"])
    r = client.post(
        "/api/auth/confirm-email-change",
        json={"token": _link_token(confirm["body"], "/confirm-email-change")},
    )
    assert r.status_code == 200, r.text
    with session_scope() as s:
        assert (
            s.scalar(select(Account.email).where(Account.id == doctor["_id"])) == "fresh.address@example.com"
        )
    # The doctor's old address is told, with its undo link, as for any change.
    assert any("/undo-email-change?token=" in m["body"] for m in mails(3))
