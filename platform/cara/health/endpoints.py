"""Health: GET /api/health (database and broker, for ./ops/dev, monitors and alerts) and the
orchestrator's probes GET /api/health/live and GET /api/health/ready."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel
from sqlalchemy import text

from cara.kit import lifecycle
from cara.kit.db import get_engine
from cara.kit.redis import get_redis

router = APIRouter(tags=["health"])


class HealthOut(BaseModel):
    status: Literal["ok", "degraded", "draining"]
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
    responses={
        503: {"model": HealthOut, "description": "database or broker down, or the process is draining"}
    },
)
def health() -> JSONResponse:
    """Readiness: whether PostgreSQL and the Redis broker answer; 503 if either does not, or while
    this process drains for a shutdown (so the load balancer stops sending it work)."""
    db, broker = _database_ok(), _broker_ok()
    ready = db and broker and not lifecycle.is_draining()
    status: Literal["ok", "degraded", "draining"] = (
        "draining" if lifecycle.is_draining() else "ok" if db and broker else "degraded"
    )
    body = HealthOut(status=status, database="ok" if db else "down", broker="ok" if broker else "down")
    return JSONResponse(body.model_dump(), status_code=200 if ready else 503)


class ProbeOut(BaseModel):
    status: Literal["ok", "draining"]


# The two orchestrator probes look at this process only. A database or Redis outage is shared by
# every replica: failing the probes would restart them all (liveness) or take them all out of the
# load balancer (readiness), and browsers would get the balancer's bare error page instead of the
# app's own 'Service temporarily unavailable' answers. Outages are for alerts: GET /api/health.


# The liveness answer never changes: its bytes are written once, not validated and encoded from a
# model on every probe.
_ALIVE = ProbeOut(status="ok").model_dump_json().encode()


@router.get("/health/live", operation_id="liveness_check", response_model=ProbeOut)
async def liveness() -> Response:
    """Liveness: the process answers requests (async: nothing to wait for, no thread hand-off)."""
    return Response(_ALIVE, media_type="application/json")


@router.get(
    "/health/ready",
    operation_id="readiness_check",
    response_model=ProbeOut,
    responses={503: {"model": ProbeOut, "description": "draining for shutdown"}},
)
def readiness() -> JSONResponse:
    """Readiness: this replica takes new work; 503 once it drains for a shutdown."""
    draining = lifecycle.is_draining()
    body = ProbeOut(status="draining" if draining else "ok")
    return JSONResponse(body.model_dump(), status_code=503 if draining else 200)
