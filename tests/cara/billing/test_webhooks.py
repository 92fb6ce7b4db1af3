"""POST /api/stripe/webhook: signatures, once-only processing, any order, races with the success page."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import func, select

from cara.billing import stripe_api
from cara.billing.sync import RetryLater, sync_subscription
from cara.kit.db import session_scope
from cara.models import Account, Payment, ProviderEvent, Subscription
from cara.models.platform import LIVE_SUBSCRIPTION_STATUSES
from tests.cara.billing.conftest import Stripe, wait_processed
from tests.factories import auth, doctor_payload, hospital_payload, signup
from workers.actors.billing import run_event


def _subscribed(client: Any, stripe: Stripe, plan: str = "Basic") -> tuple[dict[str, Any], str]:
    """A doctor who paid a checkout in the double (events not delivered yet); returns the
    doctor and the Stripe subscription id."""
    doctor = signup(client, doctor_payload())
    out = stripe.checkout(doctor["token"], doctor["user"]["_id"], plan)
    session = stripe.double.complete_checkout(out["sessionId"])
    return doctor, str(session["subscription"])


def _status(email: str) -> list[str]:
    with session_scope() as s:
        account_id = s.scalar(select(Account.id).where(Account.email == email))
        return sorted(s.scalars(select(Subscription.status).where(Subscription.account_id == account_id)))


def _count(model: Any) -> int:
    with session_scope() as s:
        return int(s.scalar(select(func.count()).select_from(model)) or 0)


class TestSignature:
    def test_bad_missing_stale_or_foreign_signatures_are_400(self, client: Any, stripe: Stripe) -> None:
        _subscribed(client, stripe)
        event = stripe.new_events("customer.subscription.created")[0]
        body, headers = stripe.double.webhook_request(event)

        tampered = body.replace(b'"active"', b'"canceled"')
        cases = {
            "tampered body": (tampered, headers),
            "no header": (body, {"Content-Type": "application/json"}),
            "other secret": stripe.double.webhook_request(event, secret="whsec_someone_else"),
            "stale (10 minutes)": stripe.double.webhook_request(event, timestamp=int(time.time()) - 600),
            "future (10 minutes)": stripe.double.webhook_request(event, timestamp=int(time.time()) + 600),
            "garbage header": (body, {"Stripe-Signature": "t=abc,v1=zz"}),
            "no v1": (body, {"Stripe-Signature": f"t={int(time.time())}"}),
            "not json": (b"\xff\xfe", headers),
        }
        for name, (payload, hdrs) in cases.items():
            r = client.post("/api/stripe/webhook", content=payload, headers=hdrs)
            assert r.status_code == 400, name
            assert r.json()["message"], name
        assert _count(ProviderEvent) == 0

    def test_a_signed_event_is_accepted(self, client: Any, stripe: Stripe) -> None:
        _subscribed(client, stripe)
        r = stripe.post(stripe.new_events("customer.subscription.created")[0])
        assert r.status_code == 200
        assert r.json() == {"received": True, "duplicate": False}


def test_the_same_event_three_times_is_processed_once(client: Any, stripe: Stripe, worker: Any) -> None:
    doctor, _ = _subscribed(client, stripe)
    event = stripe.new_events("checkout.session.completed")[0]
    answers = [stripe.post(event).json()["duplicate"] for _ in range(3)]
    assert answers == [False, True, True]
    wait_processed()
    worker.join("billing", timeout=10_000)
    with session_scope() as s:
        stored = s.scalars(select(ProviderEvent)).one()
    assert (stored.event_id, stored.attempts, stored.last_error) == (event["id"], 1, None)
    assert _status(doctor["user"]["email"]) == ["active"]
    # the sync recorded the first invoice from the subscription; still one payment
    assert _count(Payment) == 1


def test_updated_before_created_and_deleted_before_both_end_right(client: Any, stripe: Stripe) -> None:
    doctor, sub_id = _subscribed(client, stripe)
    created = stripe.new_events("customer.subscription.created")[0]
    stripe.double.cancel_subscription(sub_id, at_period_end=True)
    updated = stripe.new_events("customer.subscription.updated")[0]

    # `updated` arrives first, then the older `created`: the state is Stripe's latest either way.
    for event in (updated, created):
        assert stripe.post(event).status_code == 200
    for row_id in _event_rows():
        assert run_event(row_id)
    with session_scope() as s:
        row = s.scalars(select(Subscription)).one()
        assert (row.status, row.cancel_at_period_end) == ("active", True)

    # `deleted` first, then the stale `updated` and `created` again (new ids, as on redelivery
    # of other events): the subscription stays cancelled.
    stripe.double.cancel_subscription(sub_id)
    deleted = stripe.new_events("customer.subscription.deleted")[0]
    for event in (deleted, {**updated, "id": "evt_stale_1"}, {**created, "id": "evt_stale_2"}):
        assert stripe.post(event).status_code == 200
    for row_id in _event_rows():
        run_event(row_id)
    assert _status(doctor["user"]["email"]) == ["canceled"]
    r = client.get("/api/subscription/current", headers=auth(doctor["token"]))
    assert r.json()["status"] == "canceled"


def _event_rows() -> list[int]:
    with session_scope() as s:
        return list(s.scalars(select(ProviderEvent.id).order_by(ProviderEvent.id)))


def test_failed_renewal_then_paid_invoice(client: Any, stripe: Stripe) -> None:
    doctor, sub_id = _subscribed(client, stripe, "Professional")
    stripe.double.renew(sub_id, paid=False)
    stripe.deliver()  # the checkout's events, then the failed renewal's
    for row_id in _event_rows():
        run_event(row_id)
    assert _status(doctor["user"]["email"]) == ["past_due"]
    with session_scope() as s:
        assert sorted(p.status for p in s.scalars(select(Payment))) == ["failed", "succeeded"]

    stripe.double.renew(sub_id, paid=True)
    for event in stripe.new_events("invoice.paid")[-1:]:
        stripe.post(event)
    for row_id in _event_rows():
        run_event(row_id)
    assert _status(doctor["user"]["email"]) == ["active"]
    with session_scope() as s:
        assert sorted(p.status for p in s.scalars(select(Payment))) == ["failed", "succeeded", "succeeded"]


def test_an_event_about_an_unknown_subscription_is_retried_not_dropped(client: Any, stripe: Stripe) -> None:
    _subscribed(client, stripe)
    event = stripe.new_events("customer.subscription.created")[0]
    ghost = {**event, "id": "evt_ghost", "data": {"object": {**event["data"]["object"], "id": "sub_ghost"}}}
    assert stripe.post(ghost).status_code == 200
    (row_id,) = _event_rows()
    with pytest.raises(RetryLater):
        run_event(row_id)
    with session_scope() as s:
        stored = s.get(ProviderEvent, row_id)
        assert stored is not None
        assert (stored.processed_at, stored.attempts, stored.last_error) == (None, 1, "RetryLater")


def test_success_page_racing_the_webhook_ends_in_one_active_subscription(
    client: Any, stripe: Stripe, worker: Any
) -> None:
    doctor = signup(client, doctor_payload())
    out = stripe.checkout(doctor["token"], doctor["user"]["_id"], "Basic")
    stripe.double.complete_checkout(out["sessionId"])
    answers: list[Any] = []

    def confirm() -> None:
        answers.append(
            client.post(
                "/api/subscription/confirm-session",
                json={"sessionId": out["sessionId"]},
                headers=auth(doctor["token"]),
            )
        )

    page = threading.Thread(target=confirm)
    page.start()
    stripe.deliver()  # the worker processes them while the page confirms
    page.join(timeout=30)
    wait_processed()
    assert answers[0].status_code == 200, answers[0].text
    assert answers[0].json()["status"] == "active"
    assert _status(doctor["user"]["email"]) == ["active"]
    assert _count(Payment) == 1


def _in_threads(count: int, target: Callable[[], None]) -> list[BaseException]:
    errors: list[BaseException] = []
    barrier = threading.Barrier(count)

    def run() -> None:
        barrier.wait()
        try:
            target()
        except BaseException as exc:  # reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return errors


def test_concurrent_syncs_of_one_subscription_write_one_row(client: Any, stripe: Stripe) -> None:
    doctor, sub_id = _subscribed(client, stripe)

    def sync() -> None:
        with session_scope() as s:
            sync_subscription(s, stripe_api.client(), sub_id)

    assert _in_threads(6, sync) == []
    assert _status(doctor["user"]["email"]) == ["active"]
    assert _count(Payment) == 1


def test_two_paid_checkouts_leave_one_live_subscription(client: Any, stripe: Stripe) -> None:
    """Two checkouts completed at the same moment (say, two tabs): Stripe holds two
    subscriptions; we keep the older one and cancel the newer at Stripe, whatever order the
    syncs run in."""
    body = hospital_payload()
    hospital = signup(client, body)
    first = stripe.checkout(hospital["token"], hospital["user"]["_id"], "Bronze")
    # a second open session made behind our back (the API would have expired the first)
    customer = stripe.double.objects[first["sessionId"]]["customer"]
    second = stripe.double.create_checkout_session(
        {
            "mode": "subscription",
            "customer": customer,
            "client_reference_id": hospital["user"]["_id"],
            "success_url": "http://testserver/s",
            "line_items": [{"price": stripe.double.objects[first["sessionId"]]["_lines"][0][0]}],
        }
    )
    older = stripe.double.complete_checkout(first["sessionId"])["subscription"]
    clock = stripe.double.clock
    stripe.double.clock = lambda: clock() + 5  # paid five seconds later
    try:
        newer = stripe.double.complete_checkout(second["id"])["subscription"]
    finally:
        stripe.double.clock = clock

    def sync(sub_id: str) -> Callable[[], None]:
        def run() -> None:
            with session_scope() as s:
                sync_subscription(s, stripe_api.client(), sub_id)

        return run

    ids = [newer, older] * 3
    assert _in_threads(len(ids), lambda: sync(ids.pop())()) == []
    with session_scope() as s:
        rows = {r.stripe_subscription_id: r.status for r in s.scalars(select(Subscription))}
    assert rows == {older: "active", newer: "canceled"}
    assert stripe.double.objects[newer]["status"] == "canceled"
    assert stripe.double.objects[older]["status"] == "active"
    live = [status for status in rows.values() if status in LIVE_SUBSCRIPTION_STATUSES]
    assert len(live) == 1


def test_a_backlog_whose_jobs_were_lost_is_replayed(client: Any, stripe: Stripe, capsys: Any) -> None:
    """Events stored while their jobs were lost (retries exhausted, Redis wiped) are enqueued again
    by `python -m cara.billing replay-events` and end in Stripe's state."""
    import dramatiq

    from cara.billing.__main__ import main
    from workers.registry import broker

    doctor, _ = _subscribed(client, stripe)
    stripe.deliver("checkout.session.completed", "customer.subscription.created")
    broker.flush_all()  # the jobs are gone; the stored rows are not
    assert len(_event_rows()) == 2 and _status(doctor["user"]["email"]) == []

    assert main(["replay-events", "--older-than", "60"]) == 0  # nothing that old yet
    assert "0 unprocessed" in capsys.readouterr().out
    assert main(["replay-events", "--older-than", "0"]) == 0
    assert "2 unprocessed" in capsys.readouterr().out

    worker = dramatiq.Worker(broker, worker_threads=1, worker_timeout=50)
    worker.start()
    try:
        wait_processed()
    finally:
        worker.stop()
    assert _status(doctor["user"]["email"]) == ["active"]
    assert main(["replay-events", "--older-than", "0"]) == 0
    assert "0 unprocessed" in capsys.readouterr().out
