"""recordings.* actors: consultations recorded offline, transcribed and drafted once uploaded."""

from __future__ import annotations

import dramatiq

from cara.recordings import service
from workers.broker import broker


# No automatic retries: a failure is shown to the doctor, who retries (the audio is kept).
@dramatiq.actor(
    broker=broker, actor_name=service.ACTOR, queue_name="recordings", max_retries=0, time_limit=15 * 60_000
)
def process(schema: str, upload_id: str) -> None:
    service.process(schema, upload_id)
