"""recordings.* actors: consultations recorded offline, transcribed and drafted once uploaded."""

from __future__ import annotations

import logging

import dramatiq

from cara.kit.db import session_scope
from cara.recordings import service
from tenants import registry
from workers.broker import broker

log = logging.getLogger("cara.recordings")


# No automatic retries: a failure is shown to the doctor, who retries (the audio is kept).
@dramatiq.actor(
    broker=broker, actor_name=service.ACTOR, queue_name="recordings", max_retries=0, time_limit=15 * 60_000
)
def process(schema: str, upload_id: str) -> None:
    service.process(schema, upload_id)


@dramatiq.actor(broker=broker, actor_name=service.EXPIRE_ACTOR, queue_name="recordings", max_retries=3)
def expire() -> None:
    """Abandoned recordings of every tenant schema, each in its own transaction."""
    with session_scope() as session:
        schemas = registry.all_schema_names(session)
    expired = failed = 0
    for schema in schemas:
        try:
            expired += service.expire_abandoned(schema)
        except Exception as exc:
            failed += 1
            log.warning(
                "recording expiry failed for a tenant", extra={"schema": schema, "error": type(exc).__name__}
            )
    log.info(
        "abandoned recordings expired", extra={"schemas": len(schemas), "expired": expired, "failed": failed}
    )
    if failed:
        raise RuntimeError(f"recording expiry failed in {failed} tenant schemas")
