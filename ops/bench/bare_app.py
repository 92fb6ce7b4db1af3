"""The bare FastAPI app that request_overhead.py measures the product against (not a benchmark itself).

It answers the paths listed in the JSON file named by BARE_RESPONSES with the very bytes (status,
content type, body) the product answered them with, from `async def` handlers and no middleware:
the framework's own cost, run by the same uvicorn with the same flags.

    BARE_RESPONSES=/tmp/x.json python -m uvicorn bare_app:app --app-dir ops/bench --workers 1
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

from fastapi import FastAPI, Response


def _route(body: bytes, status: int, media_type: str):  # type: ignore[no-untyped-def]
    async def answer() -> Response:
        return Response(content=body, status_code=status, media_type=media_type)

    return answer


def create_app() -> FastAPI:
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    spec = json.loads(Path(os.environ["BARE_RESPONSES"]).read_text())
    for path, (status, media_type, body_b64) in spec.items():
        app.add_api_route(path, _route(base64.b64decode(body_b64), status, media_type), methods=["GET"])
    return app


app = create_app()
