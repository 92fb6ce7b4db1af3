"""`python -m cara.billing`: payment operations.

sync-catalog                      create or refresh the plans' Products and Prices in Stripe
replay-events [--older-than MIN]  enqueue again the stored Stripe events still unprocessed
                                  after MIN minutes (default 10); see ops/runbook.md
"""

from __future__ import annotations

import argparse
import sys

from cara.billing import catalog, events, stripe_api
from cara.kit.db import session_scope
from cara.kit.errors import CaraError


def _sync_catalog() -> int:
    try:
        client = stripe_api.client()
        with session_scope() as session, stripe_api.provider_errors():
            count = catalog.sync_catalog(session, client)
    except CaraError as exc:
        print(f"sync-catalog failed: {exc.message}", file=sys.stderr)
        return 1
    print(f"{count} plans in Stripe")
    return 0


def _replay_events(older_than_minutes: float) -> int:
    with session_scope() as session:
        count = events.replay_pending(session, older_than_minutes=older_than_minutes)
    print(f"{count} unprocessed Stripe events enqueued again")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cara.billing",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("sync-catalog", help="put every active plan in Stripe (idempotent)")
    replay = commands.add_parser("replay-events", help="enqueue unprocessed Stripe events again")
    replay.add_argument("--older-than", type=float, default=10.0, metavar="MINUTES")
    args = parser.parse_args(argv)
    if args.command == "replay-events":
        if args.older_than < 0:
            parser.error("--older-than must be 0 or more minutes")
        return _replay_events(args.older_than)
    return _sync_catalog()


if __name__ == "__main__":
    sys.exit(main())
