"""The doctor list is one statement whatever the number of doctors (no query per doctor)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from cara.kit.db import get_engine
from tests.cara.doctors.conftest import HospitalAccount, doctor_form, new_hospital


@contextmanager
def counted_statements() -> Iterator[list[str]]:
    statements: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    engine = get_engine()
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", record)


def list_statements(client: Any, hospital: HospitalAccount) -> list[str]:
    with counted_statements() as statements:
        r = client.get("/api/doctors", params={"hospitalId": hospital.hospital_id}, headers=hospital.headers)
        assert r.status_code == 200
    return statements


def test_same_statements_for_one_and_many_doctors(client: Any) -> None:
    hospital = new_hospital(client, plan="hospital-gold")  # 50 doctors
    client.post("/api/doctors/new-doctor", json=doctor_form(n=1), headers=hospital.headers)
    one = list_statements(client, hospital)
    for n in range(2, 13):
        r = client.post("/api/doctors/new-doctor", json=doctor_form(n=n), headers=hospital.headers)
        assert r.status_code == 201
    many = list_statements(client, hospital)
    assert len(client.get("/api/doctors", headers=hospital.headers).json()) == 12
    assert len(many) == len(one), "\n".join(many)
    # Of those, the doctors come from a single SELECT joining accounts to profiles (the other
    # join is the list's version, an aggregate: see cara.doctors.list_cache).
    doctor_selects = [s for s in many if "FROM platform.accounts JOIN" in s and "count(*)" not in s]
    assert len(doctor_selects) == 1, many


def test_an_unchanged_list_is_not_read_again(client: Any) -> None:
    hospital = new_hospital(client)
    client.post("/api/doctors/new-doctor", json=doctor_form(n=1), headers=hospital.headers)
    list_statements(client, hospital)  # builds it
    again = list_statements(client, hospital)
    assert [s for s in again if "ORDER BY platform.accounts.name" in s] == []


def test_etag_answers_304_until_the_list_changes(client: Any) -> None:
    hospital = new_hospital(client)
    doctor = client.post("/api/doctors/new-doctor", json=doctor_form(n=1), headers=hospital.headers).json()
    first = client.get("/api/doctors", headers=hospital.headers)
    etag = first.headers["etag"]
    assert first.headers["cache-control"] == "private, no-cache"
    same = client.get("/api/doctors", headers={**hospital.headers, "If-None-Match": etag})
    assert same.status_code == 304 and same.content == b""

    client.put(f"/api/doctors/{doctor['_id']}", json={"experience": 30}, headers=hospital.headers)
    changed = client.get("/api/doctors", headers={**hospital.headers, "If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag
    assert changed.json()[0]["experience"] == 30


def test_the_list_follows_every_kind_of_change(client: Any) -> None:
    """No stale list: adds, edits, status changes, the doctor's own profile edits, removals."""
    hospital = new_hospital(client)

    def names_and_state() -> list[tuple[str, bool, int]]:
        r = client.get("/api/doctors", headers=hospital.headers)
        return [(d["name"], d["isActive"], d["experience"]) for d in r.json()]

    a = client.post(
        "/api/doctors/new-doctor", json=doctor_form(n=1, name="A"), headers=hospital.headers
    ).json()
    assert names_and_state() == [("A", True, 7)]
    b = client.post(
        "/api/doctors/new-doctor", json=doctor_form(n=2, name="B"), headers=hospital.headers
    ).json()
    assert names_and_state() == [("A", True, 7), ("B", True, 7)]
    client.put(f"/api/doctors/{a['_id']}", json={"isActive": False}, headers=hospital.headers)
    assert names_and_state() == [("A", False, 7), ("B", True, 7)]
    token = client.post(
        "/api/auth/login", json={"email": b["email"], "password": "kofi-secret", "role": "doctor"}
    ).json()["token"]
    r = client.put(
        "/api/auth/doctor/profile", json={"experience": 2}, headers={"Authorization": f"Bearer {token}"}
    )
    assert r.status_code == 200
    assert names_and_state() == [("A", False, 7), ("B", True, 2)]
    client.request("DELETE", f"/api/doctors/{a['_id']}", headers=hospital.headers)
    assert names_and_state() == [("B", True, 2)]
