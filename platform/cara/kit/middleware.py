"""ASGI middleware: request ids with one access-log line, security headers and a body size cap.

`RequestFrame` does all three in one layer (what the app installs): one pass over the request
headers, one wrapper of `send`, the security headers built once per host (cara.kit.headers).
`RequestContext` and `BodySizeLimit` are the same behaviours one at a time."""

from __future__ import annotations

import json
import logging
import random
import re
import time
import uuid
from typing import Any

from starlette.exceptions import HTTPException
from starlette.middleware.gzip import DEFAULT_EXCLUDED_CONTENT_TYPES, GZipMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cara.kit.headers import HEADER_NAMES, headers_for
from cara.kit.logging import access_line, request_id_var

log = logging.getLogger("cara.access")
_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{8,128}$")
# The media types GZipMiddleware leaves as they are (already compressed, or a stream).
_NOT_COMPRESSED = frozenset(DEFAULT_EXCLUDED_CONTENT_TYPES)


class RequestContext:
    """Assigns X-Request-ID (or keeps a well-formed incoming one) and logs the request.

    The access line names the route template (/api/doctors/{id}), never the
    concrete path or query string, which may contain emails or tokens.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")
        request_id = incoming if _SAFE_ID.match(incoming) else uuid.uuid4().hex
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", request_id.encode()))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if scope.get("path") != "/api/health":
                log.info(
                    "request",
                    extra={
                        "method": scope.get("method"),
                        "route": route_template(scope),
                        "status": status,
                        "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                    },
                )
            request_id_var.reset(token)


class RequestFrame:
    """Every HTTP request: an X-Request-ID (a well-formed incoming one is kept), the security
    headers (cara.kit.headers, replacing any of the same name) and the request id on the answer,
    bodies over the limit refused with 413 (`larger`: a higher limit for paths starting with a
    prefix), and one access-log line naming the route template, never the path or query.

    With `gzip_minimum`, answers of at least that many bytes are gzipped for clients that accept
    it (Starlette's GZipMiddleware, compression level 6). Only those requests go through it: it
    wrapped every request's `send` to find out it had nothing to do, a fifth of the cost of a
    request that does nothing else; an identity answer that could have been compressed still
    says `Vary: Accept-Encoding`, as the middleware's own would."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_bytes: int,
        larger: dict[str, int] | None = None,
        gzip_minimum: int | None = None,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.larger = tuple((larger or {}).items())
        self.gzip_minimum = gzip_minimum
        self.gzipped: ASGIApp | None = (
            GZipMiddleware(app, minimum_size=gzip_minimum, compresslevel=6)
            if gzip_minimum is not None
            else None
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = incoming = length = None
        accepts_gzip = chunked = False
        for name, value in scope.get("headers") or ():
            if name == b"host":
                if host is None:
                    host = value
            elif name == b"x-request-id":
                incoming = value
            elif name == b"content-length":
                length = value
            elif name == b"accept-encoding":
                accepts_gzip = accepts_gzip or b"gzip" in value
            elif name == b"transfer-encoding":
                chunked = True
        app = self.app
        vary_unless_small = False
        if self.gzipped is not None:
            if accepts_gzip:
                app = self.gzipped
            else:
                vary_unless_small = True
        request_id = None
        if incoming is not None:
            request_id = incoming.decode("latin-1")
            if not _SAFE_ID.match(request_id):
                request_id = None
        if request_id is None:
            # 128 random bits as 32 hex digits, as a uuid4's hex: an id, not a secret, so the
            # process's generator (reseeded in each forked worker) rather than a system call
            # and a UUID object per request.
            request_id = f"{random.getrandbits(128):032x}"
        security = headers_for(host or b"", scope.get("scheme") == "https")
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        status = 500

        async def send_framed(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                # ASGI header names are lowercase (Starlette writes them so).
                headers = [h for h in message.get("headers", ()) if h[0] not in HEADER_NAMES]
                headers += security
                headers.append((b"x-request-id", request_id.encode()))
                if vary_unless_small and self._compressible(headers, message["status"]):
                    headers.append((b"vary", b"Accept-Encoding"))
                message["headers"] = headers
            await send(message)

        path = scope.get("path", "")
        try:
            limit = self.max_bytes
            for prefix, larger in self.larger:
                if path.startswith(prefix):
                    limit = larger
                    break
            if length is not None and length.isdigit() and int(length) > limit:
                await _too_large(send_framed, limit)
                return
            if not chunked:
                # The body is the content-length's bytes, checked above, or none at all: the
                # HTTP parser hands the app no more than that.
                await app(scope, receive, send_framed)
                return
            received = 0

            async def limited_receive() -> Message:
                # A chunked body has no content-length: count as it streams in.
                # The HTTPException is turned into the error shape by the app.
                nonlocal received
                message = await receive()
                if message["type"] == "http.request":
                    received += len(message.get("body", b""))
                    if received > limit:
                        raise HTTPException(status_code=413, detail=_too_large_text(limit))
                return message

            await app(scope, limited_receive, send_framed)
        finally:
            if path != "/api/health":
                access_line(
                    scope.get("method", ""),
                    route_template(scope),
                    status,
                    round((time.perf_counter() - started) * 1000, 2),
                )
            request_id_var.reset(token)

    def _compressible(self, headers: list[tuple[bytes, bytes]], status: int) -> bool:
        """Whether GZipMiddleware would have compressed this answer for a client accepting gzip:
        not already encoded, not a partial answer, a type it compresses, and not known to be
        smaller than the minimum. Such an answer varies by Accept-Encoding."""
        if status == 206:
            return False
        minimum = self.gzip_minimum or 0
        for name, value in headers:  # lowercase names, as ASGI has them
            if name == b"content-length":
                if value.isdigit() and int(value) < minimum:
                    return False
            elif name == b"content-encoding":
                return False
            elif name == b"vary":
                if b"accept-encoding" in value.lower():
                    return False  # said already
            elif name == b"content-type":
                media_type = value.decode("latin-1").partition(";")[0].strip().lower()
                if media_type in _NOT_COMPRESSED or f"{media_type.partition('/')[0]}/*" in _NOT_COMPRESSED:
                    return False
        return True


def route_template(scope: Scope) -> str:
    """The matched route's full template, e.g. /api/doctors/{id}; 'unmatched' for 404s."""
    # FastAPI keeps the prefixed template on its routing context; the plain
    # "route" entry holds the path relative to the included router.
    ctx = (scope.get("fastapi") or {}).get("effective_route_context")
    template = getattr(ctx, "path_format", None) or getattr(scope.get("route"), "path", None)
    return str(template) if template else "unmatched"


class BodySizeLimit:
    """Refuses bodies over `max_bytes` with 413 before the app reads them.

    `larger` raises the limit for paths starting with a given prefix (file uploads).
    """

    def __init__(self, app: ASGIApp, *, max_bytes: int, larger: dict[str, int] | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.larger = larger or {}

    def _limit(self, path: str) -> int:
        for prefix, limit in self.larger.items():
            if path.startswith(prefix):
                return limit
        return self.max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self._limit(scope.get("path", ""))
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            await _too_large(send, limit)
            return
        received = 0

        async def limited_receive() -> Message:
            # A chunked body has no content-length: count as it streams in.
            # The HTTPException is turned into the error shape by the app.
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise HTTPException(status_code=413, detail=_too_large_text(limit))
            return message

        await self.app(scope, limited_receive, send)


def _too_large_text(limit: int) -> str:
    return f"Request body is too large (limit {limit // 1024} KB)."


async def _too_large(send: Send, limit: int) -> None:
    body: dict[str, Any] = {
        "message": _too_large_text(limit),
        "fields": {},
    }
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": data})
