"""Login, current user, logout, token expiry and revocation, throttling."""

from __future__ import annotations

import time
from typing import Any

import jwt
import pytest
from sqlalchemy import update

from cara.auth.principal import NO_PERMISSION
from cara.config import get_settings
from cara.kit.db import session_scope
from cara.kit.redis import get_redis
from cara.models import Account, Tenant
from tests.factories import auth, doctor_payload, hospital_payload, signup


def login(client: Any, email: str, password: str, role: str) -> Any:
    return client.post("/api/auth/login", json={"email": email, "password": password, "role": role})


class TestLogin:
    @pytest.mark.parametrize("role", ["doctor", "hospital"])
    def test_login_returns_token_and_user(self, client: Any, role: str) -> None:
        payload = doctor_payload() if role == "doctor" else hospital_payload()
        signup(client, payload)
        r = login(client, payload["email"].upper(), payload["password"], role)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["message"] == "Login successful!"
        assert body["user"]["email"] == payload["email"]
        assert body["user"]["role"] == role
        me = client.get("/api/auth/user", headers=auth(body["token"]))
        assert me.status_code == 200
        assert me.json()["_id"] == body["user"]["_id"]

    def test_doctor_user_carries_specialty_for_redirect(self, client: Any) -> None:
        payload = doctor_payload(specialty="General Practitioner")
        signup(client, payload)
        user = login(client, payload["email"], payload["password"], "doctor").json()["user"]
        assert user["specialty"] == "General Practitioner"
        assert user["licenseNumber"] == payload["licenseNumber"]

    def test_admin_login(self, client: Any, admin_token: str) -> None:
        me = client.get("/api/auth/user", headers=auth(admin_token))
        assert me.status_code == 200
        assert me.json()["role"] == "admin"

    def test_wrong_password_and_unknown_email_look_the_same(self, client: Any) -> None:
        payload = doctor_payload()
        signup(client, payload)
        a = login(client, payload["email"], "wrong-password", "doctor")
        b = login(client, "nobody@example.com", "wrong-password", "doctor")
        assert a.status_code == b.status_code == 401
        assert a.json() == b.json() == {"message": "Invalid email or password", "fields": {}}

    def test_wrong_role_is_refused(self, client: Any) -> None:
        payload = doctor_payload(password="password-long")
        signup(client, payload)
        r = login(client, payload["email"], payload["password"], "hospital")
        assert r.status_code == 401

    @pytest.mark.parametrize(
        ("body", "field", "message"),
        [
            ({"email": "", "password": "x", "role": "doctor"}, "email", "Email is required"),
            ({"email": "bad", "password": "x", "role": "doctor"}, "email", "Invalid email format"),
            ({"email": "a@b.co", "password": "", "role": "doctor"}, "password", "Password is required"),
            (
                {"email": "a@b.co", "password": "1234567", "role": "hospital"},
                "password",
                "Password must be at least 8 characters long",
            ),
            (
                {"email": "a@b.co", "password": "1234567", "role": "admin"},
                "password",
                "Password must be at least 8 characters long",
            ),
            ({"email": "a@b.co", "password": "x"}, "role", "Role is required"),
            ({"email": "a@b.co", "password": "x", "role": "root"}, "role", "Invalid role"),
        ],
    )
    def test_validation_messages(self, client: Any, body: dict[str, str], field: str, message: str) -> None:
        r = client.post("/api/auth/login", json=body)
        assert r.status_code == 422
        assert r.json()["fields"][field] == message

    def test_short_doctor_password_is_not_a_validation_error(self, client: Any) -> None:
        # Doctors may have 6-character passwords; only hospital/admin logins require 8.
        payload = doctor_payload(password="abcdef")
        signup(client, payload)
        assert login(client, payload["email"], "abcdef", "doctor").status_code == 200

    def test_throttled_after_repeated_failures(self, client: Any) -> None:
        payload = doctor_payload()
        signup(client, payload)
        limit = get_settings().login_max_failures
        for _ in range(limit):
            assert login(client, payload["email"], "wrong-pass", "doctor").status_code == 401
        r = login(client, payload["email"], payload["password"], "doctor")
        assert r.status_code == 429
        assert r.json()["message"].startswith("Too many failed login attempts")
        assert int(r.headers["retry-after"]) > 0

    def test_success_clears_failures(self, client: Any) -> None:
        payload = doctor_payload()
        signup(client, payload)
        for _ in range(get_settings().login_max_failures - 1):
            login(client, payload["email"], "wrong-pass", "doctor")
        assert login(client, payload["email"], payload["password"], "doctor").status_code == 200
        assert login(client, payload["email"], "wrong-pass", "doctor").status_code == 401
        assert login(client, payload["email"], payload["password"], "doctor").status_code == 200

    def test_deactivated_account_cannot_login_or_use_token(self, client: Any) -> None:
        payload = doctor_payload()
        data = signup(client, payload)
        with session_scope() as s:
            s.execute(update(Account).where(Account.email == payload["email"]).values(is_active=False))
        assert login(client, payload["email"], payload["password"], "doctor").status_code == 403
        assert client.get("/api/auth/user", headers=auth(data["token"])).status_code == 403

    def test_suspended_tenant_refuses_its_users(self, client: Any) -> None:
        payload = hospital_payload()
        data = signup(client, payload)
        with session_scope() as s:
            s.execute(update(Tenant).where(Tenant.kind == "hospital").values(status="suspended"))
        assert login(client, payload["email"], payload["password"], "hospital").status_code == 403
        assert client.get("/api/auth/user", headers=auth(data["token"])).status_code == 403


class TestTokens:
    def test_missing_token(self, client: Any) -> None:
        r = client.get("/api/auth/user")
        assert r.status_code == 401
        assert r.json()["message"] == "No authentication token found"

    def test_garbage_token(self, client: Any) -> None:
        r = client.get("/api/auth/user", headers=auth("not.a.jwt"))
        assert r.status_code == 401
        assert r.json()["message"] == "Authentication failed. Please log in again."

    def test_expired_token(self, client: Any) -> None:
        data = signup(client, doctor_payload())
        claims = jwt.decode(data["token"], options={"verify_signature": False})
        claims["exp"] = int(time.time()) - 5
        expired = jwt.encode(claims, get_settings().jwt_secret, algorithm="HS256")
        r = client.get("/api/auth/user", headers=auth(expired))
        assert r.status_code == 401

    def test_forged_signature(self, client: Any) -> None:
        data = signup(client, doctor_payload())
        claims = jwt.decode(data["token"], options={"verify_signature": False})
        forged = jwt.encode(claims, "another-secret-of-sufficient-length!!", algorithm="HS256")
        assert client.get("/api/auth/user", headers=auth(forged)).status_code == 401

    def test_tenant_claim_must_match_account(self, client: Any) -> None:
        a = signup(client, hospital_payload())
        b = signup(client, hospital_payload())
        claims_a = jwt.decode(a["token"], options={"verify_signature": False})
        claims_b = jwt.decode(b["token"], options={"verify_signature": False})
        claims_a["tnt"] = claims_b["tnt"]  # even with the signing key, a mismatched tenant is refused
        mixed = jwt.encode(claims_a, get_settings().jwt_secret, algorithm="HS256")
        assert client.get("/api/auth/user", headers=auth(mixed)).status_code == 401

    def test_logout_revokes_only_that_token(self, client: Any) -> None:
        payload = doctor_payload()
        signup(client, payload)
        t1 = login(client, payload["email"], payload["password"], "doctor").json()["token"]
        t2 = login(client, payload["email"], payload["password"], "doctor").json()["token"]
        r = client.post("/api/auth/logout", headers=auth(t1))
        assert r.status_code == 200
        assert r.json()["message"] == "Logged out successfully"
        assert client.get("/api/auth/user", headers=auth(t1)).status_code == 401
        assert client.get("/api/auth/user", headers=auth(t2)).status_code == 200
        # The revocation is kept as long as the token would have lived, and no longer.
        (key,) = get_redis().keys("cara:revoked-token:*")
        lifetime = get_settings().jwt_ttl_minutes * 60
        assert lifetime - 60 < get_redis().ttl(key) <= lifetime


class TestRoles:
    def test_role_restricted_endpoints_refuse_other_roles(self, client: Any) -> None:
        doctor = signup(client, doctor_payload())["token"]
        hospital = signup(client, hospital_payload())["token"]
        for method, path, token in (
            ("POST", "/api/admin/invitations", doctor),
            ("POST", "/api/admin/invitations", hospital),
            ("GET", "/api/doctors", doctor),
        ):
            r = client.request(method, path, json={"email": "x@example.com"}, headers=auth(token))
            assert (r.status_code, r.json()["message"]) == (403, NO_PERMISSION), (method, path)

    def test_hospital_user_carries_its_hospital(self, client: Any) -> None:
        payload = hospital_payload()
        token = signup(client, payload)["token"]
        me = client.get("/api/auth/user", headers=auth(token)).json()
        assert me["hospitalName"] == payload["name"]
        assert (me["country"], me["state"]) == (payload["country"], payload["state"])


class TestPasswordHashing:
    def test_argon2id_and_upgrade_on_login(self, client: Any) -> None:
        from argon2 import PasswordHasher

        payload = doctor_payload()
        signup(client, payload)
        with session_scope() as s:
            account = s.query(Account).filter_by(email=payload["email"]).one()
            assert account.password_hash.startswith("$argon2id$")
            assert "m=19456,t=2,p=1" in account.password_hash
            # an older, heavier parameter set still verifies and is upgraded at login
            account.password_hash = PasswordHasher(time_cost=3, memory_cost=65536, parallelism=4).hash(
                payload["password"]
            )
        assert login(client, payload["email"], payload["password"], "doctor").status_code == 200
        with session_scope() as s:
            account = s.query(Account).filter_by(email=payload["email"]).one()
            assert "m=19456,t=2,p=1" in account.password_hash
