"""The plan catalogue in Stripe: one Product per plan, one monthly and one annual Price.

Idempotent by construction, so it runs at every `python -m cara.seed` and by
`python -m cara.billing sync-catalog`:

* the Product id is ours (`cara_<plan code>`): created once, then updated;
* each Price carries a lookup key (`cara_<plan code>_<monthly|annual>`). A
  price that still matches is reused; when an amount changes, a new Price takes
  the lookup key over (`transfer_lookup_key`) and the old one is archived, since
  Stripe prices are immutable. Subscriptions on the old price keep it until
  they change plan.

The Stripe ids are stored on `platform.plans`; checkout uses them.
"""

from __future__ import annotations

from typing import Any

import stripe
from sqlalchemy.orm import Session

from cara.billing import repository
from cara.billing.stripe_api import is_missing
from cara.config import get_settings
from cara.models import Plan
from cara.plans.catalog import annual_price_cents

CYCLES = ("monthly", "annual")
INTERVAL = {"monthly": "month", "annual": "year"}


def annual_cents(plan: Plan) -> int:
    """The annual price: the plan's own, else 12 x monthly with 15% off (spec §9)."""
    return annual_price_cents(plan.price_cents, plan.annual_price_cents)


def cycle_cents(plan: Plan, cycle: str) -> int:
    return annual_cents(plan) if cycle == "annual" else plan.price_cents


def product_id(plan: Plan) -> str:
    return f"cara_{plan.code}"


def lookup_key(plan: Plan, cycle: str) -> str:
    return f"cara_{plan.code}_{cycle}"


def price_id(plan: Plan, cycle: str) -> str | None:
    return plan.stripe_annual_price_id if cycle == "annual" else plan.stripe_monthly_price_id


def is_synced(plan: Plan) -> bool:
    return bool(plan.stripe_product_id and plan.stripe_monthly_price_id and plan.stripe_annual_price_id)


def sync_catalog(session: Session, client: stripe.StripeClient) -> int:
    """Create or refresh every active plan's Product and Prices; returns how many plans."""
    plans = repository.active_plans_by_code(session)
    for plan in plans:
        sync_plan(client, plan)
    session.flush()
    return len(plans)


def sync_plan(client: stripe.StripeClient, plan: Plan) -> None:
    currency = get_settings().stripe_currency.lower()
    metadata = {"plan_code": plan.code, "audience": plan.audience}
    pid = product_id(plan)
    try:
        product = client.v1.products.retrieve(pid)
    except stripe.StripeError as exc:
        if not is_missing(exc):
            raise
        product = _create_product(client, pid, plan.name, metadata)
    if product.name != plan.name or not product.active:
        client.v1.products.update(pid, params={"name": plan.name, "active": True})
    plan.stripe_product_id = pid

    for cycle in CYCLES:
        amount, key = cycle_cents(plan, cycle), lookup_key(plan, cycle)
        found = client.v1.prices.list(params={"lookup_keys": [key], "active": True}).data
        current = found[0] if found else None
        if current is None or not _matches(current, pid, amount, currency, INTERVAL[cycle]):
            params: dict[str, Any] = {
                "product": pid,
                "unit_amount": amount,
                "currency": currency,
                "recurring": {"interval": INTERVAL[cycle]},
                "lookup_key": key,
                "transfer_lookup_key": True,
                "nickname": f"{plan.name} ({cycle})",
                "metadata": {**metadata, "billing_cycle": cycle},
            }
            new = client.v1.prices.create(params=params)  # type: ignore[arg-type]
            if current is not None:
                client.v1.prices.update(current.id, params={"active": False})
            current = new
        if cycle == "annual":
            plan.stripe_annual_price_id = current.id
        else:
            plan.stripe_monthly_price_id = current.id


def _create_product(
    client: stripe.StripeClient, pid: str, name: str, metadata: dict[str, str]
) -> stripe.Product:
    try:
        return client.v1.products.create(params={"id": pid, "name": name, "metadata": metadata})
    except stripe.InvalidRequestError as exc:
        if exc.code != "resource_already_exists":
            raise
        return client.v1.products.retrieve(pid)  # another sync created it a moment ago


def _matches(price: stripe.Price, product: str, amount: int, currency: str, interval: str) -> bool:
    recurring = price.recurring
    return (
        price.unit_amount == amount
        and price.currency == currency
        and (price.product if isinstance(price.product, str) else price.product.id) == product
        and recurring is not None
        and recurring.interval == interval
    )
