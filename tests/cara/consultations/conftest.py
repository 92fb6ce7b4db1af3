"""Doctors of the consultation record: on trial, so the assistant (and the record) lets them in."""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories import auth, doctor_payload, signup


@pytest.fixture(autouse=True)
def _assistant_needs_a_subscription(doctors_on_trial: None) -> None:
    """Starting a consultation is gated on the subscription; the doctors here are on trial."""


@pytest.fixture
def doctor(client: Any) -> dict[str, str]:
    return auth(signup(client, doctor_payload(specialty="Radiologist"))["token"])


def start(client: Any, headers: dict[str, str], **body: Any) -> Any:
    payload = {"console": "radiologist", "consent": True, **body}
    return client.post("/api/consultations", json=payload, headers=headers)
