"""A doctor edits their own profile: PUT /api/auth/doctor/profile (spec §2 "Doctor Profile")."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from cara.kit.db import session_scope
from cara.models import TenantAuditEvent
from tests.cara.doctors.conftest import doctor_form, new_hospital
from tests.factories import auth, doctor_payload, signup

WEEK = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


@pytest.fixture
def doctor(client: Any) -> dict[str, Any]:
    return signup(client, doctor_payload(name="Dr Ama Mensah", specialty="Radiologist"))


def put(client: Any, token: str, body: dict[str, Any]) -> Any:
    return client.put("/api/auth/doctor/profile", json=body, headers=auth(token))


def test_saves_every_section_and_returns_the_user(client: Any, doctor: dict[str, Any]) -> None:
    body = {
        "name": "Dr Ama K. Mensah",
        "email": doctor["user"]["email"].upper(),  # the same address: the email is not changed here
        "phoneNumber": "+233 24 000 1111",
        "specialty": "Radiotherapist",
        "licenseNumber": "MDC/RN/0042",
        "experience": 11,
        "certifications": [{"name": "FWACS Radiology", "issuer": "WACS", "date": "2016-03-01"}],
        "workHistory": [
            {
                "hospital": "Korle Bu Teaching Hospital",
                "position": "Senior Registrar",
                "startDate": "2014-01-06",
                "endDate": "2019-12-31",
                "description": "CT and MRI reporting",
            }
        ],
        "availability": [
            {"day": "Saturday", "startTime": "10:00", "endTime": "14:00", "isAvailable": True},
            {"day": "monday", "startTime": "08:00", "endTime": "16:30", "isAvailable": True},
        ],
    }
    r = put(client, doctor["token"], body)
    assert r.status_code == 200, r.text
    assert r.json()["message"] == "Profile updated successfully"
    user = r.json()["user"]
    assert (user["name"], user["email"], user["specialty"], user["experience"]) == (
        "Dr Ama K. Mensah",
        doctor["user"]["email"],
        "Radiotherapist",
        11,
    )
    assert user["certifications"] == [
        {"name": "FWACS Radiology", "issuer": "WACS", "date": "2016-03-01", "fileId": None}
    ]
    assert user["workHistory"][0]["position"] == "Senior Registrar"
    # Always the seven days in order; days not sent keep their stored values.
    assert [d["day"] for d in user["availability"]] == WEEK
    days = {d["day"]: d for d in user["availability"]}
    assert days["Monday"] == {"day": "Monday", "startTime": "08:00", "endTime": "16:30", "isAvailable": True}
    assert days["Saturday"]["isAvailable"] is True
    assert days["Tuesday"] == {
        "day": "Tuesday",
        "startTime": "09:00",
        "endTime": "17:00",
        "isAvailable": True,
    }
    assert days["Sunday"]["isAvailable"] is False

    # Read back fresh.
    me = client.get("/api/auth/user", headers=auth(doctor["token"])).json()
    assert me["licenseNumber"] == "MDC/RN/0042" and me["workHistory"] == user["workHistory"]

    with session_scope("independent") as s:
        events = s.execute(select(TenantAuditEvent.action, TenantAuditEvent.detail)).all()
    updated = [detail for action, detail in events if action == "profile.updated"]
    assert updated and set(updated[0]["fields"]) >= {"name", "certifications", "availability"}
    # The audit entry names fields, never their contents.
    assert "Korle Bu" not in str(updated)


def test_absent_fields_are_kept(client: Any, doctor: dict[str, Any]) -> None:
    r = put(client, doctor["token"], {"experience": 3})
    assert r.status_code == 200
    assert r.json()["user"]["name"] == "Dr Ama Mensah"
    assert r.json()["user"]["specialty"] == "Radiologist"


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"name": ""}, "name", "Name is required"),
        ({"email": "nope"}, "email", "Invalid email format"),
        ({"phoneNumber": ""}, "phoneNumber", "Phone number is required"),
        ({"phoneNumber": "ring ring"}, "phoneNumber", "Invalid phone number format"),
        ({"specialty": "Astrologer"}, "specialty", "Invalid specialty"),
        ({"licenseNumber": " "}, "licenseNumber", "License number is required"),
        ({"experience": -1}, "experience", "Experience cannot be negative"),
        (
            {"certifications": [{"name": "", "issuer": "x"}]},
            "certifications.0.name",
            "Certification name is required",
        ),
        (
            {"certifications": [{"name": "BLS", "date": "2019-02-30"}]},
            "certifications.0.date",
            "Date obtained must be a date (YYYY-MM-DD)",
        ),
        (
            {"certifications": [{"name": "BLS", "date": (date.today() + timedelta(days=3)).isoformat()}]},
            "certifications.0.date",
            "Date obtained cannot be in the future",
        ),
        (
            {
                "workHistory": [
                    {
                        "hospital": "Ridge",
                        "position": "MO",
                        "startDate": "2020-05-01",
                        "endDate": "2019-01-01",
                    }
                ]
            },
            "workHistory.0.endDate",
            "End date cannot be before start date",
        ),
        (
            {"workHistory": [{"position": "MO", "startDate": "2020-05-01"}]},
            "workHistory.0.hospital",
            "Hospital/Organization is required",
        ),
        (
            {"workHistory": [{"hospital": "Ridge", "position": "MO"}]},
            "workHistory.0.startDate",
            "Start date is required",
        ),
        (
            {
                "availability": [
                    {"day": "Monday", "startTime": "17:00", "endTime": "09:00", "isAvailable": True}
                ]
            },
            "availability.0.endTime",
            "End time must be after start time",
        ),
        (
            {"availability": [{"day": "Monday", "startTime": "25:00", "endTime": "26:00"}]},
            "availability.0.startTime",
            "Time must be HH:MM",
        ),
        ({"availability": [{"day": "Funday"}]}, "availability.0.day", "Unknown day"),
        (
            {"availability": [{"day": "Monday"}, {"day": "Monday"}]},
            "availability.1.day",
            "Monday is listed twice",
        ),
    ],
)
def test_bad_values_name_their_field_and_change_nothing(
    client: Any, doctor: dict[str, Any], body: dict[str, Any], field: str, message: str
) -> None:
    before = client.get("/api/auth/user", headers=auth(doctor["token"])).json()
    r = put(client, doctor["token"], body)
    assert r.status_code == 422, r.text
    assert r.json()["fields"][field] == message
    assert client.get("/api/auth/user", headers=auth(doctor["token"])).json() == before


def test_an_unavailable_day_may_keep_any_valid_times(client: Any, doctor: dict[str, Any]) -> None:
    r = put(
        client,
        doctor["token"],
        {"availability": [{"day": "Sunday", "startTime": "17:00", "endTime": "09:00"}]},
    )
    assert r.status_code == 200


def test_the_sign_in_email_is_not_changed_with_the_profile(client: Any, doctor: dict[str, Any]) -> None:
    """A bearer token alone never moves the account: POST /api/auth/change-email needs the password."""
    other = doctor_payload()
    signup(client, other)
    for email in (other["email"], "brand.new@example.com"):
        r = put(client, doctor["token"], {"email": email})
        assert r.status_code == 422
        assert "current password" in r.json()["fields"]["email"]
    assert (
        client.get("/api/auth/user", headers=auth(doctor["token"])).json()["email"] == doctor["user"]["email"]
    )


def test_too_many_entries_are_refused(client: Any, doctor: dict[str, Any]) -> None:
    r = put(client, doctor["token"], {"workHistory": [{"hospital": "H", "position": "P"}] * 51})
    assert r.status_code == 422


@pytest.mark.parametrize("role", ["hospital", "admin"])
def test_only_doctors_have_this_profile(client: Any, role: str, admin_token: str) -> None:
    token = admin_token if role == "admin" else new_hospital(client).token
    r = put(client, token, {"name": "Someone"})
    assert r.status_code == 403


def test_a_hospital_doctor_edits_in_the_hospitals_schema(client: Any) -> None:
    hospital = new_hospital(client)
    client.post("/api/doctors/new-doctor", json=doctor_form(n=5), headers=hospital.headers)
    token = client.post(
        "/api/auth/login",
        json={"email": "kofi.boateng.5@example.com", "password": "kofi-secret", "role": "doctor"},
    ).json()["token"]
    r = put(client, token, {"experience": 9, "workHistory": []})
    assert r.status_code == 200, r.text
    listed = client.get("/api/doctors", headers=hospital.headers).json()
    assert listed[0]["experience"] == 9
