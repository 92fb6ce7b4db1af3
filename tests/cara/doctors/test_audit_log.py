"""A hospital's security page: its own audit log, newest first, filtered, a page at a time."""

from __future__ import annotations

from typing import Any

from tests.cara.doctors.conftest import HospitalAccount, doctor_form, new_hospital
from tests.factories import auth, doctor_payload, signup

URL = "/api/doctors/audit-events"


def _all_pages(client: Any, hospital: HospitalAccount, **params: Any) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = {**params, "limit": 2, **({"cursor": cursor} if cursor else {})}
        r = client.get(URL, params=query, headers=hospital.headers)
        assert r.status_code == 200, r.text
        page = r.json()
        assert len(page["items"]) <= 2
        entries += page["items"]
        cursor = page["nextCursor"]
        if not cursor:
            return entries


def test_the_hospital_reads_its_own_log(client: Any, hospital: HospitalAccount) -> None:
    added = [
        client.post("/api/doctors/new-doctor", json=doctor_form(n=n), headers=hospital.headers).json()
        for n in (1, 2, 3)
    ]
    first = added[0]["_id"]
    client.put(f"/api/doctors/{first}", json={"name": "Dr Renamed"}, headers=hospital.headers)
    client.put(f"/api/doctors/{first}", json={"isActive": False}, headers=hospital.headers)
    client.put("/api/consultations/settings", json={"retentionDays": 30}, headers=hospital.headers)

    entries = _all_pages(client, hospital)
    actions = [e["action"] for e in entries]
    assert actions.count("doctor.created") == 3
    assert {"doctor.updated", "doctor.deactivated", "record_settings.update"} <= set(actions)
    ids = [int(e["id"]) for e in entries]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == len(ids)  # newest first, no repeats
    created = next(e for e in entries if e["action"] == "doctor.created")
    assert created["actorName"] and created["actorId"] == hospital.account_id

    doctors_only = _all_pages(client, hospital, group="doctor")
    assert doctors_only and all(e["action"].startswith("doctor.") for e in doctors_only)
    assert _all_pages(client, hospital, actor=added[1]["_id"]) == []
    assert _all_pages(client, hospital, **{"from": "2000-01-01", "to": "2000-01-02"}) == []


def test_another_hospital_and_other_roles_see_nothing_of_it(client: Any, hospital: HospitalAccount) -> None:
    client.post("/api/doctors/new-doctor", json=doctor_form(n=9), headers=hospital.headers)
    other = new_hospital(client)
    assert _all_pages(client, other) == []
    doctor = signup(client, doctor_payload())
    assert client.get(URL, headers=auth(doctor["token"])).status_code == 403
    assert client.get(URL).status_code == 401


def test_bad_cursor_and_filters_are_4xx(client: Any, hospital: HospitalAccount) -> None:
    assert client.get(URL, params={"cursor": "nope"}, headers=hospital.headers).status_code == 400
    assert client.get(URL, params={"actor": "not-a-uuid"}, headers=hospital.headers).status_code == 422
    assert client.get(URL, params={"group": "billing"}, headers=hospital.headers).status_code == 422
    assert client.get(URL, params={"limit": 0}, headers=hospital.headers).status_code == 422


def test_entries_about_a_doctor_name_the_doctor(client: Any, hospital: HospitalAccount) -> None:
    added = client.post("/api/doctors/new-doctor", json=doctor_form(n=4), headers=hospital.headers).json()
    client.put(f"/api/doctors/{added['_id']}", json={"name": "Dr Efua Sarpong"}, headers=hospital.headers)
    entries = _all_pages(client, hospital, group="doctor")
    about = [e for e in entries if e["targetType"] == "doctor" and e["targetId"] == added["_id"]]
    assert about and all(e["targetName"] == "Dr Efua Sarpong" for e in about), about
    # Settings have no person behind them: no name.
    client.put("/api/consultations/settings", json={"retentionDays": 30}, headers=hospital.headers)
    settings = next(e for e in _all_pages(client, hospital) if e["action"] == "record_settings.update")
    assert settings["targetName"] is None
