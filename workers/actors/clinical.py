"""clinical.* actors: a radiotherapy plan's DVHs computed and checked against QUANTEC."""

from __future__ import annotations

import logging

import dramatiq

from cara.clinical import service
from tenants.sessions import TenantTransactions
from workers.actors.tenancy import in_every_tenant
from workers.broker import broker

log = logging.getLogger("cara.clinical")


# No automatic retries: a failure is shown to the radiotherapist, who computes again (the files are kept).
@dramatiq.actor(
    broker=broker, actor_name=service.ACTOR, queue_name="clinical", max_retries=0, time_limit=10 * 60_000
)
def compute_plan_review(schema: str, review_id: str) -> None:
    """Each step is a transaction of its own in the review's tenant: claim, progress, result."""
    service.compute(TenantTransactions(schema), review_id)


@dramatiq.actor(broker=broker, actor_name=service.RETENTION_ACTOR, queue_name="clinical", max_retries=3)
def apply_retention() -> None:
    """Every tenant schema in its own transaction: one failing schema does not stop the others."""
    in_every_tenant(service.apply_retention, job="plan review retention", counted="deleted", log=log)
