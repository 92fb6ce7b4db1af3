"""Structured (JSON line) logs carrying the request id and trace id.

Log calls pass ids and counts in `extra=`, never request bodies: nothing a
patient or clinician typed is ever written to the log.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import json.encoder
import logging
import sys
import time
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import TextIO

from opentelemetry import trace

request_id_var: ContextVar[str | None] = ContextVar("request_id", default=None)

_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


# One encoder for every line: json.dumps(..., default=str) built a new one per call (20 µs).
_ENCODER = json.JSONEncoder(default=str)


# The second a line was written in, and its date and time up to the second: they change once a
# second, so they are formatted once a second. One tuple, replaced whole: threads never see
# one second's number with another's text.
_ts_second: tuple[int, str] = (-1, "")


def _entry(created: float, level: str, logger: str, msg: str) -> dict[str, object]:
    """What every line starts with: time (UTC, milliseconds), level, logger, message, and the
    request id and trace id of the context it is written in."""
    second = int(created)
    cached = _ts_second if _ts_second[0] == second else _second_text(second)
    entry: dict[str, object] = {
        "ts": f"{cached[1]}.{int((created - second) * 1000):03d}+00:00",
        "level": level,
        "logger": logger,
        "msg": msg,
    }
    request_id = request_id_var.get()
    if request_id:
        entry["request_id"] = request_id
    span = trace.get_current_span().get_span_context()
    if span.is_valid:
        entry["trace_id"] = format(span.trace_id, "032x")
    return entry


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = _entry(record.created, record.levelname.lower(), record.name, record.getMessage())
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return _ENCODER.encode(entry)


_ACCESS = logging.getLogger("cara.access")
# The handler configure_logging installed: while it is the only one in the way of the access log,
# `access_line` may write the access log's lines to its stream itself (see there).
_json_handler: logging.StreamHandler[TextIO] | None = None


def access_line(method: str, route: str, status: int, duration_ms: float) -> None:
    """One access-log line (logger `cara.access`, message "request", with method, route, status
    and duration_ms), exactly as `log.info("request", extra=...)` through JsonFormatter writes it.

    Every request writes one, and the logging module's path (a LogRecord, the handler chain, the
    formatter walking the record's attributes) cost ~50 µs of the ~130 µs the API spent on a
    request that does nothing else (ops/bench/request_overhead.py). When the configuration is the
    one configure_logging made (its JSON handler alone on the root, nothing on `cara.access`),
    the line is composed here as text (the same bytes) and written to that handler's stream
    with the other access lines of the next moment (see `_AccessLines`). Any other configuration
    (a test capturing logs, a handler added by an operator) gets the record through the logging
    module as before."""
    logger = _ACCESS
    if logger.disabled or not logger.isEnabledFor(logging.INFO):
        return
    handler = _json_handler
    root = logging.root
    if (
        handler is None
        or logger.handlers
        or logger.filters
        or root.filters
        or handler.filters
        or len(root.handlers) != 1
        or root.handlers[0] is not handler
        or handler.level > logging.INFO
    ):
        logger.info(
            "request", extra={"method": method, "route": route, "status": status, "duration_ms": duration_ms}
        )
        return
    created = time.time()
    second = int(created)
    cached = _ts_second if _ts_second[0] == second else _second_text(second)
    # The dict `_entry` makes, encoded by hand: the strings through the encoder's own escaping.
    request_id = request_id_var.get()
    span = trace.get_current_span().get_span_context()
    line = (
        f'{{"ts": "{cached[1]}.{int((created - second) * 1000):03d}+00:00", "level": "info",'
        ' "logger": "cara.access", "msg": "request"'
        + (f', "request_id": {_quote(request_id)}' if request_id else "")
        + (f', "trace_id": "{span.trace_id:032x}"' if span.is_valid else "")
        + f', "method": {_quote(method)}, "route": {_quote(route)}, "status": {status!r},'
        f' "duration_ms": {duration_ms!r}}}'
    )
    _access_lines.add(handler, line + handler.terminator)


# json's own escaping of a str (C, ASCII-only as JSONEncoder's default `ensure_ascii`).
_quote = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]


def _second_text(second: int) -> tuple[int, str]:
    global _ts_second
    _ts_second = (second, datetime.fromtimestamp(second, UTC).isoformat()[:19])
    return _ts_second


class _AccessLines:
    """Access lines waiting to be written, a tenth of a second at most: a write (and a system
    call) per request was a fifth of what the access log cost a request (`PYTHONUNBUFFERED`, as
    the image sets it, writes every line straight through). They are written when 256 wait,
    when a tenth of a second has passed since the first, before any other line of the JSON
    handler (so the output keeps its order), and at exit; outside an event loop, at once.

    What a process killed outright loses is at most that tenth of a second of access lines."""

    LIMIT = 256
    DELAY = 0.1

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.handler: logging.StreamHandler[TextIO] | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.timer_loop: asyncio.AbstractEventLoop | None = None

    def add(self, handler: logging.StreamHandler[TextIO], line: str) -> None:
        if self.handler is not handler:
            self.write()
            self.handler = handler
        self.lines.append(line)
        if len(self.lines) >= self.LIMIT:
            self.write()
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.write()
            return
        # A timer of a loop that has ended since (a test's, a restarted server's) never runs.
        if self.timer is None or self.timer_loop is not loop:
            if self.timer is not None:
                self.timer.cancel()
            self.timer_loop = loop
            self.timer = loop.call_later(self.DELAY, self.write)

    def write(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        handler, lines = self.handler, self.lines
        if handler is None or not lines:
            return
        self.lines = []
        with handler.lock:  # type: ignore[union-attr]
            try:
                handler.stream.write("".join(lines))
                handler.flush()
            except Exception:  # as logging.Handler.handleError: a log write never fails a request
                handler.handleError(logging.makeLogRecord({"msg": "request"}))


_access_lines = _AccessLines()
atexit.register(_access_lines.write)


class _JsonHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """The JSON line handler: writes the waiting access lines before a line of its own."""

    def emit(self, record: logging.LogRecord) -> None:
        if _access_lines.lines and _access_lines.handler is self:
            _access_lines.write()
        super().emit(record)


def flush_access_lines() -> None:
    """Write the waiting access lines now (a server's shutdown)."""
    _access_lines.write()


def configure_logging(level: int = logging.INFO) -> None:
    global _json_handler
    root = logging.getLogger()
    if any(isinstance(h.formatter, JsonFormatter) for h in root.handlers):
        return
    handler = _JsonHandler(sys.stdout)
    handler.setFormatter(JsonFormatter())
    _json_handler = handler
    root.handlers = [handler]
    root.setLevel(level)
    # uvicorn's own access log would duplicate ours (and print query strings).
    logging.getLogger("uvicorn.access").disabled = True
    # httpx logs every outgoing request's URL at INFO: a PACS search's query names the patient,
    # a provider's may carry a key. Its warnings and errors still show.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    # Our lines carry none of the caller's file, line, thread or process: skip gathering them
    # (the logging module's documented optimisations; the caller lookup walks the stack on
    # every record, and every request writes one).
    logging._srcfile = None  # type: ignore[attr-defined]
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
