"""The garbage collector and a long-running API process.

After start-up an API process holds ~300,000 objects that live as long as it does (modules,
FastAPI's routes and models, SQLAlchemy's mappers, pydantic's validators). CPython's full
collection walks every one of them: ~0.15-0.4 s with the event loop stopped, several times a
minute under the live relay's churn (ops/bench/live_relay.py: seven full collections in a phase,
0.9 s the longest on a busy machine), which every open consultation and request waits out.
`gc.freeze()` moves what exists at the end of start-up to a generation the collector never walks;
collections then only walk what was made since (open connections, sessions, caches).
"""

from __future__ import annotations

import gc

_frozen = False


def freeze_startup_heap() -> None:
    """Collect start-up's garbage, then exempt what remains from every later collection. Called
    when the app's lifespan starts, before the first request; once per process (a test process
    enters many lifespans: what it made since is left to the collector as usual)."""
    global _frozen
    if _frozen:
        return
    _frozen = True
    gc.collect()
    gc.freeze()
