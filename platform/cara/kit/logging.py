"""Structured (JSON line) logs carrying the request id and trace id.

Log calls pass ids and counts in `extra=`, never request bodies: nothing a
patient or clinician typed is ever written to the log.
"""

from __future__ import annotations

import json
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
    global _ts_second
    second = int(created)
    cached = _ts_second
    if cached[0] != second:
        cached = _ts_second = (second, datetime.fromtimestamp(second, UTC).isoformat()[:19])
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
    the line is composed here and written to that handler's stream under its lock: the same
    bytes. Any other configuration (a test capturing logs, a handler added by an operator) gets
    the record through the logging module as before."""
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
    entry = _entry(time.time(), "info", "cara.access", "request")
    entry["method"] = method
    entry["route"] = route
    entry["status"] = status
    entry["duration_ms"] = duration_ms
    line = _ENCODER.encode(entry) + handler.terminator
    with handler.lock:  # type: ignore[union-attr]
        try:
            handler.stream.write(line)
            handler.flush()
        except Exception:  # as logging.Handler.handleError: a log write never fails a request
            handler.handleError(logging.makeLogRecord({"msg": "request"}))


def configure_logging(level: int = logging.INFO) -> None:
    global _json_handler
    root = logging.getLogger()
    if any(isinstance(h.formatter, JsonFormatter) for h in root.handlers):
        return
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(JsonFormatter())
    _json_handler = handler
    root.handlers = [handler]
    root.setLevel(level)
    # uvicorn's own access log would duplicate ours (and print query strings).
    logging.getLogger("uvicorn.access").disabled = True
    # Our lines carry none of the caller's file, line, thread or process: skip gathering them
    # (the logging module's documented optimisations; the caller lookup walks the stack on
    # every record, and every request writes one).
    logging._srcfile = None  # type: ignore[attr-defined]
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
