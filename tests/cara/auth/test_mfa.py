"""Two-factor sign-in: enrolment with a QR code, sign-in with a code or a one-time recovery
code, codes not accepted twice, wrong codes limited, disabling, admins required to enrol, and
a hospital's rule that its doctors enrol."""

from __future__ import annotations

import time
from typing import Any

import pyotp
import pytest
from sqlalchemy import select

from cara.auth import mfa
from cara.config import get_settings
from cara.kit.db import session_scope
from cara.models import Account, AuditEvent, MfaRecoveryCode
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup

PASSWORD = "secret1"  # doctor_payload's


def _login(client: Any, email: str, password: str = PASSWORD, role: str = "doctor", **headers: str) -> Any:
    return client.post(
        "/api/auth/login", json={"email": email, "password": password, "role": role}, headers=headers
    )


def _next_code(secret: str, after_step: int | None = None) -> tuple[str, int]:
    """A code of a time step later than `after_step`: the current one, or the next (a step
    either side of now is accepted for clock drift, so no waiting)."""
    totp = pyotp.TOTP(secret)
    step = int(time.time()) // totp.interval
    if after_step is not None and step <= after_step:
        step = after_step + 1
    return totp.generate_otp(step), step


def _enrol(client: Any, token: str) -> tuple[str, list[str], int]:
    setup = client.post("/api/auth/mfa/setup", headers=auth(token))
    assert setup.status_code == 200, setup.text
    secret = setup.json()["secret"]
    code, step = _next_code(secret)
    r = client.post("/api/auth/mfa/enable", json={"code": code}, headers=auth(token))
    assert r.status_code == 200, r.text
    return secret, r.json()["recoveryCodes"], step


def _audit_actions(account_id: str) -> list[str]:
    with session_scope() as s:
        return list(
            s.scalars(
                select(AuditEvent.action).where(AuditEvent.target_id == account_id).order_by(AuditEvent.id)
            )
        )


@pytest.fixture
def doctor(client: Any) -> dict[str, Any]:
    payload = doctor_payload()
    data = signup(client, payload)
    return {"email": payload["email"], "token": data["token"], "id": data["user"]["_id"]}


def test_enrolment_gives_a_qr_code_and_stores_the_secret_encrypted(
    client: Any, doctor: dict[str, Any]
) -> None:
    status = client.get("/api/auth/mfa", headers=auth(doctor["token"]))
    assert status.json() == {"enabled": False, "required": False, "recoveryCodesLeft": 0}
    setup = client.post("/api/auth/mfa/setup", headers=auth(doctor["token"])).json()
    assert setup["otpauthUri"].startswith("otpauth://totp/Cara:")
    assert f"secret={setup['secret']}" in setup["otpauthUri"]
    assert setup["qrCode"].startswith("data:image/svg+xml")
    # Not on before a first code confirms it; a wrong one is refused.
    assert _login(client, doctor["email"]).json()["message"] == "Login successful!"
    wrong = client.post("/api/auth/mfa/enable", json={"code": "000000"}, headers=auth(doctor["token"]))
    assert wrong.status_code == 422 and wrong.json()["fields"]["code"] == mfa.WRONG_CODE
    code, _ = _next_code(setup["secret"])
    r = client.post("/api/auth/mfa/enable", json={"code": code}, headers=auth(doctor["token"]))
    assert r.status_code == 200, r.text
    codes = r.json()["recoveryCodes"]
    assert len(codes) == 10 and len(set(codes)) == 10
    with session_scope() as s:
        account = s.get(Account, doctor["id"])
        assert account is not None and account.mfa_secret is not None
        assert setup["secret"] not in account.mfa_secret  # encrypted at rest
        assert mfa.decrypt(account.mfa_secret) == setup["secret"]
        hashes = set(
            s.scalars(select(MfaRecoveryCode.code_hash).where(MfaRecoveryCode.account_id == account.id))
        )
        assert len(hashes) == 10 and not {c.replace("-", "") for c in codes} & hashes
    status = client.get("/api/auth/mfa", headers=auth(doctor["token"])).json()
    assert status == {"enabled": True, "required": False, "recoveryCodesLeft": 10}
    assert "account.mfa_enabled" in _audit_actions(doctor["id"])


def test_sign_in_needs_a_code_and_a_code_works_once(client: Any, doctor: dict[str, Any]) -> None:
    secret, _, step = _enrol(client, doctor["token"])
    first = _login(client, doctor["email"])
    assert first.status_code == 200
    body = first.json()
    assert body["mfaRequired"] == "code" and "token" not in body and "user" not in body
    # The challenge is no bearer token.
    assert client.get("/api/auth/user", headers=auth(body["challenge"])).status_code == 401
    wrong = client.post("/api/auth/login/mfa", json={"challenge": body["challenge"], "code": "123456"})
    assert wrong.status_code == 422
    # The code used to enrol is not accepted again.
    used = pyotp.TOTP(secret).generate_otp(step)
    again = client.post("/api/auth/login/mfa", json={"challenge": body["challenge"], "code": used})
    assert again.status_code == 422
    code, _ = _next_code(secret, after_step=step)
    r = client.post("/api/auth/login/mfa", json={"challenge": body["challenge"], "code": code})
    assert r.status_code == 200, r.text
    assert r.json()["message"] == "Login successful!"
    assert client.get("/api/auth/user", headers=auth(r.json()["token"])).json()["email"] == doctor["email"]
    # The same code a second time, even with a new challenge: refused.
    second = _login(client, doctor["email"]).json()["challenge"]
    reuse = client.post("/api/auth/login/mfa", json={"challenge": second, "code": code})
    assert reuse.status_code == 422 and reuse.json()["fields"]["code"] == mfa.WRONG_CODE


def test_browser_sign_in_with_a_code_starts_a_cookie_session(client: Any, doctor: dict[str, Any]) -> None:
    secret, _, step = _enrol(client, doctor["token"])
    challenge = _login(client, doctor["email"], **{"X-Requested-With": "XMLHttpRequest"}).json()["challenge"]
    assert "cara_session" not in client.cookies
    code, _ = _next_code(secret, after_step=step)
    r = client.post(
        "/api/auth/login/mfa",
        json={"challenge": challenge, "code": code},
        headers={"X-Requested-With": "XMLHttpRequest"},
    )
    assert r.status_code == 200, r.text
    assert "cara_session=" in r.headers["set-cookie"] and "HttpOnly" in r.headers["set-cookie"]


def test_a_recovery_code_works_once(client: Any, doctor: dict[str, Any]) -> None:
    _, codes, _ = _enrol(client, doctor["token"])
    challenge = _login(client, doctor["email"]).json()["challenge"]
    r = client.post("/api/auth/login/mfa", json={"challenge": challenge, "code": codes[3].upper()})
    assert r.status_code == 200, r.text
    challenge = _login(client, doctor["email"]).json()["challenge"]
    again = client.post("/api/auth/login/mfa", json={"challenge": challenge, "code": codes[3]})
    assert again.status_code == 422
    status = client.get("/api/auth/mfa", headers=auth(r.json()["token"])).json()
    assert status["recoveryCodesLeft"] == 9
    assert "account.mfa_recovery_code_used" in _audit_actions(doctor["id"])


def test_wrong_codes_are_limited(
    client: Any, doctor: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(get_settings(), "rate_limit_mfa_account", "3 per 15 minutes")
    secret, _, step = _enrol(client, doctor["token"])
    challenge = _login(client, doctor["email"]).json()["challenge"]
    for _ in range(3):
        r = client.post("/api/auth/login/mfa", json={"challenge": challenge, "code": "111111"})
        assert r.status_code == 422
    code, _ = _next_code(secret, after_step=step)
    limited = client.post("/api/auth/login/mfa", json={"challenge": challenge, "code": code})
    assert limited.status_code == 429, limited.text
    assert int(limited.headers["retry-after"]) > 0
    assert limited.json()["message"].startswith("Too many wrong codes")


def test_bad_challenges_are_refused(client: Any, doctor: dict[str, Any]) -> None:
    _enrol(client, doctor["token"])
    for challenge in (None, "", "nonsense", doctor["token"]):
        r = client.post("/api/auth/login/mfa", json={"challenge": challenge, "code": "123456"})
        assert r.status_code == 401, (challenge, r.text)
    # A code challenge cannot enrol, and the password changing voids it.
    challenge = _login(client, doctor["email"]).json()["challenge"]
    assert client.post("/api/auth/login/mfa/setup", json={"challenge": challenge}).status_code == 401


def test_disable_needs_password_and_code(client: Any, doctor: dict[str, Any]) -> None:
    secret, codes, step = _enrol(client, doctor["token"])
    code, _ = _next_code(secret, after_step=step)
    no_password = client.post(
        "/api/auth/mfa/disable",
        json={"currentPassword": "wrong-one", "code": code},
        headers=auth(doctor["token"]),
    )
    assert no_password.status_code == 422 and "currentPassword" in no_password.json()["fields"]
    no_code = client.post(
        "/api/auth/mfa/disable",
        json={"currentPassword": PASSWORD, "code": "000000"},
        headers=auth(doctor["token"]),
    )
    assert no_code.status_code == 422 and "code" in no_code.json()["fields"]
    r = client.post(
        "/api/auth/mfa/disable",
        json={"currentPassword": PASSWORD, "code": codes[0]},
        headers=auth(doctor["token"]),
    )
    assert r.status_code == 200, r.text
    assert _login(client, doctor["email"]).json()["message"] == "Login successful!"
    assert "account.mfa_disabled" in _audit_actions(doctor["id"])


def test_hospital_rule_makes_its_doctors_enrol_at_next_sign_in(client: Any) -> None:
    hospital = signup(client, hospital_payload())
    staff = doctor_payload(isHospitalCreated=True)
    add_staff(client, staff, hospital["token"])
    assert _login(client, staff["email"]).json()["message"] == "Login successful!"
    # Only the hospital sets its rule.
    doctor_token = _login(client, staff["email"]).json()["token"]
    assert (
        client.put(
            "/api/auth/mfa/policy", json={"requireForDoctors": True}, headers=auth(doctor_token)
        ).status_code
        == 403
    )
    r = client.put("/api/auth/mfa/policy", json={"requireForDoctors": True}, headers=auth(hospital["token"]))
    assert r.status_code == 200 and r.json() == {"requireForDoctors": True}
    assert (
        client.get("/api/auth/mfa/policy", headers=auth(hospital["token"])).json()["requireForDoctors"]
        is True
    )
    events = client.get("/api/doctors/audit-events", headers=auth(hospital["token"])).json()
    assert "settings.doctor_mfa_required" in str(events)

    body = _login(client, staff["email"]).json()
    assert body["mfaRequired"] == "enroll" and "token" not in body
    # The enrolment challenge is all it has: no bearer token, no way around the enrolment.
    assert client.get("/api/auth/user", headers=auth(body["challenge"])).status_code == 401
    assert (
        client.post("/api/auth/login/mfa", json={"challenge": body["challenge"], "code": "1"}).status_code
        == 401
    )
    setup = client.post("/api/auth/login/mfa/setup", json={"challenge": body["challenge"]})
    assert setup.status_code == 200, setup.text
    code, step = _next_code(setup.json()["secret"])
    done = client.post("/api/auth/login/mfa/enable", json={"challenge": body["challenge"], "code": code})
    assert done.status_code == 200, done.text
    assert len(done.json()["recoveryCodes"]) == 10
    me = client.get("/api/auth/user", headers=auth(done.json()["token"])).json()
    assert me["email"] == staff["email"]
    # From now on it signs in with a code, and cannot turn two-factor off while required.
    assert _login(client, staff["email"]).json()["mfaRequired"] == "code"
    code, _ = _next_code(setup.json()["secret"], after_step=step)
    off = client.post(
        "/api/auth/mfa/disable",
        json={"currentPassword": PASSWORD, "code": code},
        headers=auth(done.json()["token"]),
    )
    assert off.status_code == 403


def test_admins_must_enrol_before_anything_else(
    client: Any, admin_token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(get_settings(), "admin_mfa_required", True)
    body = _login(client, "root-admin@example.com", "root-password", role="admin").json()
    assert body["mfaRequired"] == "enroll" and "token" not in body
    assert client.get("/api/admin/stats", headers=auth(body["challenge"])).status_code == 401
    setup = client.post("/api/auth/login/mfa/setup", json={"challenge": body["challenge"]}).json()
    code, _ = _next_code(setup["secret"])
    done = client.post(
        "/api/auth/login/mfa/enable",
        json={"challenge": body["challenge"], "code": code},
        headers={"X-Requested-With": "XMLHttpRequest"},
    )
    assert done.status_code == 200, done.text
    assert done.json()["user"]["role"] == "admin"
    assert "cara_admin_session=" in done.headers["set-cookie"]
    status = client.get("/api/auth/mfa", headers=auth(done.json()["token"])).json()
    assert status == {"enabled": True, "required": True, "recoveryCodesLeft": 10}
    assert (
        _login(client, "root-admin@example.com", "root-password", role="admin").json()["mfaRequired"]
        == "code"
    )


def test_accounts_without_two_factor_keep_the_login_shape(client: Any, doctor: dict[str, Any]) -> None:
    body = _login(client, doctor["email"]).json()
    assert set(body) == {"message", "token", "user"}


def test_the_fuzzer_signs_an_admin_in_through_enrolment(
    client: Any, admin_token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ops/fuzz's admin account when the server requires two-factor of admins."""
    from cara_devstack import fuzz

    monkeypatch.setattr(get_settings(), "admin_mfa_required", True)
    login = {"email": "root-admin@example.com", "password": "root-password", "role": "admin"}
    token = fuzz._admin_token(client, login, None)
    assert client.get("/api/auth/user", headers=auth(token)).json()["role"] == "admin"
    with pytest.raises(SystemExit, match="admin-totp-secret"):
        fuzz._admin_token(client, login, None)


def test_an_admin_session_without_two_factor_cannot_use_the_console(
    client: Any, admin_token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session from before the rule (or an invited admin's sign-up) gets 403 on the console
    until it enrols; the enrolment endpoints stay open to it."""
    monkeypatch.setattr(get_settings(), "admin_mfa_required", True)
    refused = client.get("/api/admin/stats", headers=auth(admin_token))
    assert refused.status_code == 403 and "two-factor" in refused.json()["message"]
    _enrol(client, admin_token)
    assert client.get("/api/admin/stats", headers=auth(admin_token)).status_code == 200
