"""The access log's own writer (cara.kit.logging.access_line) writes what the logging module would."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
from typing import Any

import pytest

from cara.kit import logging as cara_logging
from cara.kit.logging import JsonFormatter, access_line, request_id_var


@pytest.fixture
def json_stream(monkeypatch: pytest.MonkeyPatch) -> tuple[io.StringIO, logging.StreamHandler[Any]]:
    """The configuration configure_logging makes, writing to a string instead of stdout."""
    stream = io.StringIO()
    handler: logging.StreamHandler[Any] = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    monkeypatch.setattr(logging.root, "handlers", [handler])
    monkeypatch.setattr(logging.root, "level", logging.INFO)
    monkeypatch.setattr(cara_logging, "_json_handler", handler)
    logging.getLogger("cara.access").setLevel(logging.NOTSET)
    return stream, handler


def test_the_line_is_the_logging_modules_line(json_stream: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    stream, handler = json_stream
    # pytest adds its own capturing handlers to the root for each test: the configuration of a
    # running server has only ours.
    monkeypatch.setattr(logging.root, "handlers", [handler])
    emitted: list[logging.LogRecord] = []

    def emit(record: logging.LogRecord) -> None:
        emitted.append(record)
        logging.StreamHandler.emit(handler, record)

    monkeypatch.setattr(handler, "emit", emit)
    token = request_id_var.set("req-12345678")
    try:
        access_line("GET", "/api/doctors/{id}", 404, 1.25)
        logging.getLogger("cara.access").info(
            "request",
            extra={"method": "GET", "route": "/api/doctors/{id}", "status": 404, "duration_ms": 1.25},
        )
    finally:
        request_id_var.reset(token)
    assert len(emitted) == 1, "the first line was written without a LogRecord"
    ours, theirs = stream.getvalue().splitlines()
    ours_entry, theirs_entry = json.loads(ours), json.loads(theirs)
    timestamp = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$")
    assert timestamp.match(ours_entry.pop("ts")) and timestamp.match(theirs_entry.pop("ts"))
    assert list(ours_entry.items()) == list(theirs_entry.items())
    assert ours_entry["request_id"] == "req-12345678" and ours_entry["route"] == "/api/doctors/{id}"


def test_any_other_handler_gets_a_record(json_stream: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="cara.access")
    access_line("POST", "/api/auth/login", 200, 3.0)
    records = [r for r in caplog.records if r.name == "cara.access"]
    assert len(records) == 1 and records[0].route == "/api/auth/login"  # type: ignore[attr-defined]
    assert records[0].status == 200  # type: ignore[attr-defined]


def test_nothing_is_written_below_the_level(json_stream: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    stream, handler = json_stream
    monkeypatch.setattr(logging.root, "handlers", [handler])
    monkeypatch.setattr(logging.root, "level", logging.WARNING)
    logging.getLogger("cara.access")._cache.clear()  # type: ignore[attr-defined]
    access_line("GET", "/api/auth/user", 200, 0.5)
    assert stream.getvalue() == ""


@pytest.fixture
def json_handler(monkeypatch: pytest.MonkeyPatch) -> tuple[io.StringIO, logging.StreamHandler[Any]]:
    """configure_logging's own handler class, writing to a string."""
    stream = io.StringIO()
    handler: logging.StreamHandler[Any] = cara_logging._JsonHandler(stream)
    handler.setFormatter(JsonFormatter())
    monkeypatch.setattr(logging.root, "handlers", [handler])
    monkeypatch.setattr(logging.root, "level", logging.INFO)
    monkeypatch.setattr(cara_logging, "_json_handler", handler)
    monkeypatch.setattr(cara_logging, "_access_lines", cara_logging._AccessLines())
    logging.getLogger("cara.access").setLevel(logging.NOTSET)
    logging.getLogger("cara.access")._cache.clear()  # type: ignore[attr-defined]
    return stream, handler


def test_in_a_server_lines_wait_a_moment_and_keep_their_order(
    json_handler: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream, handler = json_handler
    monkeypatch.setattr(logging.root, "handlers", [handler])  # pytest's own capture off

    async def requests() -> tuple[str, str, str]:
        access_line("GET", "/api/auth/user", 200, 0.5)
        access_line("GET", "/api/doctors", 200, 0.75)
        waiting = stream.getvalue()
        # Another line of the same handler: the waiting access lines go first.
        logging.getLogger("cara.test").warning("after the two requests")
        in_order = stream.getvalue()
        access_line("GET", "/api/health/live", 200, 0.1)
        before = stream.getvalue()
        await asyncio.sleep(cara_logging._AccessLines.DELAY * 3)
        return waiting, in_order, before + "|" + stream.getvalue()

    waiting, in_order, later = asyncio.run(requests())
    assert waiting == ""
    lines = [json.loads(line) for line in in_order.splitlines()]
    assert [e.get("route") or e["msg"] for e in lines] == [
        "/api/auth/user",
        "/api/doctors",
        "after the two requests",
    ]
    before, after = later.split("|")
    assert "/api/health/live" not in before
    assert json.loads(after.splitlines()[-1])["route"] == "/api/health/live"


def test_a_full_batch_is_written_without_waiting(json_handler: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    stream, handler = json_handler
    monkeypatch.setattr(logging.root, "handlers", [handler])  # pytest's own capture off

    async def requests() -> int:
        for _ in range(cara_logging._AccessLines.LIMIT):
            access_line("GET", "/api/auth/user", 200, 0.5)
        return len(stream.getvalue().splitlines())

    assert asyncio.run(requests()) == cara_logging._AccessLines.LIMIT


def test_waiting_lines_are_written_on_shutdown(json_handler: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    stream, handler = json_handler
    monkeypatch.setattr(logging.root, "handlers", [handler])  # pytest's own capture off

    async def request_then_shutdown() -> str:
        access_line("POST", "/api/auth/logout", 204, 1.0)
        waiting = stream.getvalue()
        cara_logging.flush_access_lines()
        return waiting

    assert asyncio.run(request_then_shutdown()) == ""
    assert json.loads(stream.getvalue())["route"] == "/api/auth/logout"


def test_a_route_with_quotes_is_still_one_json_line(
    json_handler: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream, handler = json_handler
    monkeypatch.setattr(logging.root, "handlers", [handler])  # pytest's own capture off
    token = request_id_var.set('req-"quoted"-1')
    try:
        access_line("GET", 'odd "route" \u00e9', 404, 2.0)
    finally:
        request_id_var.reset(token)
    entry = json.loads(stream.getvalue())
    assert entry["route"] == 'odd "route" \u00e9' and entry["request_id"] == 'req-"quoted"-1'


def test_lines_left_by_an_ended_loop_go_out_with_the_next_ones(
    json_handler: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream, handler = json_handler
    monkeypatch.setattr(logging.root, "handlers", [handler])  # pytest's own capture off

    async def a_request() -> None:
        access_line("GET", "/api/auth/user", 200, 0.5)  # its loop ends before the timer runs

    async def a_later_request() -> None:
        access_line("GET", "/api/doctors", 200, 0.75)
        await asyncio.sleep(cara_logging._AccessLines.DELAY * 3)

    asyncio.run(a_request())
    assert stream.getvalue() == ""
    asyncio.run(a_later_request())
    assert [json.loads(line)["route"] for line in stream.getvalue().splitlines()] == [
        "/api/auth/user",
        "/api/doctors",
    ]
