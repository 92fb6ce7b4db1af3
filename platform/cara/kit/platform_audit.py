"""Writing entries of the platform audit trail (`platform.audit_events`).

Plumbing, so that tenant machinery (restore, erasure) can leave its record in
the same transaction as its work without depending on a domain; the audit
domain (`cara.audit.service`) offers the same function to the other domains.
Details hold ids, counts and field names, never clinical text or contact data.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.orm import Session

from cara.models import AuditEvent


def record_platform(
    session: Session,
    *,
    action: str,
    actor_id: uuid.UUID | None,
    actor_role: str | None,
    target_type: str | None = None,
    target_id: object | None = None,
    tenant_schema: str | None = None,
    detail: dict[str, Any] | None = None,
) -> None:
    """Add an entry to the platform audit trail; it is written when `session` commits."""
    session.add(
        AuditEvent(
            action=action,
            actor_account_id=actor_id,
            actor_role=actor_role,
            target_type=target_type,
            target_id=str(target_id) if target_id is not None else None,
            tenant_schema=tenant_schema,
            detail=detail or {},
        )
    )
