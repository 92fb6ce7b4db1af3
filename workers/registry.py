"""The actor registry: importing this module declares every actor (through `workers.sender`).

`python -m dramatiq workers.registry` starts a worker for all of them.
"""

from __future__ import annotations

from cara.kit.logging import configure_logging
from cara.observability.tracing import setup_tracing
from workers import sender
from workers.broker import broker

configure_logging()
setup_tracing(service_name="cara-worker", instrument_app=None)
# Actors that enqueue jobs of their own send them through the broker.
sender.install()

__all__ = ["broker"]
