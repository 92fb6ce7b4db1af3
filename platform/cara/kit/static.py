"""Serving a built single-page app (Vite output) under a URL prefix.

Files that exist are served as they are (hashed assets get a long cache);
any other path under the prefix gets index.html so client-side routes work on
reload. Nothing is mounted when the app has not been built.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, RedirectResponse
from starlette.exceptions import HTTPException
from starlette.routing import Match

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
            return FileResponse(candidate, headers={"Cache-Control": cache})
        if path.startswith("assets/"):
            raise HTTPException(status_code=404)  # a missing chunk must not turn into HTML
        if path.startswith(reserved):
            raise _not_here(request)
        return FileResponse(index, headers={"Cache-Control": "no-cache"})

    async def redirect() -> RedirectResponse:
        return RedirectResponse(f"{prefix}/")

    if prefix:
        app.add_api_route(prefix, redirect, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{prefix}/", serve, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{prefix}/{{path:path}}", serve, methods=["GET"], include_in_schema=False)
    return True
