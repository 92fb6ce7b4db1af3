"""recordings.* actors: consultations recorded offline, transcribed and drafted once uploaded."""

from __future__ import annotations

import logging

import dramatiq

from cara.recordings import service, speech
from tenants.sessions import TenantTransactions
from workers.actors.tenancy import in_every_tenant
from workers.broker import broker

log = logging.getLogger("cara.recordings")


# No automatic retries: a failure is shown to the doctor, who retries (the audio is kept).
@dramatiq.actor(
    broker=broker, actor_name=service.ACTOR, queue_name="recordings", max_retries=0, time_limit=15 * 60_000
)
def process(schema: str, upload_id: str) -> None:
    """Each step of the job is a transaction of its own in the upload's tenant. While every
    speech recognition process of this worker is busy, the job comes back later instead of
    holding one of the worker's threads."""
    try:
        service.process(TenantTransactions(schema), upload_id)
    except speech.Busy:
        process.send_with_options(args=(schema, upload_id), delay=BUSY_DELAY_MS)


# How long a recording waits for a free recognition process before it is tried again.
BUSY_DELAY_MS = 3_000


@dramatiq.actor(broker=broker, actor_name=service.EXPIRE_ACTOR, queue_name="recordings", max_retries=3)
def expire() -> None:
    """Abandoned recordings of every tenant schema, each in its own transaction."""
    in_every_tenant(
        lambda session, _schema: service.expire_abandoned(session),
        job="recording expiry",
        counted="expired",
        log=log,
    )
