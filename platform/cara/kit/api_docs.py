"""The interactive API documentation (Swagger UI) at /api/docs, served from this server.

The Swagger UI files come from the pinned `swagger-ui-bundle-v2` package, so the page works
offline and loads nothing from another site; its start-up code is a file too, so the
page runs under the same Content-Security-Policy as the apps (no inline script).
Production turns the page off (`API_DOCS`); the OpenAPI document stays at /api/openapi.json.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]

DOCS_PATH = "/api/docs"
_ASSETS = f"{DOCS_PATH}/assets"
_INIT = f"{DOCS_PATH}/init.js"

_PAGE = f"""<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Cara API</title>
    <link rel="stylesheet" href="{_ASSETS}/swagger-ui.css" />
    <link rel="stylesheet" href="{_ASSETS}/index.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="{_ASSETS}/swagger-ui-bundle.js"></script>
    <script src="{_INIT}"></script>
  </body>
</html>
"""

_INIT_SCRIPT = """window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
"""


async def _page(request: Request) -> Response:
    return HTMLResponse(_PAGE, headers={"Cache-Control": "no-cache"})


async def _init(request: Request) -> Response:
    return Response(_INIT_SCRIPT, media_type="text/javascript", headers={"Cache-Control": "no-cache"})


def mount_api_docs(app: FastAPI) -> None:
    """Adds the page, its start-up script and the Swagger UI files."""
    app.router.routes.append(Route(DOCS_PATH, _page, methods=["GET"]))
    app.router.routes.append(Route(_INIT, _init, methods=["GET"]))
    app.router.routes.append(
        Mount(_ASSETS, app=StaticFiles(directory=Path(swagger_ui_path)), name="api-docs")
    )
