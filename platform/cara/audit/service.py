"""Writing audit entries. Details hold ids and field names, never clinical text."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, TypeVar

from sqlalchemy.orm import Session

from cara.audit import repository
from cara.audit.schemas import AuditEntry, AuditPage
from cara.kit import listing
from cara.kit.errors import BadRequest, NotFound, ValidationFailed
from cara.kit.platform_audit import record_platform
from cara.models import TenantAuditEvent

T = TypeVar("T")

__all__ = ["hospital_log", "purge_expired", "record_platform", "record_tenant"]


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


PAGE_SIZE = 50
MAX_PAGE_SIZE = 100


def purge_expired(
    session: Session,
    ids: Sequence[T],
    delete: Callable[[Session, Sequence[T]], None],
    *,
    action: str,
    target_type: str,
) -> int:
    """The one way unsigned data past its time goes (transcripts and drafts never signed, audio
    never finished): `delete` removes the rows, and one audit event without an actor (the
    schedule) says how many, never which. Returns how many."""
    if ids:
        delete(session, ids)
        record_tenant(
            session,
            action=action,
            actor_id=None,
            target_type=target_type,
            detail={f"{target_type}s": len(ids)},
        )
    return len(ids)


ACCOUNT_TARGETS = frozenset({"doctor", "account"})


def _account_target(row: TenantAuditEvent) -> uuid.UUID | None:
    """The account an entry is about, when it is about a doctor or an account."""
    if row.target_type not in ACCOUNT_TARGETS or not row.target_id:
        return None
    try:
        return uuid.UUID(row.target_id)
    except ValueError:
        return None


def hospital_log(
    session: Session,
    tenant_id: uuid.UUID | None,
    *,
    group: str | None = None,
    actor: str | None = None,
    since: date | None = None,
    until: date | None = None,
    cursor: str | None = None,
    limit: int = PAGE_SIZE,
) -> AuditPage:
    """A page of the signed-in hospital's own audit log (its tenant's), newest first: who added,
    edited or deactivated doctors, viewed or exported notes, changed the record settings."""
    if tenant_id is None:
        raise NotFound("Not found.")
    actor_id: uuid.UUID | None = None
    if actor:
        try:
            actor_id = uuid.UUID(actor)
        except ValueError as exc:
            raise ValidationFailed({"actor": "Invalid account id"}) from exc
    before = None
    if cursor:
        (raw,) = listing.decode_cursor(cursor, 1)
        if not raw.isdigit():
            raise BadRequest(listing.BAD_CURSOR, fields={"cursor": "Invalid cursor"})
        before = int(raw)
    rows = repository.page(
        session,
        group=group,
        actor=actor_id,
        since=datetime.combine(since, time.min, tzinfo=UTC) if since else None,
        until=datetime.combine(until + timedelta(days=1), time.min, tzinfo=UTC) if until else None,
        before_id=before,
        limit=limit + 1,
    )
    more = len(rows) > limit
    rows = rows[:limit]
    actors = {row.actor_account_id for row in rows if row.actor_account_id is not None}
    targets = {target for row in rows if (target := _account_target(row)) is not None}
    names = repository.account_names(session, actors | targets, tenant_id)
    items = [
        AuditEntry(
            id=str(row.id),
            at=row.created_at,
            action=row.action,
            actorId=str(row.actor_account_id) if row.actor_account_id else None,
            actorName=names.get(row.actor_account_id) if row.actor_account_id else None,
            targetType=row.target_type,
            targetId=row.target_id,
            targetName=names.get(target) if (target := _account_target(row)) is not None else None,
            detail=row.detail or {},
        )
        for row in rows
    ]
    return AuditPage(
        items=items, nextCursor=listing.encode_cursor(str(rows[-1].id)) if more and rows else None
    )
