"""The FastAPI application: every router under /api, one error shape, tracing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import RedirectResponse

from cara.admin_console.endpoints import reads as admin_console_reads
from cara.admin_console.endpoints import router as admin_console_router
from cara.assistant_routes import router as assistant_router
from cara.auth import openapi_security
from cara.auth.endpoints import router as auth_router
from cara.billing.endpoints import router as billing_router
from cara.clinical.endpoints import PLAN_FILES_PATH
from cara.clinical.endpoints import files_router as plan_files_router
from cara.clinical.endpoints import router as plan_reviews_router
from cara.config import get_settings
from cara.consultations.endpoints import router as consultations_router
from cara.doctors.endpoints import router as doctors_router
from cara.health.endpoints import router as health_router
from cara.imaging.endpoints import STUDIES_PATH as IMAGING_STUDIES_PATH
from cara.imaging.endpoints import router as imaging_router
from cara.kit import handlers, openapi
from cara.kit.api_docs import mount_api_docs
from cara.kit.db import close_async_pool
from cara.kit.heap import freeze_startup_heap
from cara.kit.logging import configure_logging, flush_access_lines
from cara.kit.middleware import RequestFrame
from cara.kit.routing import tune_routing
from cara.kit.static import mount_spa
from cara.live.gauges import live_gauges
from cara.observability.metrics import setup_metrics
from cara.observability.tracing import setup_tracing
from cara.profiles.certificates import CERTIFICATE_UPLOAD_PATH, MAX_CERTIFICATE_BYTES
from cara.profiles.endpoints import router as profiles_router
from cara.recordings.endpoints import router as recordings_router
from cara.registration.endpoints import router as registration_router
from workers import sender as job_sender

REPO_ROOT = Path(__file__).resolve().parents[2]


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    freeze_startup_heap()  # full collections stop walking start-up's objects (cara.kit.heap)
    try:
        yield
    finally:
        await close_async_pool()  # the event loop's async connections (cara.kit.db)
        flush_access_lines()  # the last tenth of a second's access lines (cara.kit.logging)


def create_app() -> FastAPI:
    settings = get_settings()
    configure_logging()
    # Jobs named in cara.kit.jobs leave this process through the Dramatiq broker.
    job_sender.install()
    app = FastAPI(
        title="Cara API",
        version="0.1.0",
        description="Clinical AI assistant console: doctors, hospitals and platform admins.",
        openapi_url="/api/openapi.json",
        # Swagger UI is served from the server's own files (cara.kit.api_docs), never a CDN.
        docs_url=None,
        redoc_url=None,
        lifespan=_lifespan,
        # FastAPI's own OpenTelemetry off: tracing is cara.observability.tracing's (instrumented
        # only when an exporter is configured); FastAPI's looked up the global providers in
        # os.environ on every request, a fifth of a request's CPU with none configured.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    # Each router straight under the app with the /api prefix, not nested in an /api router:
    # FastAPI walks the tree of included routers on every request, and a level less was a
    # quarter of the framework's routing cost (ops/bench/request_overhead.py).
    for router in (
        health_router,
        auth_router,
        registration_router,
        admin_console_reads,
        admin_console_router,
        assistant_router,
        billing_router,
        consultations_router,
        plan_reviews_router,
        plan_files_router,
        doctors_router,
        profiles_router,
        recordings_router,
        imaging_router,
    ):
        app.include_router(router, prefix="/api")
    if settings.api_docs_enabled:
        mount_api_docs(app)

    # The admin console (admin-web/) at /admin/; the spec's /admin-dashboard leads there.
    if mount_spa(app, prefix="/admin", dist=REPO_ROOT / "admin-web" / "dist"):
        app.add_api_route(
            "/admin-dashboard", lambda: RedirectResponse("/admin/"), methods=["GET"], include_in_schema=False
        )
    # The clinician and hospital app (web/) at the root, registered last so
    # /api and /admin keep their routes; every other path is a client route.
    mount_spa(app, prefix="", dist=REPO_ROOT / "web" / "dist", reserved=("api/", "admin/"))
    handlers.install(app)
    openapi.install(app, openapi_security.declare)
    # Request ids, the access log, the security headers on every HTTP answer (a 500 gets them
    # from its handler, cara.kit.handlers), the body size cap, and gzip for the web apps' scripts
    # and the JSON lists (WebSockets are untouched), in one layer.
    app.add_middleware(
        RequestFrame,
        max_bytes=settings.max_body_bytes,
        # A certificate file may be up to 5 MB; the multipart envelope adds a little.
        # A plan's DICOM file (an RTDOSE grid is often tens of MB).
        larger={
            CERTIFICATE_UPLOAD_PATH: MAX_CERTIFICATE_BYTES + 64 * 1024,
            # DICOM files and zips of them, brought into the tenant's PACS.
            IMAGING_STUDIES_PATH: settings.imaging_max_upload_bytes,
            PLAN_FILES_PATH: settings.plan_file_max_bytes,
        },
        gzip_minimum=1024,
    )
    if settings.cors_origins:
        # Same-origin deployments need none of this; a separately hosted console
        # must be able to read the list totals in Content-Range.
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["*"],
            allow_headers=["*"],
            expose_headers=["Content-Range", "X-Request-ID"],
        )
    setup_tracing(instrument_app=app)
    setup_metrics(service_name=settings.otel_service_name, gauges=live_gauges)
    # Less of FastAPI's per-request route walking; last, once every route is added (cara.kit.routing).
    tune_routing(app)
    return app


app = create_app()
