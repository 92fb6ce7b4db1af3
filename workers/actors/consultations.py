"""consultations.* actors: retention of the consultation record, run by the scheduler."""

from __future__ import annotations

import logging

import dramatiq

from cara.consultations import service
from cara.kit.db import session_scope
from tenants import registry
from workers.broker import broker

log = logging.getLogger("cara.consultations")


@dramatiq.actor(broker=broker, actor_name=service.RETENTION_ACTOR, queue_name="consultations", max_retries=3)
def apply_retention() -> None:
    """Every tenant schema in its own transaction: one failing schema does not stop the others."""
    with session_scope() as session:
        schemas = registry.all_schema_names(session)
    purged = failed = 0
    for schema in schemas:
        try:
            purged += service.apply_retention(schema)
        except Exception as exc:
            failed += 1
            log.warning(
                "retention failed for a tenant", extra={"schema": schema, "error": type(exc).__name__}
            )
    log.info("retention applied", extra={"schemas": len(schemas), "purged": purged, "failed": failed})
    if failed:
        raise RuntimeError(f"retention failed in {failed} tenant schemas")
