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


def schema_and_account(headers: dict[str, str]) -> tuple[str, Any]:
    from cara.auth.tokens import decode

    claims = decode(headers["Authorization"].removeprefix("Bearer "))
    assert claims is not None and claims.tenant_schema is not None
    return claims.tenant_schema, claims.account_id


def add_lines(
    headers: dict[str, str], consultation_id: str, lines: list[tuple[str, str]], *, end: bool = True
) -> None:
    """Store transcript lines as the live relay does, and end the consultation."""
    import uuid
    from datetime import timedelta

    from cara.kit.db import tenant_session
    from cara.models import Consultation, TranscriptLine
    from cara.models.base import utcnow

    schema, _ = schema_and_account(headers)
    with tenant_session(schema) as s:
        consultation = s.get(Consultation, uuid.UUID(consultation_id))
        assert consultation is not None
        start_seq = len(consultation_lines(s, consultation.id))
        for i, (speaker, text) in enumerate(lines):
            s.add(
                TranscriptLine(
                    consultation_id=consultation.id,
                    seq=start_seq + i,
                    speaker=speaker,
                    text=text,
                    spoken_at=consultation.started_at + timedelta(seconds=5 * (start_seq + i)),
                )
            )
        if end:
            consultation.ended_at = utcnow()
        s.commit()


def consultation_lines(session: Any, consultation_id: Any) -> list[Any]:
    from sqlalchemy import select

    from cara.models import TranscriptLine

    return list(
        session.scalars(select(TranscriptLine).where(TranscriptLine.consultation_id == consultation_id))
    )


def subscribe(hospital_token: str) -> None:
    """An active plan for the hospital, so that its doctors may use the assistant."""
    from sqlalchemy import select

    from cara.auth.tokens import decode
    from cara.kit.db import session_scope
    from cara.models import Plan, Subscription

    claims = decode(hospital_token)
    assert claims is not None
    with session_scope() as s:
        plan = s.scalar(select(Plan).where(Plan.code == "hospital-gold"))
        assert plan is not None
        s.add(
            Subscription(
                account_id=claims.account_id, plan_id=plan.id, status="active", billing_cycle="monthly"
            )
        )
