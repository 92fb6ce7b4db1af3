"""GET /api/admin/ai-usage: live AI minutes and tokens per hospital, from the per-tenant daily counts
of cara.live.usage (Redis); admins only; react-admin list conventions."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from cara.auth.tokens import decode
from cara.live import usage
from tests.factories import auth, doctor_payload, hospital_payload, signup

URL = "/api/admin/ai-usage"


def schema_of(token: str) -> str:
    claims = decode(token)
    assert claims is not None and claims.tenant_schema is not None
    return claims.tenant_schema


def get(client: Any, token: str, **params: Any) -> Any:
    return client.get(URL, params={k: json.dumps(v) for k, v in params.items()}, headers=auth(token))


@pytest.fixture
def used(client: Any) -> dict[str, Any]:
    korle = signup(client, hospital_payload(name="Korle Bu Hospital"))
    ridge = signup(client, hospital_payload(name="Ridge Hospital"))
    quiet = signup(client, hospital_payload(name="Quiet Hospital"))
    independent = signup(client, doctor_payload())
    today = datetime.now(UTC).date()
    usage.add(schema_of(korle["token"]), tokens=12_000, seconds=600, day=today)
    usage.add(schema_of(korle["token"]), tokens=3_000, seconds=150, day=today - timedelta(days=3))
    usage.add(schema_of(korle["token"]), tokens=99_999, seconds=9_999, day=today - timedelta(days=35))
    usage.add(schema_of(ridge["token"]), tokens=40_000, seconds=90, day=today - timedelta(days=1))
    usage.add(schema_of(independent["token"]), tokens=500, seconds=30, day=today)
    return {"korle": korle, "ridge": ridge, "quiet": quiet, "today": today}


def test_minutes_and_tokens_per_hospital(client: Any, admin_token: str, used: dict[str, Any]) -> None:
    r = get(client, admin_token)
    assert r.status_code == 200, r.text
    rows = {row["name"]: row for row in r.json()}
    korle = rows["Korle Bu Hospital"]
    hospitals = client.get("/api/admin/hospitals", headers=auth(admin_token)).json()
    assert korle["kind"] == "hospital"
    assert korle["id"] == next(h["id"] for h in hospitals if h["name"] == "Korle Bu Hospital")
    # The last 30 days: the count of 35 days ago is left out.
    assert (korle["tokens"], korle["aiMinutes"]) == (15_000, 12.5)
    assert (rows["Ridge Hospital"]["tokens"], rows["Ridge Hospital"]["aiMinutes"]) == (40_000, 1.5)
    assert (rows["Quiet Hospital"]["tokens"], rows["Quiet Hospital"]["aiMinutes"]) == (0, 0.0)
    assert rows["Independent doctors"] == {
        **rows["Independent doctors"],
        "id": "independent",
        "kind": "independent",
        "tokens": 500,
        "aiMinutes": 0.5,
    }
    assert korle["toDate"] == used["today"].isoformat()
    assert korle["fromDate"] == (used["today"] - timedelta(days=29)).isoformat()
    # Most tokens first by default, with the whole count in Content-Range.
    assert [row["name"] for row in r.json()][:2] == ["Ridge Hospital", "Korle Bu Hospital"]
    assert r.headers["Content-Range"].endswith(f"/{len(rows)}")


def test_period_sort_and_pages(client: Any, admin_token: str, used: dict[str, Any]) -> None:
    today_only = {row["name"]: row for row in get(client, admin_token, filter={"days": 1}).json()}
    assert today_only["Korle Bu Hospital"]["tokens"] == 12_000 and today_only["Ridge Hospital"]["tokens"] == 0
    by_minutes = get(client, admin_token, sort=["aiMinutes", "DESC"], range=[0, 0])
    assert [row["name"] for row in by_minutes.json()] == ["Korle Bu Hospital"]
    assert by_minutes.headers["Content-Range"].startswith("ai-usage 0-0/")
    by_name = [row["name"] for row in get(client, admin_token, sort=["name", "ASC"]).json()]
    assert by_name == sorted(by_name, key=str.lower)


@pytest.mark.parametrize(
    "params",
    [
        {"filter": {"days": 0}},
        {"filter": {"days": 41}},
        {"filter": {"days": "7"}},
        {"filter": {"days": True}},
        {"sort": ["email", "ASC"]},
    ],
)
def test_bad_parameters_are_4xx(client: Any, admin_token: str, params: dict[str, Any]) -> None:
    r = get(client, admin_token, **params)
    assert r.status_code in (400, 422), r.text
    assert "message" in r.json()


def test_admins_only(client: Any) -> None:
    hospital = signup(client, hospital_payload())
    doctor = signup(client, doctor_payload())
    assert client.get(URL).status_code == 401
    for token in (hospital["token"], doctor["token"]):
        assert client.get(URL, headers=auth(token)).status_code == 403


def test_counts_unavailable_is_503(client: Any, admin_token: str, monkeypatch: Any) -> None:
    import redis

    def down(*_: Any) -> Any:
        raise redis.ConnectionError("down")

    monkeypatch.setattr(usage, "of_day", down)
    r = get(client, admin_token)
    assert r.status_code == 503 and r.json()["message"]


def test_pages_follow_one_order(client: Any, admin_token: str, used: dict[str, Any]) -> None:
    """Pages of two, put together, are the whole list in its order (most tokens, then name), and
    each page carries the whole count."""
    signup(client, hospital_payload(name="Another Quiet Hospital"))
    whole = get(client, admin_token, range=[0, 99])
    rows = [(row["tokens"], row["name"].lower()) for row in whole.json()]
    assert rows == sorted(rows, reverse=True) and len(rows) == 5  # four hospitals, the independents
    paged = []
    for start in range(0, 8, 2):
        page = get(client, admin_token, range=[start, start + 1])
        assert page.status_code == 200
        if page.json():
            assert page.headers["Content-Range"] == f"ai-usage {start}-{start + len(page.json()) - 1}/5"
        else:
            assert page.headers["Content-Range"] == "ai-usage */5"
        paged += page.json()
    assert paged == whole.json()
