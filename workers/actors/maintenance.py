"""maintenance.* actors, run periodically by the scheduler."""

from __future__ import annotations

import logging
from datetime import timedelta

import dramatiq

from cara.auth import repository as accounts
from cara.auth import service as auth_service
from cara.config import get_settings
from cara.kit.db import session_scope
from cara.models.base import utcnow
from cara.registration import repository as invitations
from tenants import erasure
from workers.broker import broker

log = logging.getLogger("cara.maintenance")


@dramatiq.actor(
    broker=broker, actor_name="maintenance.purge_expired_tokens", queue_name="maintenance", max_retries=3
)
def purge_expired_tokens() -> None:
    """Delete reset, invitation and pending sign-up tokens that expired (or were used) more than a
    day ago."""
    cutoff = utcnow() - timedelta(days=1)
    with session_scope() as session:
        accounts.delete_resets_expired_before(session, cutoff)
        invitations.delete_invitations_done_before(session, cutoff)
        invitations.delete_pending_signups_done_before(session, cutoff)


@dramatiq.actor(
    broker=broker,
    actor_name="maintenance.remove_unverified_hospitals",
    queue_name="tenant_cleanup",  # its own queue: an erasure takes a while and must not delay the rest
    max_retries=3,
)
def remove_unverified_hospitals() -> None:
    """Hospitals that never verified their email within UNVERIFIED_HOSPITAL_DAYS: the tenant is
    erased (schema, database role, accounts and platform rows; the erasure writes its audit entry)."""
    settings = get_settings()
    if not settings.hospital_email_verification:
        return
    with session_scope() as session:
        schemas = auth_service.unverified_hospitals(session, settings.unverified_hospital_days)
    for schema in schemas:
        report = erasure.erase_tenant(schema)
        log.info("unverified hospital removed", extra={"tenant_schema": schema, "tables": len(report.tables)})
