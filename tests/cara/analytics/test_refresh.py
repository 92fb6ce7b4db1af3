"""The events that change the admin overview's figures refresh the rollups, debounced."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import func, select

from cara.kit.db import session_scope
from cara.kit.redis import get_redis
from cara.models import PeriodRollup
from tests import conftest as root
from tests.cara.billing.conftest import Stripe
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup


class Recorder:
    """A job sender that keeps what it is given (no broker)."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def queue_name(self, actor_name: str) -> str:
        return "analytics"

    def send(self, actor_name: str, kwargs: dict[str, Any], options: dict[str, Any]) -> None:
        self.sent.append(actor_name)


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    from cara.kit.jobs import install_sender
    from workers import sender as job_sender

    held = Recorder()
    install_sender(held)
    try:
        yield held
    finally:
        job_sender.install()


@pytest.fixture
def quick_debounce(monkeypatch: pytest.MonkeyPatch) -> None:
    from workers.actors import analytics

    monkeypatch.setattr(analytics, "DEBOUNCE_MS", 300)
    get_redis().delete(analytics.PENDING_KEY)


@pytest.fixture
def refreshes(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Times at which the worker ran a full refresh."""
    from workers.actors import analytics

    runs: list[float] = []
    real = analytics.rollups.refresh_all

    def counted(session: Any, today: Any = None) -> None:
        runs.append(time.monotonic())
        real(session, today)

    monkeypatch.setattr(analytics.rollups, "refresh_all", counted)
    return runs


def until(check: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("not reached in time")
        time.sleep(0.05)


def changed(recorder: Recorder) -> int:
    return recorder.sent.count("analytics.figures_changed")


class TestEnqueued:
    def test_each_signup_asks_once(self, client: Any, recorder: Recorder) -> None:
        hospital = signup(client, hospital_payload())
        assert changed(recorder) == 1
        signup(client, doctor_payload())
        assert changed(recorder) == 2
        add_staff(client, doctor_payload(isHospitalCreated=True), hospital["token"])
        assert changed(recorder) >= 3

    def test_removing_a_doctor_asks(self, client: Any, recorder: Recorder) -> None:
        hospital = signup(client, hospital_payload())
        doctor = add_staff(client, doctor_payload(isHospitalCreated=True), hospital["token"])
        before = changed(recorder)
        r = client.delete(f"/api/doctors/{doctor['user']['_id']}", headers=auth(hospital["token"]))
        assert r.status_code == 200, r.text
        assert changed(recorder) == before + 1

    def test_nothing_is_asked_for_a_failed_signup(self, client: Any, recorder: Recorder) -> None:
        body = hospital_payload()
        signup(client, body)
        again = client.post("/api/auth/signup", json=body)
        assert again.status_code == 202  # answered as a new address; nothing made
        assert changed(recorder) == 1

    def test_a_payment_asks(self, client: Any, recorder: Recorder) -> None:
        stripe = Stripe(root._state["stripe"], client)
        hospital = signup(client, hospital_payload())
        before = changed(recorder)
        out = stripe.checkout(hospital["token"], hospital["user"]["_id"], "gold", "annual")
        stripe.double.complete_checkout(out["sessionId"])
        r = client.post(
            "/api/subscription/confirm-session",
            json={"sessionId": out["sessionId"]},
            headers=auth(hospital["token"]),
        )
        assert r.status_code == 200, r.text
        # one job for the transaction that synced the subscription and recorded its payment
        assert changed(recorder) == before + 1


@pytest.mark.usefixtures("quick_debounce")
class TestDebounced:
    def test_a_burst_makes_one_refresh(self, worker: Any, refreshes: list[float]) -> None:
        actor = worker.get_actor("analytics.figures_changed")
        for _ in range(10):
            actor.send()
        until(lambda: len(refreshes) == 1)
        time.sleep(1.0)  # nothing else follows
        assert len(refreshes) == 1
        actor.send()  # a later change gets its own refresh
        until(lambda: len(refreshes) == 2)

    def test_a_payment_reaches_the_overview_within_seconds(
        self, client: Any, worker: Any, admin_token: str
    ) -> None:
        stripe = Stripe(root._state["stripe"], client)
        hospital = signup(client, hospital_payload())
        out = stripe.checkout(hospital["token"], hospital["user"]["_id"], "gold", "annual")
        stripe.double.complete_checkout(out["sessionId"])
        r = client.post(
            "/api/subscription/confirm-session",
            json={"sessionId": out["sessionId"]},
            headers=auth(hospital["token"]),
        )
        assert r.status_code == 200, r.text

        def rolled_up() -> bool:
            with session_scope() as s:
                return bool(
                    s.scalar(select(func.count()).select_from(PeriodRollup).where(PeriodRollup.mrr_cents > 0))
                )

        until(rolled_up)
        body = client.get("/api/admin/stats", headers=auth(admin_token)).json()
        assert body["totalHospitals"] == 1
        assert body["activeSubscriptions"] == 1
        assert body["monthlyRevenue"] == round(479_000 / 12 / 100, 2)
        assert body["subscriptionDetails"]["byPlan"] == {"hospital-gold": 1}
        assert body["computedAt"] is not None
