"""Whether this API process is shutting down (draining).

Set by `cara.serve` when the process receives SIGTERM: from then on the
readiness probe answers 503 and new live consultations are turned away with
close code 1012, so the load balancer and the browsers move to another
replica while this one finishes what it holds.
"""

from __future__ import annotations

import threading

_draining = threading.Event()


def begin_draining() -> None:
    _draining.set()


def is_draining() -> bool:
    return _draining.is_set()


def reset() -> None:
    """Back to serving (tests that drain a server and then go on using the app)."""
    _draining.clear()
