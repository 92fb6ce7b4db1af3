"""The live domain's gauge: open consultations of this API process, by console."""

from __future__ import annotations

from collections.abc import Iterator

from opentelemetry.metrics import Meter, Observation

from cara.live.assistant_profiles import ASSISTANT_PROFILES
from cara.live.relay import open_consultations
from cara.observability import names
from cara.observability.metrics import observe_gauge


def live_gauges(meter: Meter) -> None:
    """Gauges of an API process: its open live consultations."""
    observe_gauge(meter, names.LIVE_SESSIONS, _live_sessions)


def _live_sessions() -> Iterator[Observation]:
    counts = open_consultations()
    # Every console, 0 included: a series that stops being reported reads as missing, not as idle.
    for console in sorted(ASSISTANT_PROFILES):
        yield Observation(counts.get(console, 0), {"specialty": console})
