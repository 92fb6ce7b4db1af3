"""consultations.* actors: retention of the consultation record, run by the scheduler."""

from __future__ import annotations

import logging

import dramatiq

from cara.consultations import service
from workers.actors.tenancy import in_every_tenant
from workers.broker import broker

log = logging.getLogger("cara.consultations")


@dramatiq.actor(broker=broker, actor_name=service.RETENTION_ACTOR, queue_name="consultations", max_retries=3)
def apply_retention() -> None:
    """Every tenant schema in its own transaction: one failing schema does not stop the others."""
    in_every_tenant(service.apply_retention, job="retention", counted="purged", log=log)
