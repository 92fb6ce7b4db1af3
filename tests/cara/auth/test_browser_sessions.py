"""Browser sessions: short-lived access tokens renewed from a rotating HttpOnly refresh cookie."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from cara.auth import tokens
from cara.config import get_settings
from cara.kit.db import session_scope
from cara.models import SessionFamily
from cara.models.base import utcnow
from tests.factories import auth, doctor_payload, hospital_payload, open_signup_link, signup

BROWSER = {"X-Requested-With": "XMLHttpRequest"}
PASSWORD = "password-long"


@pytest.fixture
def settings() -> Iterator[Any]:
    s = get_settings()
    saved = (s.refresh_reuse_grace_seconds, s.session_cookie_secure, s.access_token_ttl_minutes)
    yield s
    s.refresh_reuse_grace_seconds, s.session_cookie_secure, s.access_token_ttl_minutes = saved


def _doctor(client: Any) -> dict[str, Any]:
    payload = doctor_payload(password=PASSWORD)
    signup(client, payload)
    return payload


def _browser_login(client: Any, email: str, role: str = "doctor", password: str = PASSWORD) -> Any:
    r = client.post(
        "/api/auth/login", json={"email": email, "password": password, "role": role}, headers=BROWSER
    )
    assert r.status_code == 200, r.text
    return r


def _refresh(client: Any, app: str = "web", headers: dict[str, str] | None = None) -> Any:
    return client.post(f"/api/auth/refresh?app={app}", headers=BROWSER if headers is None else headers)


def _put(client: Any, name: str, value: str | None) -> None:
    """The cookie jar holding exactly this value for `name` (as a replaying thief's would)."""
    domain = next((c.domain for c in client.cookies.jar if c.name == name), "testserver.local")
    client.cookies.delete(name)
    client.cookies.set(name, value or "", domain=domain, path="/api/auth/refresh")


def _set_cookie(response: Any) -> str:
    """The one session cookie set (a sign-in also sets the device cookie, `cara_device`: see
    tests/cara/auth/test_lockout.py)."""
    found = [
        v
        for k, v in response.headers.multi_items()
        if k.lower() == "set-cookie" and not v.startswith("cara_device=")
    ]
    assert len(found) == 1, found
    return str(found[0])


def test_browser_login_sets_an_httponly_strict_cookie_and_a_short_token(client: Any) -> None:
    payload = _doctor(client)
    r = _browser_login(client, payload["email"])
    cookie = _set_cookie(r)
    assert cookie.startswith("cara_session=")
    lowered = cookie.lower()
    assert "httponly" in lowered and "samesite=strict" in lowered and "path=/api/auth/refresh" in lowered
    assert "secure" not in lowered.replace("samesite", "")  # plain http in the test client
    body = r.json()
    assert set(body) == {"message", "token", "user"}
    assert body["message"] == "Login successful!"
    claims = tokens.decode(body["token"])
    assert claims is not None and claims.family_id is not None
    lifetime = claims.expires_at - claims.issued_at_ms // 1000
    assert lifetime == get_settings().access_token_ttl_minutes * 60
    assert client.get("/api/auth/user", headers=auth(body["token"])).status_code == 200


def test_secure_flag_when_configured(client: Any, settings: Any) -> None:
    settings.session_cookie_secure = True
    payload = _doctor(client)
    r = client.post(
        "/api/auth/login",
        json={"email": payload["email"], "password": PASSWORD, "role": "doctor"},
        headers=BROWSER,
    )
    assert "; secure" in _set_cookie(r).lower()


def test_api_clients_keep_the_bearer_token_and_get_no_cookie(client: Any) -> None:
    payload = _doctor(client)
    r = client.post(
        "/api/auth/login", json={"email": payload["email"], "password": PASSWORD, "role": "doctor"}
    )
    assert r.status_code == 200
    assert "set-cookie" not in r.headers
    claims = tokens.decode(r.json()["token"])
    assert claims is not None and claims.family_id is None
    assert claims.expires_at - claims.issued_at_ms // 1000 == get_settings().jwt_ttl_minutes * 60


def test_refresh_rotates_and_returns_the_login_shape(client: Any) -> None:
    payload = _doctor(client)
    _browser_login(client, payload["email"])
    first = client.cookies.get("cara_session")
    r = _refresh(client)
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"message", "token", "user"}
    assert body["user"]["email"] == payload["email"]
    assert client.get("/api/auth/user", headers=auth(body["token"])).status_code == 200
    second = client.cookies.get("cara_session")
    assert second and second != first
    assert _refresh(client).status_code == 200


def test_reuse_of_a_rotated_token_revokes_the_family_and_its_access_tokens(
    client: Any, settings: Any
) -> None:
    settings.refresh_reuse_grace_seconds = 0
    payload = _doctor(client)
    _browser_login(client, payload["email"])
    stolen = client.cookies.get("cara_session")
    r = _refresh(client)
    assert r.status_code == 200
    access = r.json()["token"]
    legit = client.cookies.get("cara_session")
    # The thief replays the old token: refused, and the whole family dies.
    _put(client, "cara_session", stolen)
    assert _refresh(client).status_code == 401
    _put(client, "cara_session", legit)
    assert _refresh(client).status_code == 401
    assert client.get("/api/auth/user", headers=auth(access)).status_code == 401
    with session_scope() as session:
        family = session.scalars(select(SessionFamily)).one()
        assert family.revoked_at is not None


def test_a_concurrent_refresh_inside_the_grace_is_not_reuse(client: Any, settings: Any) -> None:
    settings.refresh_reuse_grace_seconds = 30
    payload = _doctor(client)
    _browser_login(client, payload["email"])
    old = client.cookies.get("cara_session")
    assert _refresh(client).status_code == 200
    new = client.cookies.get("cara_session")
    _put(client, "cara_session", old)
    r = _refresh(client)
    assert r.status_code == 200
    assert "set-cookie" not in r.headers  # the other tab's rotation stands
    _put(client, "cara_session", new)
    assert _refresh(client).status_code == 200


def test_logout_revokes_the_family_and_clears_the_cookie(client: Any) -> None:
    payload = _doctor(client)
    r = _browser_login(client, payload["email"])
    kept = client.cookies.get("cara_session")
    out = client.post("/api/auth/logout", headers=auth(r.json()["token"]))
    assert out.status_code == 200
    cookie = _set_cookie(out)
    assert cookie.startswith('cara_session=""') or "max-age=0" in cookie.lower()
    _put(client, "cara_session", kept)
    assert _refresh(client).status_code == 401


def test_expired_family_is_refused(client: Any) -> None:
    payload = _doctor(client)
    _browser_login(client, payload["email"])
    with session_scope() as session:
        session.execute(update(SessionFamily).values(expires_at=utcnow() - timedelta(seconds=1)))
    assert _refresh(client).status_code == 401


def test_password_change_revokes_every_family_but_renews_this_one(client: Any) -> None:
    payload = _doctor(client)
    other = client.__class__(client.app)
    _browser_login(other, payload["email"])
    r = _browser_login(client, payload["email"])
    change = client.post(
        "/api/auth/change-password",
        json={"currentPassword": PASSWORD, "newPassword": "another-password"},
        headers={**auth(r.json()["token"]), **BROWSER},
    )
    assert change.status_code == 200, change.text
    assert _set_cookie(change).startswith("cara_session=")
    assert _refresh(client).status_code == 200
    assert _refresh(other).status_code == 401


def test_clinician_and_admin_sessions_are_separate(client: Any, admin_token: str) -> None:
    client.cookies.clear()
    admin = _browser_login(client, "root-admin@example.com", role="admin", password="root-password")
    assert _set_cookie(admin).startswith("cara_admin_session=")
    payload = _doctor(client)
    _browser_login(client, payload["email"])
    web = _refresh(client, "web")
    console = _refresh(client, "admin")
    assert web.status_code == console.status_code == 200
    assert web.json()["user"]["role"] == "doctor"
    assert console.json()["user"]["role"] == "admin"
    # A clinician's token in the admin cookie is refused (and the other way round).
    _put(client, "cara_admin_session", client.cookies.get("cara_session"))
    assert _refresh(client, "admin").status_code == 401


def test_refresh_without_the_header_or_from_another_origin_is_refused(client: Any) -> None:
    payload = _doctor(client)
    _browser_login(client, payload["email"])
    no_header = _refresh(client, headers={})
    assert no_header.status_code == 403
    assert set(no_header.json()) == {"message", "fields"}
    cross = _refresh(client, headers={**BROWSER, "Origin": "https://evil.example"})
    assert cross.status_code == 403
    same = _refresh(client, headers={**BROWSER, "Origin": "http://testserver"})
    assert same.status_code == 200


def test_refresh_without_or_with_a_forged_cookie(client: Any) -> None:
    assert _refresh(client).status_code == 204  # signed out: nothing to restore
    _put(client, "cara_session", "not-a-token")
    assert _refresh(client).status_code == 401
    _put(client, "cara_session", "0" * 32 + ".x")
    assert _refresh(client).status_code == 401
    assert _refresh(client, "nobody").status_code == 422


def test_a_running_live_socket_outlives_its_access_token_but_not_its_session(client: Any) -> None:
    import uuid

    from cara.auth.principal import authenticate_token, session_for_token
    from cara.kit.errors import Unauthorized

    payload = _doctor(client)
    r = _browser_login(client, payload["email"])
    live = tokens.decode(r.json()["token"])
    assert live is not None and live.family_id is not None
    expired = tokens.issue(
        account_id=live.account_id,
        role="doctor",
        tenant_schema=live.tenant_schema,
        family_id=live.family_id,
        ttl_minutes=-1,
    )
    api_expired = tokens.issue(account_id=uuid.uuid4(), role="doctor", tenant_schema=None, ttl_minutes=-1)
    assert tokens.decode(expired) is None
    assert tokens.decode_running(expired) is not None
    assert tokens.decode_running(api_expired) is None
    session = session_for_token(expired, running=True)
    try:
        assert authenticate_token(session, expired, running=True).id == live.account_id
        client.post("/api/auth/logout", headers=auth(r.json()["token"]))
        with pytest.raises(Unauthorized):
            authenticate_token(session, expired, running=True)
    finally:
        session.close()


def test_a_browser_sign_up_starts_a_session_an_api_one_does_not(client: Any) -> None:
    """A doctor's sign-up is finished by its mailed link (POST /api/auth/complete-signup): from
    the browser app that starts the session, as a sign-in does."""
    assert (
        client.post("/api/auth/signup", json=doctor_payload(password=PASSWORD), headers=BROWSER).status_code
        == 202
    )
    data = open_signup_link(client, headers=BROWSER)
    assert _set_cookie(data).startswith("cara_session=")
    assert tokens.decode(data.json()["data"]["token"]).family_id is not None  # type: ignore[union-attr]
    assert _refresh(client).status_code == 200
    client.cookies.clear()
    assert client.post("/api/auth/signup", json=doctor_payload(password=PASSWORD)).status_code == 202
    plain = open_signup_link(client, headers={})
    assert plain.status_code == 201
    assert "set-cookie" not in plain.headers


def test_a_hospital_sign_up_starts_no_session(client: Any) -> None:
    """The spec sends a newly registered hospital to its login page: no cookie to skip it."""
    r = client.post("/api/auth/signup", json=hospital_payload(password=PASSWORD), headers=BROWSER)
    assert r.status_code == 202, r.text
    done = open_signup_link(client, headers=BROWSER)
    assert done.status_code == 201, done.text
    assert "set-cookie" not in r.headers and "set-cookie" not in done.headers
