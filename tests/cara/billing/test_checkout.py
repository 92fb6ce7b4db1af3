"""Checkout end to end against the Stripe double: create, pay, webhook, confirm, switch, portal."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import select, update

from cara.kit.db import session_scope
from cara.models import Account, Payment, Subscription
from cara.subscriptions.service import grants_clinical_access
from cara_doubles.stripe import CARD_DECLINED, StripeError
from tests.cara.billing.conftest import Stripe, wait_processed
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup


def _account(email: str) -> Account:
    with session_scope() as s:
        account = s.scalar(select(Account).where(Account.email == email))
        assert account is not None
        s.expunge(account)
        return account


def _rows(email: str) -> list[Subscription]:
    with session_scope() as s:
        account = s.scalar(select(Account).where(Account.email == email))
        assert account is not None
        rows = list(s.scalars(select(Subscription).where(Subscription.account_id == account.id)))
        for row in rows:
            s.expunge(row)
        return rows


def _access(email: str) -> bool:
    with session_scope() as s:
        account = s.scalar(select(Account).where(Account.email == email))
        assert account is not None
        return grants_clinical_access(s, account)


@pytest.mark.usefixtures("trial_on")
def test_doctor_checkout_webhook_activates_and_records_the_payment(
    client: Any, stripe: Stripe, worker: Any, admin_token: str
) -> None:
    body = doctor_payload()
    doctor = signup(client, body)
    assert (
        client.get("/api/subscription/current", headers=auth(doctor["token"])).json()["status"] == "trialing"
    )

    out = stripe.checkout(doctor["token"], doctor["user"]["_id"], "Professional")
    assert out["mode"] == "checkout"
    assert out["url"] == f"{stripe.double.url}/checkout/{out['sessionId']}"
    created = stripe.double.objects[out["sessionId"]]
    assert created["success_url"] == "http://testserver/subscription-success?session_id={CHECKOUT_SESSION_ID}"
    assert created["client_reference_id"] == doctor["user"]["_id"]

    stripe.double.complete_checkout(out["sessionId"])
    stripe.deliver()
    wait_processed()

    current = client.get("/api/subscription/current", headers=auth(doctor["token"])).json()
    assert current["status"] == "active"
    assert current["planId"]["name"] == "Professional"
    assert current["billingCycle"] == "monthly"
    assert current["lastPaymentDate"] is not None and current["endDate"] is not None
    rows = _rows(body["email"])
    assert sorted(r.status for r in rows) == ["active", "canceled"]  # the trial ended
    assert _access(body["email"])

    with session_scope() as s:
        payments = list(s.scalars(select(Payment)))
    assert [(p.amount_cents, p.status, p.currency) for p in payments] == [(3900, "succeeded", "usd")]
    history = client.get("/api/admin/payment-history", headers=auth(admin_token)).json()
    assert [(h["userName"], h["plan"], h["amount"], h["status"]) for h in history] == [
        (body["name"], "Professional", 39.0, "succeeded")
    ]


def test_hospital_annual_checkout_confirmed_by_the_success_page(client: Any, stripe: Stripe) -> None:
    body = hospital_payload()
    hospital = signup(client, body)
    out = stripe.checkout(hospital["token"], hospital["user"]["_id"], "gold", "annual")  # any case
    stripe.double.complete_checkout(out["sessionId"])

    r = client.post(
        "/api/subscription/confirm-session",
        json={"sessionId": out["sessionId"]},
        headers=auth(hospital["token"]),
    )
    assert r.status_code == 200, r.text
    confirmed = r.json()
    assert confirmed["status"] == "active"
    assert confirmed["planId"]["name"] == "Gold"
    assert confirmed["billingCycle"] == "annual"
    # confirming again changes nothing
    again = client.post(
        "/api/subscription/confirm-session",
        json={"sessionId": out["sessionId"]},
        headers=auth(hospital["token"]),
    )
    assert again.json()["status"] == "active"
    assert len(_rows(body["email"])) == 1
    with session_scope() as s:
        assert [p.amount_cents for p in s.scalars(select(Payment))] == [479_000]


def test_confirm_before_payment_says_not_yet_found(client: Any, stripe: Stripe) -> None:
    doctor = signup(client, doctor_payload())
    out = stripe.checkout(doctor["token"], doctor["user"]["_id"], "Basic")
    r = client.post(
        "/api/subscription/confirm-session",
        json={"sessionId": out["sessionId"]},
        headers=auth(doctor["token"]),
    )
    assert r.status_code == 409
    assert "not yet found" in r.json()["message"]
    unknown = client.post(
        "/api/subscription/confirm-session",
        json={"sessionId": "cs_test_unknown"},
        headers=auth(doctor["token"]),
    )
    assert unknown.status_code == 404
    assert "not yet found" in unknown.json()["message"]


def test_confirm_refuses_someone_elses_session_and_bad_ids(client: Any, stripe: Stripe) -> None:
    owner = signup(client, doctor_payload())
    other = signup(client, doctor_payload())
    out = stripe.checkout(owner["token"], owner["user"]["_id"], "Basic")
    stripe.double.complete_checkout(out["sessionId"])
    r = client.post(
        "/api/subscription/confirm-session",
        json={"sessionId": out["sessionId"]},
        headers=auth(other["token"]),
    )
    assert r.status_code == 403
    assert r.json()["message"] == "This checkout session belongs to another account."
    assert _rows(other["user"]["email"]) == []

    blank = client.post("/api/subscription/confirm-session", json={}, headers=auth(other["token"]))
    assert blank.status_code == 422
    assert blank.json()["fields"] == {"sessionId": "Missing session ID. Cannot confirm subscription."}
    odd = client.post(
        "/api/subscription/confirm-session",
        json={"sessionId": "../v1/customers"},
        headers=auth(other["token"]),
    )
    assert odd.status_code == 404


def test_checkout_is_only_for_the_callers_own_account(client: Any, stripe: Stripe, admin_token: str) -> None:
    doctor = signup(client, doctor_payload())
    victim = signup(client, doctor_payload())
    hospital = signup(client, hospital_payload())
    staff = add_staff(client, doctor_payload(isHospitalCreated=True), hospital["token"])

    def attempt(token: str, **body: Any) -> Any:
        return client.post("/api/subscription/create-checkout-session", json=body, headers=auth(token))

    r = attempt(doctor["token"], planName="Basic", billingCycle="monthly", userId=victim["user"]["_id"])
    assert r.status_code == 403
    assert r.json()["message"] == "You can only manage the subscription of your own account."
    r = attempt(staff["token"], planName="Basic", userId=staff["user"]["_id"])
    assert r.status_code == 403
    assert "covered by their hospital's subscription" in r.json()["message"]
    r = attempt(doctor["token"], planName="Gold", userId=doctor["user"]["_id"])
    assert r.status_code == 403
    assert r.json()["message"] == "This plan is not available for your account type."
    r = attempt(hospital["token"], planName="Basic", userId=hospital["user"]["_id"])
    assert r.status_code == 403
    r = attempt(admin_token, planName="Basic", userId="x")
    assert r.status_code == 403
    r = attempt(doctor["token"], planName="Platinum", userId=doctor["user"]["_id"])
    assert r.status_code == 404
    r = attempt(doctor["token"], planName="Basic", billingCycle="weekly", userId=doctor["user"]["_id"])
    assert r.status_code == 422
    assert r.json()["fields"] == {"billingCycle": "Billing cycle must be monthly or annual"}
    r = attempt(doctor["token"])
    assert r.status_code == 422
    assert set(r.json()["fields"]) == {"planName", "userId"}
    # nothing reached Stripe for any of them
    assert not [s for s in stripe.double.objects.values() if s["object"] == "checkout.session"
                and s["client_reference_id"] in (victim["user"]["_id"], staff["user"]["_id"])]  # fmt: skip


def test_a_new_checkout_expires_the_previous_open_one(client: Any, stripe: Stripe) -> None:
    doctor = signup(client, doctor_payload())
    first = stripe.checkout(doctor["token"], doctor["user"]["_id"], "Basic")
    second = stripe.checkout(doctor["token"], doctor["user"]["_id"], "Professional", "annual")
    assert stripe.double.objects[first["sessionId"]]["status"] == "expired"
    assert stripe.double.objects[second["sessionId"]]["status"] == "open"
    # one customer for the account, reused
    account = _account(doctor["user"]["email"])
    assert stripe.double.objects[first["sessionId"]]["customer"] == account.stripe_customer_id
    assert stripe.double.objects[second["sessionId"]]["customer"] == account.stripe_customer_id


@pytest.mark.usefixtures("trial_on")
def test_a_declined_card_changes_nothing(client: Any, stripe: Stripe) -> None:
    body = doctor_payload()
    doctor = signup(client, body)
    out = stripe.checkout(doctor["token"], doctor["user"]["_id"], "Basic")
    with pytest.raises(StripeError) as declined:
        stripe.double.complete_checkout(out["sessionId"], card=CARD_DECLINED)
    assert declined.value.code == "card_declined"
    assert stripe.double.objects[out["sessionId"]]["status"] == "open"
    assert stripe.new_events("customer.subscription.created") == []
    r = client.post(
        "/api/subscription/confirm-session",
        json={"sessionId": out["sessionId"]},
        headers=auth(doctor["token"]),
    )
    assert r.status_code == 409
    assert [r.status for r in _rows(body["email"])] == ["trialing"]
    assert _access(body["email"])


def test_switching_plan_goes_through_the_portal(client: Any, stripe: Stripe, worker: Any) -> None:
    body = hospital_payload()
    hospital = signup(client, body)
    out = stripe.checkout(hospital["token"], hospital["user"]["_id"], "Bronze")
    stripe.double.complete_checkout(out["sessionId"])
    stripe.deliver()

    again = client.post(
        "/api/subscription/create-checkout-session",
        json={"planName": "Bronze", "billingCycle": "monthly", "userId": hospital["user"]["_id"]},
        headers=auth(hospital["token"]),
    )
    assert again.status_code == 409
    assert again.json()["message"] == "You are already subscribed to this plan."

    switch = stripe.checkout(hospital["token"], hospital["user"]["_id"], "Silver", "annual")
    assert switch["mode"] == "portal" and switch["sessionId"] is None
    portal_id = switch["url"].rsplit("/", 1)[1]
    page = httpx.get(switch["url"])  # what the browser shows: the change to confirm
    assert page.status_code == 200 and "Confirm change to Silver (yearly)" in page.text
    flow = stripe.double.objects[portal_id]["flow"]
    assert flow["type"] == "subscription_update_confirm"
    sub_id = flow["subscription_update_confirm"]["subscription"]
    price = flow["subscription_update_confirm"]["items"][0]["price"]
    back = stripe.double.portal_action(portal_id, "update", {"subscription": sub_id, "price": price})
    assert back == "http://testserver/subscription"
    stripe.deliver()
    wait_processed()

    current = client.get("/api/subscription/current", headers=auth(hospital["token"])).json()
    assert (current["status"], current["planId"]["name"], current["billingCycle"]) == (
        "active",
        "Silver",
        "annual",
    )
    assert len(_rows(body["email"])) == 1


def test_portal_session_for_changes_and_cancellation(client: Any, stripe: Stripe) -> None:
    hospital = signup(client, hospital_payload())
    r = client.post("/api/subscription/portal-session", headers=auth(hospital["token"]))
    assert r.status_code == 409
    assert r.json()["message"] == "You have no billing account yet. Choose a plan first."

    out = stripe.checkout(hospital["token"], hospital["user"]["_id"], "Bronze")
    stripe.double.complete_checkout(out["sessionId"])
    r = client.post("/api/subscription/portal-session", headers=auth(hospital["token"]))
    assert r.status_code == 200
    portal = stripe.double.objects[r.json()["url"].rsplit("/", 1)[1]]
    assert portal["return_url"] == "http://testserver/subscription"
    assert portal["customer"] == _account(hospital["user"]["email"]).stripe_customer_id


def test_hosted_checkout_page_pays_and_returns_to_the_success_page(client: Any, stripe: Stripe) -> None:
    """What the browser does on the double's stand-in for checkout.stripe.com."""
    doctor = signup(client, doctor_payload())
    out = stripe.checkout(doctor["token"], doctor["user"]["_id"], "Basic")
    page = httpx.get(out["url"])
    assert page.status_code == 200 and "TEST MODE" in page.text and "Basic" in page.text
    declined = httpx.post(out["url"], data={"card": "4000 0000 0000 0002"})
    assert declined.status_code == 402 and "Your card was declined." in declined.text
    paid = httpx.post(out["url"], data={"card": "4242 4242 4242 4242"})
    assert paid.status_code == 303
    assert paid.headers["location"] == f"http://testserver/subscription-success?session_id={out['sessionId']}"


def test_a_customer_stripe_no_longer_knows_is_replaced(client: Any, stripe: Stripe) -> None:
    """E.g. deleted in the dashboard, or the dev double restarted with an empty memory."""
    doctor = signup(client, doctor_payload())
    with session_scope() as s:
        mine = Account.email == doctor["user"]["email"]
        s.execute(update(Account).where(mine).values(stripe_customer_id="cus_gone"))
    r = client.post("/api/subscription/portal-session", headers=auth(doctor["token"]))
    assert r.status_code == 409
    out = stripe.checkout(doctor["token"], doctor["user"]["_id"], "Basic")
    customer = stripe.double.objects[out["sessionId"]]["customer"]
    assert customer != "cus_gone"
    assert _account(doctor["user"]["email"]).stripe_customer_id == customer


def test_choosing_the_plan_that_ends_at_period_end_opens_the_portal(client: Any, stripe: Stripe) -> None:
    doctor = signup(client, doctor_payload())
    out = stripe.checkout(doctor["token"], doctor["user"]["_id"], "Basic")
    sub_id = stripe.double.complete_checkout(out["sessionId"])["subscription"]
    stripe.double.cancel_subscription(sub_id, at_period_end=True)
    client.post(
        "/api/subscription/confirm-session",
        json={"sessionId": out["sessionId"]},
        headers=auth(doctor["token"]),
    )
    again = stripe.checkout(doctor["token"], doctor["user"]["_id"], "Basic")
    assert again["mode"] == "portal"
    assert stripe.double.objects[again["url"].rsplit("/", 1)[1]]["flow"] is None
