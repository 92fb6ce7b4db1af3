"""A doctor or hospital signing themselves up is answered the same whether the email is free or
taken: nothing is made until the mailed link is followed, and a taken address's owner is told.
An invited admin and a hospital adding its own doctor are made at once (test_signup.py)."""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, text, update

from cara.config import get_settings
from cara.kit.db import session_scope
from cara.models import Account, PendingSignup
from cara.models.base import utcnow
from cara.registration.service import LINK_INVALID, PENDING_MESSAGE
from tests.factories import auth, doctor_payload, follow_signup_link, hospital_payload, signup

BROWSER = {"X-Requested-With": "XMLHttpRequest"}  # as the web app sends


def _accounts() -> int:
    with session_scope() as s:
        return int(s.scalar(select(func.count()).select_from(Account)) or 0)


def _hospital_schemas() -> int:
    with session_scope() as s:
        return int(
            s.execute(
                text("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'hospital\\_%'")
            ).scalar_one()
        )


def _mails(caplog: pytest.LogCaptureFixture, worker: Any, expected: int) -> list[tuple[str, str]]:
    """(subject, body) of the mails the worker sent, once `expected` of them are there."""
    worker.join("mail", timeout=10_000)
    deadline = time.time() + 5
    found: list[tuple[str, str]] = []
    while time.time() < deadline:
        found = [
            (str(getattr(r, "mail_subject", "")), str(getattr(r, "mail_body", "")))
            for r in caplog.records
            if getattr(r, "mail_body", None)
        ]
        if len(found) >= expected:
            return found
        time.sleep(0.05)
    return found


def _link_token(body: str) -> str:
    return body.split("/complete-signup?token=")[1].split()[0]


@pytest.fixture
def mail_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger="cara.mail")
    return caplog


def test_a_taken_email_is_answered_as_a_new_one_and_its_owner_is_told(
    client: Any, worker: Any, mail_log: pytest.LogCaptureFixture
) -> None:
    signup(client, doctor_payload(email="owner@example.com"))
    _mails(mail_log, worker, 1)
    mail_log.clear()  # the owner's own sign-up mail
    before = _accounts()

    taken = client.post("/api/auth/signup", json=doctor_payload(email="Owner@Example.com"))
    new = client.post("/api/auth/signup", json=doctor_payload(email="stranger@example.com"))

    assert taken.status_code == new.status_code == 202
    assert taken.json() == {"message": PENDING_MESSAGE, "data": {"email": "owner@example.com"}}
    assert new.json() == {"message": PENDING_MESSAGE, "data": {"email": "stranger@example.com"}}
    assert sorted(taken.headers.keys()) == sorted(new.headers.keys())
    assert "set-cookie" not in taken.headers and "set-cookie" not in new.headers
    assert _accounts() == before  # nothing made for either until a link is followed
    with session_scope() as s:
        waiting = s.scalars(select(PendingSignup.email).where(PendingSignup.used_at.is_(None))).all()
    assert waiting == ["stranger@example.com"]  # the taken address keeps no form

    mails = _mails(mail_log, worker, 2)
    subjects = sorted(subject for subject, _ in mails)
    assert subjects == [
        "Finish creating your Cara account",
        "Someone tried to sign up on Cara with your email",
    ]
    told = next(body for subject, body in mails if subject.startswith("Someone"))
    assert "/complete-signup" not in told and "already has one" in told


def test_the_mailed_link_makes_the_account_once_and_signs_the_doctor_in(
    client: Any, worker: Any, mail_log: pytest.LogCaptureFixture
) -> None:
    body = doctor_payload(email="new.doctor@example.com", password="secret1")
    assert client.post("/api/auth/signup", json=body).status_code == 202
    r = client.post("/api/auth/login", json={"email": body["email"], "password": "secret1", "role": "doctor"})
    assert r.status_code == 401  # no account before the link

    (_, mail), *_ = _mails(mail_log, worker, 1)
    token = _link_token(mail)
    assert (
        client.post("/api/auth/complete-signup", json={"token": "not-it"}).json()["message"] == LINK_INVALID
    )

    done = client.post("/api/auth/complete-signup", json={"token": token}, headers=BROWSER)
    assert done.status_code == 201, done.text
    assert done.headers["set-cookie"].startswith("cara_session=")
    me = client.get("/api/auth/user", headers=auth(done.json()["data"]["token"])).json()
    assert (me["email"], me["role"], me["specialty"], me["emailVerified"]) == (
        "new.doctor@example.com",
        "doctor",
        "Radiologist",
        True,
    )
    again = client.post("/api/auth/complete-signup", json={"token": token})
    assert (again.status_code, again.json()["message"]) == (400, LINK_INVALID)
    assert _accounts() == 1
    r = client.post("/api/auth/login", json={"email": body["email"], "password": "secret1", "role": "doctor"})
    assert r.status_code == 200, r.text  # the password given at sign-up, hashed then, signs in


def test_a_hospital_is_made_by_its_link_verified_and_without_a_session(
    client: Any, worker: Any, mail_log: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(get_settings(), "hospital_email_verification", True)
    body = hospital_payload(email="clinic@example.com")
    assert client.post("/api/auth/signup", json=body, headers=BROWSER).status_code == 202
    assert _hospital_schemas() == 0

    (_, mail), *_ = _mails(mail_log, worker, 1)
    done = client.post("/api/auth/complete-signup", json={"token": _link_token(mail)}, headers=BROWSER)
    assert done.status_code == 201, done.text
    assert "set-cookie" not in done.headers  # a hospital signs in from its login page
    assert done.json()["data"]["user"]["emailVerified"] is True  # the link proved the address
    assert _hospital_schemas() == 1
    assert len(_mails(mail_log, worker, 2)) == 1  # no second "verify your email" mail


def test_an_expired_link_or_an_address_taken_meanwhile_makes_nothing(client: Any) -> None:
    first = doctor_payload(email="late@example.com")
    assert client.post("/api/auth/signup", json=first).status_code == 202
    with session_scope() as s:
        s.execute(update(PendingSignup).values(expires_at=utcnow() - timedelta(minutes=1)))
    with pytest.raises(AssertionError, match=LINK_INVALID):
        follow_signup_link(client, "late@example.com")
    assert _accounts() == 0

    # Two sign-ups of one address: the first link followed makes the account; the other is
    # then answered 409 (its follower owns the mailbox) and makes nothing.
    for _ in range(2):
        assert (
            client.post("/api/auth/signup", json=doctor_payload(email="twice@example.com")).status_code == 202
        )
    follow_signup_link(client, "twice@example.com")
    with pytest.raises(AssertionError, match="already exists"):
        follow_signup_link(client, "twice@example.com")
    assert _accounts() == 1


def test_sign_up_mails_to_one_address_are_capped_and_the_answer_stays_the_same(
    client: Any, worker: Any, mail_log: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(get_settings(), "rate_limit_signup_email", "2 per hour")
    answers = [
        client.post("/api/auth/signup", json=doctor_payload(email="inbox@example.com")).status_code
        for _ in range(5)
    ]
    assert answers == [202] * 5
    time.sleep(0.5)
    assert len(_mails(mail_log, worker, 3)) == 2
