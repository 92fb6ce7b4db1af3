"""`python -m cara.seed`: seed the plan catalogue (and, with Stripe configured, its
Products and Prices in Stripe) and the first admin (idempotent)."""

from __future__ import annotations

from cara.admin_console.service import ensure_first_admin
from cara.billing import catalog, stripe_api
from cara.kit.db import session_scope
from cara.kit.errors import CaraError
from cara.plans.seed import seed_plans


def main() -> None:
    with session_scope() as session:
        changed = seed_plans(session)
        admin = ensure_first_admin(session)
    print(f"plans seeded ({changed} changed); first admin {'created' if admin else 'unchanged'}")
    if not stripe_api.is_configured():
        print("stripe not configured (STRIPE_SECRET_KEY unset): payments are off")
        return
    try:
        with session_scope() as session, stripe_api.provider_errors():
            count = catalog.sync_catalog(session, stripe_api.client())
    except CaraError as exc:
        # The API still starts; /api/stripe/verify reports payments as not configured until
        # `python -m cara.billing sync-catalog` succeeds.
        print(f"stripe catalogue not synced: {exc.message}")
        return
    print(f"stripe catalogue synced ({count} plans)")


if __name__ == "__main__":
    main()
