"""The FastAPI application: every router under /api, one error shape, tracing."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI

from cara.admins.endpoints import router as admins_router
from cara.auth.endpoints import router as auth_router
from cara.config import get_settings
from cara.health.endpoints import router as health_router
from cara.kit import handlers
from cara.kit.logging import configure_logging
from cara.kit.middleware import BodySizeLimit, RequestContext
from cara.observability.tracing import setup_tracing


def create_app() -> FastAPI:
    settings = get_settings()
    configure_logging()
    app = FastAPI(
        title="Cara API",
        version="0.1.0",
        description="Clinical AI assistant console: doctors, hospitals and platform admins.",
        openapi_url="/api/openapi.json",
        docs_url="/api/docs",
        redoc_url=None,
    )
    api = APIRouter(prefix="/api")
    api.include_router(health_router)
    api.include_router(auth_router)
    api.include_router(admins_router)
    app.include_router(api)
    handlers.install(app)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(RequestContext)
    setup_tracing(instrument_app=app)
    return app


app = create_app()
