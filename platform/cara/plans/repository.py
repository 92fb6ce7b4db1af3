"""The queries of the plan catalogue."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from cara.models import Plan


def plans_by_code(session: Session) -> dict[str, Plan]:
    """Every plan, active or not, by its code."""
    return {p.code: p for p in session.scalars(select(Plan))}
