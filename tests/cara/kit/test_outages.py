"""A database or Redis that cannot be reached answers 503 with Retry-After, not a 500."""

from __future__ import annotations

from typing import Any

import pytest

from cara.billing import service
from cara.kit.db import make_engine
from cara.kit.handlers import UNAVAILABLE
from tests.factories import auth, hospital_payload, signup


@pytest.fixture
def hospital(client: Any) -> dict[str, str]:
    return auth(signup(client, hospital_payload())["token"])


def test_database_unreachable_is_a_503(client: Any, hospital: dict[str, str], monkeypatch: Any) -> None:
    # A real connection failure from the driver: nothing listens on port 1.
    unreachable = make_engine("postgresql+psycopg://postgres@127.0.0.1:1/postgres", pool_size=1)

    def list_plans(*args: Any) -> Any:
        with unreachable.connect():
            raise AssertionError("port 1 answered")

    monkeypatch.setattr(service, "list_plans", list_plans)
    r = client.get("/api/subscription/plans/hospital", headers=hospital)
    assert r.status_code == 503
    assert r.json() == {"message": UNAVAILABLE, "fields": {}}
    assert r.headers["Retry-After"] == "5"


def test_redis_unreachable_is_a_503(client: Any, hospital: dict[str, str], monkeypatch: Any) -> None:
    import redis

    unreachable = redis.Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.5)
    monkeypatch.setattr(service, "list_plans", lambda *args: unreachable.get("any"))
    r = client.get("/api/subscription/plans/hospital", headers=hospital)
    assert r.status_code == 503
    assert r.json()["message"] == UNAVAILABLE


def test_other_errors_stay_500(app: Any, hospital: dict[str, str], monkeypatch: Any) -> None:
    from fastapi.testclient import TestClient

    def broken(*args: Any) -> Any:
        raise KeyError("bug")

    monkeypatch.setattr(service, "list_plans", broken)
    unguarded = TestClient(app, raise_server_exceptions=False)
    r = unguarded.get("/api/subscription/plans/hospital", headers=hospital)
    assert r.status_code == 500
    assert "Retry-After" not in r.headers


def test_sign_in_while_redis_is_down_is_a_503(client: Any, monkeypatch: Any) -> None:
    """Login throttling lives in Redis: without it sign-in is refused as temporary, not as a bug."""
    from cara.kit import throttle
    from tests.factories import doctor_payload

    payload = doctor_payload()
    signup(client, payload)
    unreachable = throttle._limiter("redis://127.0.0.1:1/0")
    monkeypatch.setattr(throttle, "limiter", lambda: unreachable)
    body = {"email": payload["email"], "password": payload["password"], "role": "doctor"}
    r = client.post("/api/auth/login", json=body)
    assert r.status_code == 503
    assert r.json()["message"] == UNAVAILABLE
