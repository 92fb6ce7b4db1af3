"""Writing audit entries. Details hold ids and field names, never clinical text."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.orm import Session

from cara.kit.platform_audit import record_platform
from cara.models import TenantAuditEvent

__all__ = ["record_platform", "record_tenant"]


def record_tenant(
    session: Session,
    *,
    action: str,
    actor_id: uuid.UUID | None,
    target_type: str | None = None,
    target_id: object | None = None,
    detail: dict[str, Any] | None = None,
) -> None:
    """Add an entry to the tenant's log; `session` must be bound to that tenant."""
    session.add(
        TenantAuditEvent(
            action=action,
            actor_account_id=actor_id,
            target_type=target_type,
            target_id=str(target_id) if target_id is not None else None,
            detail=detail or {},
        )
    )
