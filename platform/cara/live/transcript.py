"""Transcripts: fragments assembled into lines, and lines stored in the tenant schema.

The service transcribes both sides in fragments. A line is one speaker's
contiguous speech: it ends when the other side speaks, at the end of a turn,
on an interruption or tool call, and before any reconnection, so nothing
heard is left unstored when the upstream connection changes.

Lines are written by the consultation record (cara.consultations.service.store_lines) in a
transaction the writer opens, bound to the doctor's tenant schema and running under the
tenant's database role, as every request of that doctor is. The writes are small and
synchronous; the relay runs them on a worker thread, one consultation at a time and in order.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from datetime import datetime

from cara.consultations import service as consultations
from cara.models.base import utcnow
from tenants.sessions import TenantScope, TenantTransactions

log = logging.getLogger("cara.live")

Speaker = str  # "user" | "assistant" | "tool"


@dataclass(frozen=True)
class Line(consultations.SpokenLine):
    """A closed line as the relay sends it to the browser and hands it to the record."""

    def as_message(self) -> dict[str, object]:
        return {
            "type": "transcript",
            "speaker": self.speaker,
            "text": self.text,
            "final": True,
            "at": self.at.isoformat(),
            "seq": self.seq,
        }


class LineAssembler:
    """Collects fragments per speaker and closes them into numbered lines."""

    def __init__(self) -> None:
        self._open: dict[Speaker, tuple[str, datetime]] = {}
        self._next_seq = 0
        self.lines: list[Line] = []  # every finished line, for priming a fresh upstream session

    def restore(self, lines: list[Line]) -> None:
        """Continue a consultation whose lines are already stored (a rejoin): numbering goes on."""
        self.lines = list(lines)
        self._next_seq = max((line.seq for line in lines), default=-1) + 1

    def add(self, speaker: Speaker, fragment: str) -> tuple[list[Line], dict[str, object] | None]:
        """Add a fragment; returns the lines it closed (the other speakers') and the interim message."""
        closed = self.close(*(s for s in list(self._open) if s != speaker))
        if not fragment:
            return closed, None
        text, started = self._open.get(speaker, ("", utcnow()))
        text += fragment
        self._open[speaker] = (text, started)
        interim = {
            "type": "transcript",
            "speaker": speaker,
            "text": text.strip(),
            "final": False,
            "at": started.isoformat(),
        }
        return closed, interim

    def close_all(self) -> list[Line]:
        return self.close(*self._open)

    def close(self, *speakers: Speaker) -> list[Line]:
        """Close the open lines of `speakers`, in the order they began."""
        pending = sorted(((self._open[s][1], s) for s in speakers if s in self._open), key=lambda p: p[0])
        closed: list[Line] = []
        for _, speaker in pending:
            text, started = self._open.pop(speaker)
            if text.strip():
                closed.append(self._line(speaker, text.strip(), started))
        return closed

    def whole(self, speaker: Speaker, text: str) -> list[Line]:
        """A line that arrives complete (a typed question, a tool result), after closing open ones."""
        closed = self.close_all()
        closed.append(self._line(speaker, text, utcnow()))
        return closed

    def _line(self, speaker: Speaker, text: str, at: datetime) -> Line:
        line = Line(seq=self._next_seq, speaker=speaker, text=text, at=at)
        self._next_seq += 1
        self.lines.append(line)
        return line


# ------------------------------------------------------------------ storage


# A database failover takes seconds to tens of seconds: the lines wait in memory
# and are retried for about half a minute before they are given up.
STORE_RETRY_DELAYS_SECONDS: tuple[float, ...] = (0.2, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0)


def store_lines(scope: TenantScope, consultation_id: uuid.UUID, lines: list[Line]) -> None:
    """One transaction in the doctor's tenant, under its role, in which the record stores them."""
    TenantTransactions.of(scope).run(consultations.store_lines, consultation_id, lines)


class TranscriptWriter:
    """Stores lines in arrival order on a worker thread, without holding up the audio."""

    def __init__(self, scope: TenantScope, consultation_id: uuid.UUID) -> None:
        self.scope = scope
        self.consultation_id = consultation_id
        self._queue: asyncio.Queue[list[Line] | None] = asyncio.Queue()
        self._task = asyncio.create_task(self._run(), name="transcript-writer")
        self.failed = False

    def put(self, lines: list[Line]) -> None:
        if lines:
            self._queue.put_nowait(lines)

    async def _run(self) -> None:
        while True:
            batch = await self._queue.get()
            if batch is None:
                return
            # Take whatever else is waiting: one transaction for a burst of lines.
            while not self._queue.empty():
                more = self._queue.get_nowait()
                if more is None:
                    self._queue.put_nowait(None)
                    break
                batch.extend(more)
            await self._store(batch)

    async def _store(self, batch: list[Line]) -> None:
        for attempt, delay in enumerate((*STORE_RETRY_DELAYS_SECONDS, None), start=1):
            try:
                await asyncio.to_thread(store_lines, self.scope, self.consultation_id, batch)
                return
            except Exception as exc:
                # Only the error type is logged: the lines are clinical text.
                log.warning(
                    "storing transcript lines failed",
                    extra={"attempt": attempt, "lines": len(batch), "error": type(exc).__name__},
                )
                if delay is None:
                    break
                await asyncio.sleep(delay)
        self.failed = True
        log.error("transcript lines lost after retries", extra={"lines": len(batch)})

    async def close(self) -> None:
        """Store everything queued, then stop."""
        self._queue.put_nowait(None)
        await self._task
