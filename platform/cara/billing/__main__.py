"""`python -m cara.billing sync-catalog`: create or refresh the plans' Products and Prices in Stripe."""

from __future__ import annotations

import argparse
import sys

from cara.billing import catalog, stripe_api
from cara.kit.db import session_scope
from cara.kit.errors import CaraError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cara.billing")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("sync-catalog", help="put every active plan in Stripe (idempotent)")
    parser.parse_args(argv)
    try:
        client = stripe_api.client()
        with session_scope() as session, stripe_api.provider_errors():
            count = catalog.sync_catalog(session, client)
    except CaraError as exc:
        print(f"sync-catalog failed: {exc.message}", file=sys.stderr)
        return 1
    print(f"{count} plans in Stripe")
    return 0


if __name__ == "__main__":
    sys.exit(main())
