"""Fixtures of the billing tests: the run's Stripe double and helpers that act like Stripe.

The double (cara_doubles.stripe) runs for the whole test session (tests/conftest.py) and the
settings point at it, so the code under test uses the official SDK exactly as in production.
Stripe's webhooks are not pushed by the double here: a test takes the events it produced and
posts them, signed, to the API itself, in the order and as often as it wants.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select

from cara.config import get_settings
from cara.kit.db import session_scope
from cara.models import ProviderEvent
from cara_doubles.stripe import StripeDouble
from tests import conftest as root
from tests.factories import auth


class Stripe:
    """The double plus what a test needs around it."""

    def __init__(self, double: StripeDouble, client: Any) -> None:
        self.double = double
        self.client = client
        self.mark = len(double.events)

    def new_events(self, *types: str) -> list[dict[str, Any]]:
        """Events the double recorded since the test started (optionally of these types)."""
        fresh = self.double.events[self.mark :]
        return [e for e in fresh if not types or e["type"] in types]

    def post(self, event: dict[str, Any], **sign: Any) -> Any:
        body, headers = self.double.webhook_request(event, **sign)
        return self.client.post("/api/stripe/webhook", content=body, headers=headers)

    def deliver(self, *types: str) -> list[dict[str, Any]]:
        """Post every new event (of these types) once, in order; each must be accepted."""
        events = self.new_events(*types)
        for event in events:
            r = self.post(event)
            assert r.status_code == 200, r.text
        self.mark = len(self.double.events)
        return events

    def checkout(self, token: str, user_id: str, plan: str, cycle: str = "monthly") -> dict[str, Any]:
        r = self.client.post(
            "/api/subscription/create-checkout-session",
            json={"planName": plan, "billingCycle": cycle, "userId": user_id},
            headers=auth(token),
        )
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body


@pytest.fixture
def stripe(client: Any) -> Stripe:
    double: StripeDouble = root._state["stripe"]
    return Stripe(double, client)


@pytest.fixture
def trial_on(monkeypatch: pytest.MonkeyPatch) -> int:
    """The signup trial as in production (the suite runs with TRIAL_DAYS=0 elsewhere)."""
    monkeypatch.setattr(get_settings(), "trial_days", 14)
    return 14


@pytest.fixture
def no_stripe(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    settings = get_settings()
    monkeypatch.setattr(settings, "stripe_secret_key", None)
    monkeypatch.setattr(settings, "stripe_webhook_secret", None)
    yield


def wait_processed(timeout: float = 20.0) -> None:
    """Until the worker has processed every stored event."""
    deadline = time.monotonic() + timeout
    while True:
        with session_scope() as s:
            pending = s.scalar(
                select(func.count()).select_from(ProviderEvent).where(ProviderEvent.processed_at.is_(None))
            )
        if not pending:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{pending} events not processed")
        time.sleep(0.05)
