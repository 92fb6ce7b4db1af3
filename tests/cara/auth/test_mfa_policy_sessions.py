"""A hospital's new two-factor rule ends the sessions of its doctors who have none enrolled:
their access tokens and refresh cookies stop working at once; doctors with two-factor, the
hospital itself and other hospitals' doctors keep theirs."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from cara.kit.db import session_scope
from cara.models import SessionFamily
from tests.cara.auth.test_mfa import PASSWORD, _enrol, _next_code
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup

BROWSER = {"X-Requested-With": "XMLHttpRequest"}


def _browser_login(client: Any, email: str, secret: str | None = None, after_step: int | None = None) -> Any:
    """A browser sign-in (with a code when `secret` is given): (access token, refresh cookie)."""
    body = {"email": email, "password": PASSWORD, "role": "doctor"}
    r = client.post("/api/auth/login", json=body, headers=BROWSER)
    assert r.status_code == 200, r.text
    if secret is not None:
        code, _ = _next_code(secret, after_step=after_step)
        r = client.post(
            "/api/auth/login/mfa", json={"challenge": r.json()["challenge"], "code": code}, headers=BROWSER
        )
        assert r.status_code == 200, r.text
    return r.json()["token"], r.cookies["cara_session"]


def _refresh(client: Any, cookie: str) -> Any:
    client.cookies.clear()
    client.cookies.set("cara_session", cookie, path="/api/auth/refresh")
    try:
        return client.post("/api/auth/refresh?app=web", headers=BROWSER)
    finally:
        client.cookies.clear()


def _staff(client: Any, hospital: dict[str, Any]) -> dict[str, Any]:
    payload = doctor_payload(isHospitalCreated=True)
    add_staff(client, payload, hospital["token"])
    return payload


def test_the_rule_ends_the_sessions_of_doctors_without_two_factor(client: Any) -> None:
    hospital = signup(client, hospital_payload())
    other_hospital = signup(client, hospital_payload())
    plain, enrolled = _staff(client, hospital), _staff(client, hospital)
    elsewhere = _staff(client, other_hospital)

    # The enrolled doctor turns two-factor on while it is optional, then signs in with a code.
    first = client.post(
        "/api/auth/login", json={"email": enrolled["email"], "password": PASSWORD, "role": "doctor"}
    ).json()["token"]
    secret, _, step = _enrol(client, first)
    sessions = {
        "plain": _browser_login(client, plain["email"]),
        "enrolled": _browser_login(client, enrolled["email"], secret, after_step=step),
        "elsewhere": _browser_login(client, elsewhere["email"]),
    }
    for token, _cookie in sessions.values():
        assert client.get("/api/auth/user", headers=auth(token)).status_code == 200

    r = client.put("/api/auth/mfa/policy", json={"requireForDoctors": True}, headers=auth(hospital["token"]))
    assert r.status_code == 200, r.text

    token, cookie = sessions["plain"]
    assert client.get("/api/auth/user", headers=auth(token)).status_code == 401
    assert _refresh(client, cookie).status_code == 401
    with session_scope() as s:
        families = s.scalars(select(SessionFamily.revoked_at).where(SessionFamily.app == "web")).all()
        assert any(revoked is not None for revoked in families)
    # Signing in again leads to enrolment, as for any doctor of the hospital.
    again = client.post(
        "/api/auth/login", json={"email": plain["email"], "password": PASSWORD, "role": "doctor"}
    )
    assert again.json()["mfaRequired"] == "enroll"

    for name in ("enrolled", "elsewhere"):
        token, cookie = sessions[name]
        assert client.get("/api/auth/user", headers=auth(token)).status_code == 200, name
        assert _refresh(client, cookie).status_code == 200, name
    # The hospital's own session, which made the change, goes on.
    assert client.get("/api/auth/user", headers=auth(hospital["token"])).status_code == 200
    # The audit entry counts the doctors signed out, naming none.
    events = client.get("/api/doctors/audit-events", headers=auth(hospital["token"])).json()
    assert '"doctorsSignedOut": 1' in str(events).replace("'", '"')


def test_turning_the_rule_off_or_setting_it_again_signs_no_one_out(client: Any) -> None:
    hospital = signup(client, hospital_payload())
    staff = _staff(client, hospital)
    policy = "/api/auth/mfa/policy"
    assert (
        client.put(policy, json={"requireForDoctors": True}, headers=auth(hospital["token"])).status_code
        == 200
    )
    assert (
        client.put(policy, json={"requireForDoctors": False}, headers=auth(hospital["token"])).status_code
        == 200
    )
    token, cookie = _browser_login(client, staff["email"])
    assert (
        client.put(policy, json={"requireForDoctors": False}, headers=auth(hospital["token"])).status_code
        == 200
    )
    assert client.get("/api/auth/user", headers=auth(token)).status_code == 200
    assert _refresh(client, cookie).status_code == 200
