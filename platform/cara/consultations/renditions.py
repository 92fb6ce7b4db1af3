"""A signed note's export files, rendered once, away from the requests, and kept.

Rendering the largest note a doctor may sign (`MAX_NOTE_CHARS` and `MAX_ADDENDA` addenda) to PDF
takes seconds of CPU. Done on the API's own threads it would hold the interpreter lock that every
other tenant's request needs, so:

- the bytes are rendered in a small pool of separate processes at a lower CPU priority (`nice`),
  which other requests never wait behind;
- and kept in Redis under the signed content's identity (the consultation, how many signed
  entries it has and the last entry's SHA-256). What is signed never changes and an addendum is a
  new entry, so a kept file is exactly what rendering again would give: later downloads are the
  same bytes without the cost. Concurrent downloads of one note render it once (a Redis lock).

Losing the kept copy (Redis restarted) costs one more render, nothing else: the rendering is
deterministic (the document's own dates, never the download's).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool

from redis.exceptions import LockError

from cara.config import get_settings
from cara.consultations import export
from cara.kit.errors import ServiceUnavailable
from cara.kit.redis import get_binary_redis

_PREFIX = "cara:rendition:"
SLOW = "The document is taking longer than usual to prepare. Please try again in a minute."

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None


def _lower_priority(increment: int) -> None:
    os.nice(increment)


def _executor() -> ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            # spawn: the API process runs threads (and an event loop); a forked copy of them
            # could inherit a lock held mid-operation.
            _pool = ProcessPoolExecutor(
                max_workers=get_settings().export_render_processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_lower_priority,
                initargs=(get_settings().export_render_nice,),
            )
        return _pool


def _discard(pool: ProcessPoolExecutor) -> None:
    global _pool
    with _lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


@atexit.register
def shutdown() -> None:
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


def render(note: export.SignedNote, kind: str, resource: str) -> bytes:
    """The file's bytes (`kind` pdf or fhir; `resource` bundle or document-reference), built in a
    process of its own (run there by the pool)."""
    if kind == "pdf":
        return export.pdf(note)
    if resource == "document-reference":
        document = export.document_reference(note)
    else:
        document = export.document_bundle(note)
    return json.dumps(document, ensure_ascii=False, indent=2).encode()


def _render_elsewhere(note: export.SignedNote, kind: str, resource: str) -> bytes:
    pool = _executor()
    timeout = get_settings().export_render_timeout_seconds
    try:
        return pool.submit(render, note, kind, resource).result(timeout=timeout)
    except FutureTimeout as exc:
        raise ServiceUnavailable(SLOW) from exc
    except BrokenProcessPool as exc:  # a renderer died (killed, out of memory): a fresh pool next time
        _discard(pool)
        raise ServiceUnavailable(SLOW) from exc


def _key(schema: str, note: export.SignedNote, kind: str, resource: str) -> str:
    last = note.entries[-1]
    variant = resource if kind == "fhir" else "-"
    return f"{_PREFIX}{schema}:{note.consultation_id}:{len(note.entries)}:{last.sha256}:{kind}:{variant}"


def file_bytes(schema: str, note: export.SignedNote, kind: str, resource: str) -> bytes:
    """The kept rendition of this signed content, rendered now if none is kept."""
    redis = get_binary_redis()
    key = _key(schema, note, kind, resource)
    kept = redis.get(key)
    if kept is not None:
        return bytes(kept)
    settings = get_settings()
    # One render per content at a time: a second download waits for the first one's bytes.
    lock = redis.lock(
        key + ":rendering",
        timeout=settings.export_render_timeout_seconds + 5,
        blocking_timeout=settings.export_render_timeout_seconds,
    )
    acquired = lock.acquire()
    try:
        kept = redis.get(key)
        if kept is not None:
            return bytes(kept)
        content = _render_elsewhere(note, kind, resource)
        redis.set(key, content, ex=settings.export_keep_seconds)
        return content
    finally:
        if acquired:
            # It may have expired meanwhile (a render near the timeout): nothing to release then.
            with contextlib.suppress(LockError):
                lock.release()
