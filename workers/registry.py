"""The actor registry: importing this module declares every actor.

`python -m dramatiq workers.registry` starts a worker for all of them.
"""

from __future__ import annotations

from cara.kit.logging import configure_logging
from cara.observability.tracing import setup_tracing
from workers.actors import analytics, billing, mail, maintenance, summaries  # noqa: F401  (declares the actors)
from workers.broker import broker

configure_logging()
setup_tracing(service_name="cara-worker", instrument_app=None)

__all__ = ["broker"]
