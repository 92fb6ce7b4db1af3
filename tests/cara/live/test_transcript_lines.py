"""Fragments become numbered lines: per speaker, closed by the other side, turns and reconnects."""

from __future__ import annotations

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
