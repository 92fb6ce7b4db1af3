"""`python -m cara.analytics`: recompute rollups, now or for past periods.

python -m cara.analytics refresh
python -m cara.analytics rollup --granularity month --from 2026-01-01 [--to 2026-06-01]
"""

from __future__ import annotations

import argparse
import sys
from datetime import date

from cara.analytics import rollups
from cara.analytics.periods import GRANULARITIES, next_start, period_start
from cara.kit.db import session_scope


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cara.analytics",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("refresh")
    past = sub.add_parser("rollup")
    past.add_argument("--granularity", choices=GRANULARITIES, required=True)
    past.add_argument("--from", dest="start", type=date.fromisoformat, required=True)
    past.add_argument("--to", dest="end", type=date.fromisoformat)
    args = parser.parse_args(argv)

    with session_scope() as session:
        if args.command == "refresh":
            rollups.refresh_all(session)
            print("rollups refreshed")
            return 0
        start = period_start(args.granularity, args.start)
        end = period_start(args.granularity, args.end or args.start)
        count = 0
        while start <= end:
            rollups.rollup_period(session, args.granularity, start)
            start = next_start(args.granularity, start)
            count += 1
        print(f"{count} {args.granularity} rollup(s) recomputed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
