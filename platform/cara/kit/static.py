"""Serving a built single-page app (Vite output) under a URL prefix.

Files that exist are served as they are (hashed assets get a long cache);
any other path under the prefix gets index.html so client-side routes work on
reload. Nothing is mounted when the app has not been built.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, RedirectResponse
from starlette.exceptions import HTTPException

_IMMUTABLE = "public, max-age=31536000, immutable"


def mount_spa(app: FastAPI, *, prefix: str, dist: Path, reserved: tuple[str, ...] = ()) -> bool:
    """Serve `dist` at `prefix` ("" for the site root).

    Paths starting with one of `reserved` (e.g. "api/") are never answered
    with index.html: an unknown API route must stay a JSON 404.
    """
    index = dist / "index.html"
    if not index.is_file():
        return False
    root = dist.resolve()

    async def serve(path: str = "") -> FileResponse:
        candidate = (root / path).resolve() if path else index
        if path and root in candidate.parents and candidate.is_file():
            cache = _IMMUTABLE if "/assets/" in f"/{path}" else "no-cache"
            return FileResponse(candidate, headers={"Cache-Control": cache})
        if path.startswith("assets/") or path.startswith(reserved):
            raise HTTPException(status_code=404)  # a missing chunk must not turn into HTML
        return FileResponse(index, headers={"Cache-Control": "no-cache"})

    async def redirect() -> RedirectResponse:
        return RedirectResponse(f"{prefix}/")

    if prefix:
        app.add_api_route(prefix, redirect, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{prefix}/", serve, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{prefix}/{{path:path}}", serve, methods=["GET"], include_in_schema=False)
    return True
