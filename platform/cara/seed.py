"""`python -m cara.seed`: seed the plan catalogue and the first admin (idempotent)."""

from __future__ import annotations

from cara.admins.bootstrap import ensure_first_admin
from cara.kit.db import session_scope
from cara.plans.seed import seed_plans


def main() -> None:
    with session_scope() as session:
        changed = seed_plans(session)
        admin = ensure_first_admin(session)
    print(f"plans seeded ({changed} changed); first admin {'created' if admin else 'unchanged'}")


if __name__ == "__main__":
    main()
