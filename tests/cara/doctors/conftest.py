"""A hospital on a paid plan, ready to manage doctors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.cara.admin_console.seed import subscribe
from tests.factories import auth, hospital_payload, signup


@dataclass
class HospitalAccount:
    token: str
    hospital_id: str
    account_id: str
    email: str

    @property
    def headers(self) -> dict[str, str]:
        return auth(self.token)


def new_hospital(client: Any, plan: str | None = "hospital-bronze") -> HospitalAccount:
    body = hospital_payload()
    data = signup(client, body)
    if plan:
        subscribe(body["email"], plan)
    return HospitalAccount(data["token"], data["user"]["hospitalId"], data["user"]["_id"], body["email"])


@pytest.fixture
def hospital(client: Any) -> HospitalAccount:
    return new_hospital(client)


def doctor_form(**overrides: Any) -> dict[str, Any]:
    """The Manage Doctors form as the web app sends it."""
    n = overrides.pop("n", 0)
    body: dict[str, Any] = {
        "name": f"Dr Kofi Boateng {n}",
        "email": f"kofi.boateng.{n}@example.com",
        "password": "kofi-secret",
        "phoneNumber": "0244123456",
        "specialty": "Cardiologist",
        "licenseNumber": f"GMDC-{n:04d}",
        "experience": 7,
        "country": "Ghana",
        "state": "Ashanti",
        "isHospitalCreated": True,
        "privacyPolicyAccepted": True,
    }
    body.update(overrides)
    return body
