"""Password reset: request, mailed link (through the worker), single use, expiry."""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from cara.kit.db import session_scope
from cara.models import Account, PasswordReset
from cara.models.base import utcnow
from tests.factories import auth, doctor_payload, hospital_payload, signup


def _mailed_link(caplog: pytest.LogCaptureFixture) -> str:
    for record in caplog.records:
        body = getattr(record, "mail_body", "")
        if "/forgot-password?token=" in body:  # not the sign-up link's mail
            return str(body.split("/forgot-password?token=")[1].split()[0])
    raise AssertionError("no reset mail was written to the log")


def _request_reset(client: Any, email: str, worker: Any, caplog: pytest.LogCaptureFixture) -> str:
    caplog.set_level(logging.INFO, logger="cara.mail")
    r = client.post("/api/auth/forgot-password", json={"email": email})
    assert r.status_code == 202
    worker.join("mail", timeout=10_000)
    deadline = time.time() + 5
    while time.time() < deadline:
        with session_scope() as s:
            if s.scalar(select(PasswordReset.mailed_at).where(PasswordReset.mailed_at.is_not(None))):
                break
        time.sleep(0.05)
    return _mailed_link(caplog)


class TestPasswordReset:
    def test_full_flow(self, client: Any, worker: Any, caplog: pytest.LogCaptureFixture) -> None:
        payload = doctor_payload()
        old = signup(client, payload)
        token = _request_reset(client, payload["email"], worker, caplog)

        r = client.post("/api/auth/reset-password", json={"token": token, "password": "brand-new-pass"})
        assert r.status_code == 200, r.text
        assert r.json()["message"] == "Your password has been reset. Please log in."

        login = client.post(
            "/api/auth/login",
            json={"email": payload["email"], "password": "brand-new-pass", "role": "doctor"},
        )
        assert login.status_code == 200
        old_login = client.post(
            "/api/auth/login",
            json={"email": payload["email"], "password": payload["password"], "role": "doctor"},
        )
        assert old_login.status_code == 401
        # tokens issued before the reset stop working
        assert client.get("/api/auth/user", headers=auth(old["token"])).status_code == 401
        # single use
        again = client.post("/api/auth/reset-password", json={"token": token, "password": "another-pass"})
        assert again.status_code == 400

    def test_unknown_email_gets_the_same_answer(self, client: Any) -> None:
        r = client.post("/api/auth/forgot-password", json={"email": "nobody@example.com"})
        assert r.status_code == 202
        with session_scope() as s:
            assert s.scalar(select(PasswordReset)) is None

    def test_expired_token_is_refused(
        self, client: Any, worker: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        payload = doctor_payload()
        signup(client, payload)
        token = _request_reset(client, payload["email"], worker, caplog)
        with session_scope() as s:
            s.execute(update(PasswordReset).values(expires_at=utcnow() - timedelta(minutes=1)))
        r = client.post("/api/auth/reset-password", json={"token": token, "password": "brand-new-pass"})
        assert r.status_code == 400
        assert "invalid or has expired" in r.json()["message"]

    def test_new_password_follows_role_minimum(
        self, client: Any, worker: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        payload = hospital_payload()
        signup(client, payload)
        token = _request_reset(client, payload["email"], worker, caplog)
        r = client.post("/api/auth/reset-password", json={"token": token, "password": "short"})
        assert r.status_code == 422
        assert r.json()["fields"]["password"] == "Password must be at least 8 characters"

    def test_a_reset_spends_only_that_accounts_links(self, client: Any) -> None:
        first, second = doctor_payload(), doctor_payload()
        signup(client, first)
        signup(client, second)
        tokens = {}
        with session_scope() as s:
            for payload, links in ((first, 2), (second, 1)):
                (account_id,) = s.execute(select(Account.id).where(Account.email == payload["email"])).one()
                for n in range(links):
                    token = secrets.token_urlsafe(16)
                    tokens[(payload["email"], n)] = token
                    s.add(
                        PasswordReset(
                            account_id=account_id,
                            token_hash=hashlib.sha256(token.encode()).hexdigest(),
                            expires_at=utcnow() + timedelta(hours=1),
                        )
                    )

        def reset(token: str) -> int:
            r = client.post("/api/auth/reset-password", json={"token": token, "password": "brand-new-pass"})
            return r.status_code

        assert reset(tokens[(first["email"], 0)]) == 200
        # The account's other link is spent with it; another account's link still works.
        assert reset(tokens[(first["email"], 1)]) == 400
        assert reset(tokens[(second["email"], 0)]) == 200

    def test_bad_token(self, client: Any) -> None:
        r = client.post("/api/auth/reset-password", json={"token": "nope", "password": "whatever-pass"})
        assert r.status_code == 400
