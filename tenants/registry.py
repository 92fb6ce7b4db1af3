"""Reading the tenant registry (platform.tenants)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from cara.models import Tenant


def all_tenants(session: Session) -> list[Tenant]:
    return list(session.scalars(select(Tenant).order_by(Tenant.created_at, Tenant.schema_name)))


def all_schema_names(session: Session) -> list[str]:
    return list(session.scalars(select(Tenant.schema_name).order_by(Tenant.schema_name)))
