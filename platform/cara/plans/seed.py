"""Idempotent upsert of the plan catalogue into platform.plans."""

from __future__ import annotations

from sqlalchemy.orm import Session

from cara.models import Plan
from cara.plans import repository
from cara.plans.catalog import CATALOG


def seed_plans(session: Session) -> int:
    """Insert missing plans and refresh existing ones by code; returns how many changed."""
    existing = repository.plans_by_code(session)
    changed = 0
    for spec in CATALOG:
        plan = existing.get(spec.code)
        values = {
            "audience": spec.audience,
            "name": spec.name,
            "price_cents": spec.price_cents,
            "annual_price_cents": spec.annual_price_cents,
            "max_doctors": spec.max_doctors,
            "features": list(spec.features),
            "sort_order": spec.sort_order,
        }
        if plan is None:
            session.add(Plan(code=spec.code, is_active=True, **values))
            changed += 1
            continue
        if any(getattr(plan, k) != v for k, v in values.items()):
            for k, v in values.items():
                setattr(plan, k, v)
            changed += 1
    session.flush()
    return changed
