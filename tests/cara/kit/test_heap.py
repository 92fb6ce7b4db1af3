"""Start-up's objects are frozen out of the garbage collector's full collections, once a process."""

from __future__ import annotations

import asyncio
import gc

import pytest

import cara.main
from cara.kit import heap


def test_freezes_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(heap, "_frozen", False)
    monkeypatch.setattr(gc, "collect", lambda: calls.append("collect"))
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    heap.freeze_startup_heap()
    heap.freeze_startup_heap()
    # Garbage first (frozen objects are never collected), then the freeze; a second lifespan
    # in the same process changes nothing.
    assert calls == ["collect", "freeze"]


def test_lifespan_freezes_before_serving(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(cara.main, "freeze_startup_heap", lambda: calls.append("freeze"))

    async def start_and_stop() -> None:
        async with cara.main.app.router.lifespan_context(cara.main.app):
            assert calls == ["freeze"]

    asyncio.run(start_and_stop())
