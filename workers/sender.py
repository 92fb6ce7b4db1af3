"""How jobs named in `cara.kit.jobs` reach Dramatiq: by actor name, on the actor's queue.

Importing this module declares every actor (so every actor name resolves to
its queue); `install()` makes it the job sender of the process. The API
installs it at start-up, and so do the worker and the scheduler.
"""

from __future__ import annotations

from typing import Any

from cara.kit import jobs
from workers.actors import (  # noqa: F401  (declares the actors)
    analytics,
    billing,
    clinical,
    consultations,
    mail,
    maintenance,
    recordings,
    summaries,
)
from workers.broker import broker


class BrokerSender:
    """Sends a job as a message to the actor that carries its name."""

    def queue_name(self, actor_name: str) -> str:
        return str(broker.get_actor(actor_name).queue_name)

    def send(self, actor_name: str, kwargs: dict[str, Any], options: dict[str, Any]) -> None:
        broker.get_actor(actor_name).send_with_options(kwargs=kwargs, **options)


def install() -> None:
    """Send this process's jobs through the Dramatiq broker."""
    jobs.install_sender(BrokerSender())


__all__ = ["broker", "install"]
