"""Stripe webhooks replayed out of order: do we end in Stripe's state, and how fast?

    .venv/bin/python ops/bench/billing_webhooks.py [--events 1000] [--duplicates 0.2] [--seed 1]

Prints figures only: mismatched final states (target 0) and events processed per second.

Setup: the project's Stripe double (cara_doubles.stripe) runs in this process; one uvicorn worker
and the catalogue synced into the double, as `./ops/dev` has them. Independent doctors (signup
trial on) buy a doctor plan through the real `POST /api/subscription/create-checkout-session` and
pay in the double; each subscription then lives a random life in the double (renewals paid or
failed, plan switches, cancellation at period end or at once) until at least `--events` events
exist.

Replay: every event once plus `--duplicates` of them a second time, all shuffled, POSTed signed to
`/api/stripe/webhook` by 8 client threads while a Dramatiq worker (4 threads, in this process)
processes them. Measured from the first POST until every stored event is processed.

Check: for every subscription in the double, our row must have its status, plan, billing cycle
and cancel-at-period-end; every paid or failed invoice must have one Payment row with the right
status and amount; no account may hold two live subscriptions; no event may be processed twice.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import dramatiq
import httpx
from _common import ApiServer, Summary, create_doctors, log, run_bench

if TYPE_CHECKING:
    from cara_doubles.stripe import StripeDouble


def _life(double: StripeDouble, sub_id: str, prices: list[str], rng: random.Random) -> None:
    """What may happen to a subscription after checkout, in Stripe."""
    for _ in range(rng.randint(0, 4)):
        sub = double.objects[sub_id]
        if sub["status"] == "canceled":
            return
        action = rng.choice(["renew", "renew", "fail", "switch", "cancel_later", "cancel_now"])
        if action == "renew":
            double.renew(sub_id, paid=True)
        elif action == "fail":
            double.renew(sub_id, paid=False)
        elif action == "switch":
            current = sub["_items"][0]["_price"]
            double.change_price(sub_id, rng.choice([p for p in prices if p != current]))
        elif action == "cancel_later" and not sub["cancel_at_period_end"]:
            double.cancel_subscription(sub_id, at_period_end=True)
        elif action == "cancel_now":
            double.cancel_subscription(sub_id)


def _mismatches(double: StripeDouble) -> tuple[list[str], int, int]:
    """(problems, subscriptions checked, invoices checked)."""
    from sqlalchemy import func, select

    from cara.kit.db import session_scope
    from cara.models import Payment, Plan, ProviderEvent, Subscription
    from cara.models.platform import LIVE_SUBSCRIPTION_STATUSES

    problems: list[str] = []
    subs = [o for o in double.objects.values() if o["object"] == "subscription"]
    invoices = [o for o in double.objects.values() if o["object"] == "invoice"]
    with session_scope() as s:
        plans = {p.id: p for p in s.scalars(select(Plan))}
        rows = {r.stripe_subscription_id: r for r in s.scalars(select(Subscription))}
        for sub in subs:
            row = rows.get(sub["id"])
            price = sub["_items"][0]["_price"]
            plan = plans.get(row.plan_id) if row is not None and row.plan_id else None
            expected_cycle = (
                "annual" if double.objects[price]["recurring"]["interval"] == "year" else "monthly"
            )
            if row is None:
                problems.append(f"{sub['id']}: no row")
            elif row.status != sub["status"]:
                problems.append(f"{sub['id']}: status {row.status}, Stripe {sub['status']}")
            elif plan is None or price not in (plan.stripe_monthly_price_id, plan.stripe_annual_price_id):
                problems.append(f"{sub['id']}: plan does not match the price")
            elif row.billing_cycle != expected_cycle:
                problems.append(f"{sub['id']}: cycle {row.billing_cycle}, Stripe {expected_cycle}")
            elif row.cancel_at_period_end != sub["cancel_at_period_end"]:
                problems.append(f"{sub['id']}: cancel_at_period_end differs")
        payments = {p.stripe_invoice_id: p for p in s.scalars(select(Payment))}
        for invoice in invoices:
            expected = "succeeded" if invoice["status"] == "paid" else "failed"
            amount = invoice["amount_paid"] if expected == "succeeded" else invoice["amount_due"]
            payment = payments.get(invoice["id"])
            if payment is None or payment.status != expected or payment.amount_cents != amount:
                problems.append(f"{invoice['id']}: payment {payment and payment.status}, expected {expected}")
        doubled = s.scalar(
            select(func.count())
            .select_from(Subscription)
            .where(Subscription.status.in_(LIVE_SUBSCRIPTION_STATUSES))
            .group_by(Subscription.account_id)
            .having(func.count() > 1)
            .limit(1)
        )
        if doubled:
            problems.append("an account holds two live subscriptions")
        twice = s.scalar(select(func.count()).select_from(ProviderEvent).where(ProviderEvent.attempts > 1))
        if twice:
            problems.append(f"{twice} events processed more than once")
    return problems, len(subs), len(invoices)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=1000, help="at least this many distinct events")
    parser.add_argument("--duplicates", type=float, default=0.2, help="share of events delivered twice")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    from cara_doubles.stripe import StripeDouble  # reads no settings

    double = StripeDouble().start()
    env = {
        "STRIPE_SECRET_KEY": double.secret_key,
        "STRIPE_WEBHOOK_SECRET": double.webhook_secret,
        "STRIPE_API_BASE": double.url,
        "TRIAL_DAYS": "14",
        "PUBLIC_BASE_URL": "http://127.0.0.1",
    }
    summary = Summary()

    def body(api: ApiServer) -> None:
        from sqlalchemy import func, select

        from cara.billing import catalog, stripe_api
        from cara.kit.db import session_scope
        from cara.models import Plan, ProviderEvent
        from workers.registry import broker

        with session_scope() as s:
            catalog.sync_catalog(s, stripe_api.client())
            doctor_plans = list(s.scalars(select(Plan).where(Plan.audience == "doctor")))
        prices = [
            p for plan in doctor_plans for p in (plan.stripe_monthly_price_id, plan.stripe_annual_price_id)
        ]
        names = [plan.name for plan in doctor_plans]

        log(f"making at least {args.events} events in the double")
        started = time.monotonic()
        with httpx.Client(base_url=api.base_url, timeout=30) as client:
            while len(double.events) < args.events:
                for doctor in create_doctors([None] * 25):
                    r = client.post(
                        "/api/subscription/create-checkout-session",
                        json={
                            "planName": rng.choice(names),
                            "billingCycle": rng.choice(["monthly", "annual"]),
                            "userId": str(doctor.account_id),
                        },
                        headers={"Authorization": f"Bearer {doctor.token}"},
                    )
                    r.raise_for_status()
                    session = double.complete_checkout(r.json()["sessionId"])
                    _life(double, str(session["subscription"]), [p for p in prices if p], rng)
        events = list(double.events)
        deliveries = events + rng.sample(events, round(len(events) * args.duplicates))
        rng.shuffle(deliveries)
        log(f"{len(events)} events ({len(deliveries)} deliveries) made in {time.monotonic() - started:.1f}s")

        worker = dramatiq.Worker(broker, worker_threads=4)
        worker.start()
        try:
            t0 = time.monotonic()
            with httpx.Client(base_url=api.base_url, timeout=30) as client:

                def post(event: dict[str, Any]) -> int:
                    content, headers = double.webhook_request(event)
                    return client.post("/api/stripe/webhook", content=content, headers=headers).status_code

                with ThreadPoolExecutor(max_workers=8) as pool:
                    codes = list(pool.map(post, deliveries))
            posted = time.monotonic() - t0
            while True:
                with session_scope() as s:
                    pending = s.scalar(
                        select(func.count())
                        .select_from(ProviderEvent)
                        .where(ProviderEvent.processed_at.is_(None))
                    )
                if not pending or time.monotonic() - t0 > 600:
                    break
                time.sleep(0.1)
            elapsed = time.monotonic() - t0
        finally:
            worker.stop()
        refused = sum(1 for c in codes if c != 200)
        problems, n_subs, n_invoices = _mismatches(double)
        for problem in problems[:20]:
            log(f"mismatch: {problem}")
        summary.add("deliveries refused (non-200)", str(refused), "0", refused == 0)
        summary.add("events left unprocessed", str(pending or 0), "0", not pending)
        summary.add(
            f"mismatched final states ({n_subs} subscriptions, {n_invoices} invoices)",
            str(len(problems)),
            "0",
            not problems,
        )
        summary.add("deliveries accepted per second (8 client threads)", f"{len(deliveries) / posted:.0f}")
        summary.add(
            "events processed per second (first POST to last processed)", f"{len(events) / elapsed:.0f}"
        )

    try:
        return run_bench(
            f"{args.events}+ events, {args.duplicates:.0%} duplicates, shuffled (seed {args.seed})",
            summary,
            body,
            env=env,
            modules=["cara.billing.events", "cara.billing.sync", "workers.registry"],
        )
    finally:
        double.stop()


if __name__ == "__main__":
    sys.exit(main())
