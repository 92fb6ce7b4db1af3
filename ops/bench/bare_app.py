"""The bare FastAPI app that request_overhead.py measures the product against (not a benchmark itself).

It answers the paths listed in the JSON file named by BARE_RESPONSES with the very bytes (status,
content type, body) the product answered them with, from `async def` handlers and no middleware:
the framework's own cost, run by the same uvicorn with the same flags. Where the file also lists
the product's other response headers (its security headers, a request id, Vary), the bare app
sends them too, fixed, so that both put the same bytes on the wire and the difference is the
product's work; each such path is also served under `/plain` without them (what those headers
cost uvicorn to write, for information).

With BARE_DATABASE (a libpq conninfo) and BARE_ACCOUNTS (comma-separated account ids), each path
is also served under `/floor` after one single-row read of the same database: `SELECT ... FROM
platform.accounts WHERE id = $1` (primary key, ids in turn) with psycopg 3 async over a small pool
of connections opened at start-up (BARE_POOL, default 10). That is the floor of an authenticated
read on this machine: the framework plus one PostgreSQL round trip, nothing of the product.

    BARE_RESPONSES=/tmp/x.json python -m uvicorn bare_app:app --app-dir ops/bench --workers 1
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import psycopg
from fastapi import FastAPI, Response

_READ = "SELECT id, email, name, role, is_active FROM platform.accounts WHERE id = %s"


class _Pool:
    """N connections handed out through a queue: what psycopg_pool does, minus its bookkeeping."""

    def __init__(self) -> None:
        self.idle: asyncio.Queue[psycopg.AsyncConnection] = asyncio.Queue()
        self.all: list[psycopg.AsyncConnection] = []

    async def open(self, conninfo: str, size: int) -> None:
        for _ in range(size):
            conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
            self.all.append(conn)
            self.idle.put_nowait(conn)

    async def close(self) -> None:
        for conn in self.all:
            await conn.close()


def _route(body: bytes, status: int, media_type: str, headers: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    async def answer() -> Response:
        return Response(content=body, status_code=status, media_type=media_type, headers=headers)

    return answer


def _floor_route(  # type: ignore[no-untyped-def]
    pool: _Pool,
    ids: itertools.cycle[str],
    body: bytes,
    status: int,
    media_type: str,
    headers: dict[str, str] | None = None,
):
    async def answer() -> Response:
        conn = await pool.idle.get()
        try:
            cursor = await conn.execute(_READ, (next(ids),))
            if await cursor.fetchone() is None:
                return Response(status_code=404)
        finally:
            pool.idle.put_nowait(conn)
        return Response(content=body, status_code=status, media_type=media_type, headers=headers)

    return answer


def create_app() -> FastAPI:
    pool = _Pool()
    conninfo = os.environ.get("BARE_DATABASE")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if conninfo:
            await pool.open(conninfo, int(os.environ.get("BARE_POOL", "10")))
        try:
            yield
        finally:
            await pool.close()

    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None, lifespan=lifespan)
    spec = json.loads(Path(os.environ["BARE_RESPONSES"]).read_text())
    ids = itertools.cycle([i for i in os.environ.get("BARE_ACCOUNTS", "").split(",") if i])
    for path, (status, media_type, body_b64, *rest) in spec.items():
        body = base64.b64decode(body_b64)
        headers = dict(rest[0]) if rest and rest[0] else None
        app.add_api_route(path, _route(body, status, media_type, headers), methods=["GET"])
        if headers:
            app.add_api_route(f"/plain{path}", _route(body, status, media_type), methods=["GET"])
        if conninfo:
            app.add_api_route(
                f"/floor{path}", _floor_route(pool, ids, body, status, media_type, headers), methods=["GET"]
            )
    return app


app = create_app()
