"""Every query of the audit domain (reading the tenant's log)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from cara.models import Account, TenantAuditEvent


def page(
    session: Session,
    *,
    group: str | None,
    actor: uuid.UUID | None,
    since: datetime | None,
    until: datetime | None,
    before_id: int | None,
    limit: int,
) -> Sequence[TenantAuditEvent]:
    """Entries of the tenant the session is bound to, newest first (keyset on the id)."""
    stmt = select(TenantAuditEvent).order_by(TenantAuditEvent.id.desc()).limit(limit)
    if group:
        stmt = stmt.where(TenantAuditEvent.action.startswith(f"{group}.", autoescape=True))
    if actor is not None:
        stmt = stmt.where(TenantAuditEvent.actor_account_id == actor)
    if since is not None:
        stmt = stmt.where(TenantAuditEvent.created_at >= since)
    if until is not None:
        stmt = stmt.where(TenantAuditEvent.created_at < until)
    if before_id is not None:
        stmt = stmt.where(TenantAuditEvent.id < before_id)
    return session.scalars(stmt).all()


def account_names(session: Session, ids: set[uuid.UUID], tenant_id: uuid.UUID) -> dict[uuid.UUID, str]:
    """Names of this tenant's accounts among `ids`."""
    if not ids:
        return {}
    rows = session.execute(
        select(Account.id, Account.name).where(Account.id.in_(ids), Account.tenant_id == tenant_id)
    )
    return {row[0]: row[1] for row in rows}
