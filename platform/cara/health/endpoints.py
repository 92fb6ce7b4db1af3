"""GET /api/health: database and broker status (used by ./ops/dev and probes)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy import text

from cara.kit.db import get_engine
from cara.kit.redis import get_redis

router = APIRouter(tags=["health"])


class HealthOut(BaseModel):
    status: Literal["ok", "degraded"]
    database: Literal["ok", "down"]
    broker: Literal["ok", "down"]


def _database_ok() -> bool:
    try:
        with get_engine().connect() as conn:
            conn.execute(text("SELECT 1"))
        return True
    except Exception:
        return False


def _broker_ok() -> bool:
    try:
        return bool(get_redis().ping())
    except Exception:
        return False


@router.get(
    "/health",
    operation_id="health_check",
    response_model=HealthOut,
    responses={503: {"model": HealthOut, "description": "database or broker down"}},
)
def health() -> JSONResponse:
    """Reports whether PostgreSQL and the Redis broker answer; 503 if either does not."""
    db, broker = _database_ok(), _broker_ok()
    body = HealthOut(
        status="ok" if db and broker else "degraded",
        database="ok" if db else "down",
        broker="ok" if broker else "down",
    )
    return JSONResponse(body.model_dump(), status_code=200 if db and broker else 503)
