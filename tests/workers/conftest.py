from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import dramatiq
import pytest


@pytest.fixture
def worker() -> Iterator[Any]:
    """A real Dramatiq worker on the test Redis, running in this process."""
    from workers.registry import broker

    broker.flush_all()
    w = dramatiq.Worker(broker, worker_threads=2, worker_timeout=50)
    w.start()
    try:
        yield broker
    finally:
        w.stop()
