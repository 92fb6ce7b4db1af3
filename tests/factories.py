"""Valid sign-up payloads and helpers to register and sign in through the API."""

from __future__ import annotations

import itertools
import uuid
from typing import Any

_seq = itertools.count(1)


def doctor_payload(**overrides: Any) -> dict[str, Any]:
    n = next(_seq)
    body: dict[str, Any] = {
        "role": "doctor",
        "name": f"Dr Ama Mensah {n}",
        "email": f"doctor{n}@example.com",
        "password": "secret1",
        "phoneNumber": "0241234567",
        "specialty": "Radiologist",
        "licenseNumber": f"GMC-{n}",
        "experience": 4,
        "country": "Ghana",
        "state": "Greater Accra",
        "privacyPolicyAccepted": True,
    }
    body.update(overrides)
    return body


def hospital_payload(**overrides: Any) -> dict[str, Any]:
    n = next(_seq)
    body: dict[str, Any] = {
        "role": "hospital",
        "name": f"Korle Bu Teaching Hospital {n}",
        "email": f"hospital{n}@example.com",
        "password": "hospital-pass",
        "phoneNumber": "0302123456",
        "address": "Guggisberg Ave, Accra",
        "type": "public",
        "registrationNumber": f"REG-{n}",
        "capacity": 2000,
        "country": "Ghana",
        "state": "Greater Accra",
        "website": "https://kbth.example.org",
        "privacyPolicyAccepted": True,
    }
    body.update(overrides)
    return body


def admin_payload(**overrides: Any) -> dict[str, Any]:
    n = next(_seq)
    body: dict[str, Any] = {
        "role": "admin",
        "name": f"Admin {n}",
        "email": f"admin{n}@example.com",
        "password": "admin-password",
        "phoneNumber": "233241234567",
    }
    body.update(overrides)
    return body


def signup(
    client: Any, payload: dict[str, Any], token: str | None = None, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    """The new account's `{token, user}`. A doctor or hospital signing themselves up is answered
    202 and made by the mailed link: this follows it (`follow_signup_link`)."""
    sent = {**(headers or {}), **({"Authorization": f"Bearer {token}"} if token else {})}
    r = client.post("/api/auth/signup", json=payload, headers=sent)
    if r.status_code == 202 and token is None:
        return follow_signup_link(client, str(payload["email"]), headers=headers)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()["data"]
    return data


def follow_signup_link(client: Any, email: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """Finish the newest pending sign-up of `email` as its mailed link would: `{token, user}`."""
    r = open_signup_link(client, email, headers=headers)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()["data"]
    return data


def open_signup_link(client: Any, email: str | None = None, headers: dict[str, str] | None = None) -> Any:
    """POST /api/auth/complete-signup for the newest unused pending sign-up (of `email`, or of
    anyone), and its response.

    The link's token exists only in the mail; tests that read the mail itself are in
    tests/cara/registration. Here the pending row is given a token known to the test
    (`cara_devstack.signup_link`), and the real endpoint is called with it.
    """
    from cara_devstack.signup_link import known_link_token

    link_token = known_link_token(email)
    return client.post("/api/auth/complete-signup", json={"token": link_token}, headers=headers or {})


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def add_staff(client: Any, payload: dict[str, Any], hospital_token: str) -> dict[str, Any]:
    """A hospital registers one of its doctors, whatever its plan says.

    Adding a doctor needs a free seat on an active plan. Tests about other
    rules (a hospital without a subscription, its doctors' access) get the
    seat from a subscription that exists only for this one signup.
    """
    from sqlalchemy import delete, select

    from cara.auth.tokens import decode
    from cara.kit.db import session_scope
    from cara.models import Plan, Subscription

    claims = decode(hospital_token)
    assert claims is not None
    with session_scope() as s:
        plan = s.scalar(select(Plan).where(Plan.code == "hospital-gold"))
        assert plan is not None
        live = s.scalar(
            select(Subscription.id).where(
                Subscription.account_id == claims.account_id, Subscription.status.in_(("active", "trialing"))
            )
        )
        seat = None
        if live is None:
            seat = uuid.uuid4()
            s.add(
                Subscription(
                    id=seat,
                    account_id=claims.account_id,
                    plan_id=plan.id,
                    status="active",
                    billing_cycle="monthly",
                )
            )
    try:
        return signup(client, {**payload, "isHospitalCreated": True}, token=hospital_token)
    finally:
        if seat is not None:
            with session_scope() as s:
                s.execute(delete(Subscription).where(Subscription.id == seat))
