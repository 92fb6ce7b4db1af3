"""Serving a built single-page app (Vite output) under a URL prefix.

Files that exist are served as they are (hashed assets get a long cache);
any other path under the prefix gets index.html so client-side routes work on
reload. Nothing is mounted when the app has not been built. A path that names
a file (its last segment has an extension: `/robots.txt`, `/sw.js`, `/x.png`)
or anything under `/.well-known/` is a 404 when no such file was built: a
crawler, a browser asking for an icon or a service worker must never receive
the app's HTML as if it were that file.

The build writes each text file compressed beside it (`x.js.br`, `x.js.gz`:
web/vite-precompress.ts, at the highest levels); a client that accepts one of
those encodings gets those bytes as they are, Brotli first, so the first load
on a slow link is as small as it can be and no request compresses anything.
"""

from __future__ import annotations

import mimetypes
import re
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, RedirectResponse
from starlette.exceptions import HTTPException
from starlette.routing import Match

_IMMUTABLE = "public, max-age=31536000, immutable"
# Content-Encoding -> suffix of the precompressed file, in order of preference.
_PRECOMPRESSED = (("br", ".br"), ("gzip", ".gz"))
# The last segment of a path that names a file rather than a client route.
_FILE_NAME = re.compile(r"\.[A-Za-z0-9]{1,12}$")
# Types Python's table lacks (or guesses differently on some systems).
for _type, _suffix in (
    ("application/manifest+json", ".webmanifest"),
    ("text/javascript", ".js"),
    ("image/x-icon", ".ico"),
    ("text/plain", ".txt"),
):
    mimetypes.add_type(_type, _suffix)


def _names_a_file(path: str) -> bool:
    """True for `robots.txt`, `.well-known/anything`, `a/b.png`; false for client routes."""
    return path.startswith(".well-known/") or path == ".well-known" or bool(_FILE_NAME.search(path))


def _accepted_encodings(header: str) -> set[str]:
    """Codings of an Accept-Encoding header, without those refused with q=0."""
    accepted = set()
    for item in header.split(","):
        name, _, params = item.strip().partition(";")
        params = params.strip().replace(" ", "")
        try:
            refused = params.startswith("q=") and float(params[2:]) == 0
        except ValueError:
            refused = False
        if name and not refused:
            accepted.add(name.strip().lower())
    return accepted


def _file_response(request: Request, path: Path, cache: str) -> FileResponse:
    """`path`, or its precompressed twin when the client accepts that encoding."""
    headers = {"Cache-Control": cache}
    accepted = _accepted_encodings(request.headers.get("accept-encoding", ""))
    for encoding, suffix in _PRECOMPRESSED:
        twin = path.with_name(path.name + suffix)
        if encoding in accepted and twin.is_file():
            # The type of the file itself (Starlette adds the charset of text/*).
            media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            headers |= {"Content-Encoding": encoding, "Vary": "Accept-Encoding"}
            return FileResponse(twin, media_type=media_type, headers=headers)
    if any(path.with_name(path.name + suffix).is_file() for _, suffix in _PRECOMPRESSED):
        headers["Vary"] = "Accept-Encoding"
    return FileResponse(path, headers=headers)


def mount_spa(app: FastAPI, *, prefix: str, dist: Path, reserved: tuple[str, ...] = ()) -> bool:
    """Serve `dist` at `prefix` ("" for the site root).

    Paths starting with one of `reserved` (e.g. "api/") are never answered
    with index.html: an unknown API route must stay a JSON 404.
    """
    index = dist / "index.html"
    if not index.is_file():
        return False
    root = dist.resolve()

    def _not_here(request: Request) -> HTTPException:
        """404, or 405 with Allow when an API route has this path for other methods."""
        allowed = {
            method
            for method in ("POST", "PUT", "PATCH", "DELETE")
            if any(
                route.matches({**request.scope, "method": method})[0] == Match.FULL
                for route in app.router.routes
            )
        }
        if allowed:
            return HTTPException(status_code=405, headers={"Allow": ", ".join(sorted(allowed))})
        return HTTPException(status_code=404)

    async def serve(request: Request, path: str = "") -> FileResponse:
        candidate = (root / path).resolve() if path else index
        if path and root in candidate.parents and candidate.is_file():
            cache = _IMMUTABLE if "/assets/" in f"/{path}" else "no-cache"
            return _file_response(request, candidate, cache)
        if path.startswith("assets/"):
            raise HTTPException(status_code=404)  # a missing chunk must not turn into HTML
        if path.startswith(reserved):
            raise _not_here(request)
        if _names_a_file(path):
            raise HTTPException(status_code=404)
        return _file_response(request, index, "no-cache")

    async def redirect() -> RedirectResponse:
        return RedirectResponse(f"{prefix}/")

    if prefix:
        app.add_api_route(prefix, redirect, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{prefix}/", serve, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{prefix}/{{path:path}}", serve, methods=["GET"], include_in_schema=False)
    return True
