"""GET /api/subscription/plans/{type}, GET /api/stripe/verify and the plan catalogue in Stripe."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from cara.billing import catalog, stripe_api
from cara.billing.__main__ import main as billing_cli
from cara.kit.db import session_scope
from cara.models import Plan
from tests.cara.billing.conftest import Stripe
from tests.factories import auth, doctor_payload, hospital_payload, signup


def test_hospital_plans_carry_limits_and_both_prices(client: Any) -> None:
    token = signup(client, hospital_payload())["token"]
    r = client.get("/api/subscription/plans/hospital", headers=auth(token))
    assert r.status_code == 200
    plans = r.json()
    assert [p["name"] for p in plans] == ["Bronze", "Silver", "Gold"]
    for plan in plans:
        assert set(plan) == {"_id", "name", "price", "annualPrice", "maxDoctors", "features"}
        assert plan["maxDoctors"] > 0 and plan["features"]
        assert 0 < plan["annualPrice"] < 12 * plan["price"]
    assert plans[0]["price"] == 99.0 and plans[0]["annualPrice"] == 990.0


def test_doctor_plans_annual_price_is_twelve_months_less_15_percent(client: Any) -> None:
    token = signup(client, doctor_payload())["token"]
    plans = client.get("/api/subscription/plans/doctor", headers=auth(token)).json()
    assert [p["name"] for p in plans] == ["Basic", "Professional"]
    for plan in plans:
        assert plan["maxDoctors"] is None
        assert plan["annualPrice"] == round(plan["price"] * 12 * 0.85, 2)


def test_plans_need_a_token_and_a_known_type(client: Any) -> None:
    assert client.get("/api/subscription/plans/hospital").status_code == 401
    token = signup(client, doctor_payload())["token"]
    r = client.get("/api/subscription/plans/gold", headers=auth(token))
    assert r.status_code == 404
    assert r.json()["message"] == "Unknown plan type: use hospital or doctor."


def test_verify_reports_test_mode(client: Any) -> None:
    token = signup(client, hospital_payload())["token"]
    r = client.get("/api/stripe/verify", headers=auth(token))
    assert r.status_code == 200
    assert r.json() == {"ok": True, "message": "Payment system is ready", "testMode": True}


def test_every_plan_has_its_stripe_product_and_prices(stripe: Stripe) -> None:
    with session_scope() as s:
        plans = list(s.scalars(select(Plan).where(Plan.is_active.is_(True))))
    for plan in plans:
        assert plan.stripe_product_id == f"cara_{plan.code}"
        monthly = stripe.double.objects[plan.stripe_monthly_price_id or ""]
        annual = stripe.double.objects[plan.stripe_annual_price_id or ""]
        assert monthly["unit_amount"] == plan.price_cents and monthly["recurring"]["interval"] == "month"
        assert (
            annual["unit_amount"] == catalog.annual_cents(plan) and annual["recurring"]["interval"] == "year"
        )
        assert monthly["lookup_key"] == f"cara_{plan.code}_monthly"


def test_catalog_sync_is_idempotent_and_moves_a_changed_price(stripe: Stripe) -> None:
    prices_before = sum(1 for o in stripe.double.objects.values() if o["object"] == "price")
    assert billing_cli(["sync-catalog"]) == 0
    assert sum(1 for o in stripe.double.objects.values() if o["object"] == "price") == prices_before

    with session_scope() as s:
        plan = s.scalars(select(Plan).where(Plan.code == "doctor-basic")).one()
        old_price, original = plan.stripe_monthly_price_id, plan.price_cents
        plan.price_cents = original + 100
        catalog.sync_catalog(s, stripe_api.client())
        new_price = plan.stripe_monthly_price_id
    try:
        assert new_price != old_price
        assert stripe.double.objects[new_price or ""]["lookup_key"] == "cara_doctor-basic_monthly"
        assert stripe.double.objects[old_price or ""]["active"] is False
        assert stripe.double.objects[old_price or ""]["lookup_key"] is None
    finally:  # the plans table outlives this test: put the price back
        with session_scope() as s:
            plan = s.scalars(select(Plan).where(Plan.code == "doctor-basic")).one()
            plan.price_cents = original
            catalog.sync_catalog(s, stripe_api.client())


@pytest.mark.usefixtures("no_stripe")
def test_without_stripe_everything_answers_503_not_configured(client: Any) -> None:
    doctor = signup(client, doctor_payload())
    token, user_id = doctor["token"], doctor["user"]["_id"]
    calls = [
        ("get", "/api/stripe/verify", None),
        ("post", "/api/subscription/create-checkout-session", {"planName": "Basic", "userId": user_id}),
        ("post", "/api/subscription/confirm-session", {"sessionId": "cs_test_123"}),
        ("post", "/api/subscription/portal-session", None),
    ]
    for method, path, body in calls:
        r = getattr(client, method)(path, headers=auth(token), **({"json": body} if body else {}))
        assert r.status_code == 503, (path, r.text)
        assert r.json()["message"] == "Payment system is not properly configured"
    r = client.post("/api/stripe/webhook", content=b"{}", headers={"Stripe-Signature": "t=1,v1=x"})
    assert r.status_code == 503
    # Reading plans needs no provider.
    assert client.get("/api/subscription/plans/doctor", headers=auth(token)).status_code == 200
