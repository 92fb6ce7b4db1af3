"""Fragments become numbered lines: per speaker, closed by the other side, turns and reconnects."""

from __future__ import annotations

from typing import Any

from cara.live.transcript import LineAssembler


def texts(lines: list) -> list[tuple[int, str, str]]:  # type: ignore[type-arg]
    return [(line.seq, line.speaker, line.text) for line in lines]


def test_interim_messages_carry_the_whole_line_so_far() -> None:
    lines = LineAssembler()
    closed, interim = lines.add("user", "What is")
    assert closed == [] and interim is not None and interim["text"] == "What is" and interim["final"] is False
    _, interim = lines.add("user", " the dose?")
    assert interim is not None and interim["text"] == "What is the dose?"


def test_the_other_speaker_closes_a_line() -> None:
    lines = LineAssembler()
    lines.add("user", "Hey Cara")
    closed, _ = lines.add("assistant", "Yes?")
    assert texts(closed) == [(0, "user", "Hey Cara")]
    closed, _ = lines.add("user", "Thanks")
    assert texts(closed) == [(1, "assistant", "Yes?")]


def test_close_all_keeps_the_order_in_which_lines_began() -> None:
    lines = LineAssembler()
    lines.add("user", "first")
    lines._open["assistant"] = ("second", lines._open["user"][1].replace(year=2100))
    assert texts(lines.close_all()) == [(0, "user", "first"), (1, "assistant", "second")]
    assert lines.close_all() == []


def test_blank_fragments_make_no_line() -> None:
    lines = LineAssembler()
    lines.add("assistant", "   ")
    assert lines.close_all() == []


def test_whole_lines_close_open_ones_first() -> None:
    lines = LineAssembler()
    lines.add("assistant", "Checking the cord dose")
    closed = lines.whole("tool", "Dose-constraint check: ...")
    assert texts(closed) == [
        (0, "assistant", "Checking the cord dose"),
        (1, "tool", "Dose-constraint check: ..."),
    ]
    assert [line.seq for line in lines.lines] == [0, 1]


def write(lines: list[Any], store_lines: Any, monkeypatch: Any, retries: int) -> bool:
    """Run a writer over `lines` with `store_lines` in place of the database; returns `failed`."""
    import asyncio
    import uuid

    from cara.live import transcript
    from cara.live.transcript import TranscriptWriter
    from tenants.sessions import TenantScope

    consultation_id = uuid.uuid4()
    stored_for_real = transcript.store_lines

    def this_consultations(scope: Any, consultation: Any, batch: Any) -> None:
        # Only this writer's lines go to `store_lines`: a relay of an earlier test may still be
        # storing its last lines on a server thread of this process, through the same module.
        if consultation != consultation_id:
            return stored_for_real(scope, consultation, batch)
        return store_lines(scope, consultation, batch)  # type: ignore[no-any-return]

    monkeypatch.setattr(transcript, "store_lines", this_consultations)
    monkeypatch.setattr(transcript, "STORE_RETRY_DELAYS_SECONDS", (0.01,) * retries)

    async def consultation() -> bool:
        writer = TranscriptWriter(TenantScope("independent", "role", uuid.uuid4()), consultation_id)
        for line in lines:
            writer.put([line])
        await writer.close()
        return writer.failed

    return asyncio.run(consultation())


def two_lines() -> list[Any]:
    lines = LineAssembler()
    lines.add("user", "Hey Cara")
    closed, _ = lines.add("assistant", "Yes?")
    return closed + lines.close_all()


def test_lines_outlive_a_database_failover(monkeypatch: Any) -> None:
    """Storing fails for a while (a failover): the lines wait and are stored once it answers."""
    from sqlalchemy.exc import OperationalError

    stored: list[list[tuple[int, str, str]]] = []
    failures = iter(range(5))

    def store_lines(scope: Any, consultation_id: Any, batch: list[Any]) -> None:
        if next(failures, None) is not None:
            raise OperationalError("INSERT", {}, Exception("server closed the connection"))
        stored.append(texts(batch))

    assert write(two_lines(), store_lines, monkeypatch, retries=6) is False
    assert [line for batch in stored for line in batch] == [(0, "user", "Hey Cara"), (1, "assistant", "Yes?")]


def test_lines_are_given_up_only_after_every_retry(monkeypatch: Any) -> None:
    calls: list[int] = []

    def store_lines(*args: Any) -> None:
        calls.append(1)
        raise OSError("down")

    assert write(two_lines(), store_lines, monkeypatch, retries=3) is True
    assert len(calls) == 4  # one batch: the first try and three retries
