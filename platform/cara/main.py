"""The FastAPI application: every router under /api, one error shape, tracing."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import RedirectResponse
from starlette._utils import get_route_path
from starlette.routing import BaseRoute, Match
from starlette.types import Scope

from cara.admin_console.endpoints import reads as admin_console_reads
from cara.admin_console.endpoints import router as admin_console_router
from cara.assistant_routes import router as assistant_router
from cara.auth.endpoints import router as auth_router
from cara.billing.endpoints import router as billing_router
from cara.config import get_settings
from cara.consultations.endpoints import router as consultations_router
from cara.doctors.endpoints import router as doctors_router
from cara.health.endpoints import router as health_router
from cara.kit import handlers, openapi
from cara.kit.api_docs import mount_api_docs
from cara.kit.db import close_async_pool
from cara.kit.heap import freeze_startup_heap
from cara.kit.logging import configure_logging, flush_access_lines
from cara.kit.middleware import RequestFrame
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
        doctors_router,
        profiles_router,
        recordings_router,
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
    openapi.install(app)
    # Request ids, the access log, the security headers on every HTTP answer (a 500 gets them
    # from its handler, cara.kit.handlers), the body size cap, and gzip for the web apps' scripts
    # and the JSON lists (WebSockets are untouched), in one layer.
    app.add_middleware(
        RequestFrame,
        max_bytes=settings.max_body_bytes,
        # A certificate file may be up to 5 MB; the multipart envelope adds a little.
        larger={CERTIFICATE_UPLOAD_PATH: MAX_CERTIFICATE_BYTES + 64 * 1024},
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
    _flat_route_versions(app)
    _skip_routers_by_prefix(app)
    return app


def _flat_route_versions(app: FastAPI) -> None:
    """FastAPI re-derives an included router's routes whenever its "routes version" changed, and
    computes that version on every request by walking all of the router's routes looking for
    nested routers: a fifth of the server's CPU for `GET /api/auth/user` (py-spy,
    ops/bench/request_overhead.py). Our routers nest none, so their version is their own counter
    (still moved by every route added later)."""
    for route in app.router.routes:
        router = getattr(route, "original_router", None)
        if router is None or not hasattr(router, "_routes_version"):
            continue
        if any(hasattr(child, "original_router") for child in router.routes):
            continue  # a nested router: keep FastAPI's walk

        def version(seen: set[int] | None = None, router: APIRouter = router) -> int:
            return int(router._routes_version)

        router._get_routes_version = version  # type: ignore[method-assign]


def _skip_routers_by_prefix(app: FastAPI) -> None:
    """Each domain's router is asked, in order, whether one of its routes matches a request, and
    FastAPI asks each route in turn: `GET /api/live/status` ran ~40 route matches (twice over the
    router that has it), a third of the server's CPU for a request whose principal is found
    without I/O (py-spy, ops/bench/request_overhead.py). A route can only match a path that
    starts with its template's literal part (`/api/doctors/` of `/api/doctors/{id}`), so a
    router none of whose routes' literal parts starts the path is passed over at once, with the
    answer its own walk would have given. Routers that nest others keep FastAPI's walk, and
    routes added to a router later (the literal parts are read now) are out of its reach: this
    runs last in create_app."""
    for route in app.router.routes:
        if getattr(route, "original_router", None) is None or not hasattr(route, "effective_candidates"):
            continue
        candidates = route.effective_candidates()
        templates = [t for c in candidates if isinstance(t := getattr(c, "path_format", None), str)]
        if not templates or len(templates) != len(candidates):
            continue  # a nested router, or something without a template: keep the walk
        literal = tuple(sorted({t.partition("{")[0] for t in templates}))

        def matches(
            scope: Scope,
            walk: Callable[[Scope], tuple[Match, Scope]] = route.matches,
            literal: tuple[str, ...] = literal,
        ) -> tuple[Match, Scope]:
            if scope["type"] != "lifespan" and not get_route_path(scope).startswith(literal):
                return Match.NONE, {}
            return walk(scope)

        route.matches = matches  # type: ignore[method-assign]
        _walk_once_per_request(route)


# Where a request keeps the walk of the included router it was routed to (see below).
_WALKED = "cara.router_walk"
# Paths without parameters whose answer each router keeps, at most (the API has ~150 routes).
_STATIC_PATHS = 1024


def _walk_once_per_request(route: BaseRoute) -> None:
    """An included router walks its routes twice for every request it answers: once when the
    app asks whether it has the path, again when it is told to handle it (FastAPI's
    `_IncludedRouter.matches`, then `_handle_selected`), with the same scope and the same
    answer: a seventh of the CPU of a request that does nothing else (profiled beside a bare
    app, ops/bench/request_overhead.py). The first walk's answer is kept on the request's scope,
    with the router, method and path it was for, and the second one takes it from there.

    And a path without parameters (`/api/auth/user`, `/api/health/live`) always finds the same
    route: the router remembers that answer by type, method and path, for as long as its routes
    do not change, and a request to such a path skips the walk altogether. Only full matches
    with no path parameters are kept (a 404 or a 405 walks every time, so no client can fill
    it), each request gets its own copy of the scope's entries."""
    walk = route._match  # type: ignore[attr-defined]
    router = route.original_router  # type: ignore[attr-defined]
    static: dict[tuple[str, str | None, str], tuple[Any, ...]] = {}
    version = [router._routes_version]

    def walk_once(scope: Scope) -> tuple[Any, ...]:
        kept = scope.get(_WALKED)
        if (
            kept is not None
            and kept[0] is route
            and kept[1] == scope.get("path")
            and kept[2] == scope.get("method")
        ):
            del scope[_WALKED]  # taken once: a later walk of this scope (a redirect) walks
            return kept[3]  # type: ignore[no-any-return]
        nested = bool(scope.get("path_params"))  # the answer's path_params would carry them
        if version[0] != router._routes_version:
            static.clear()
            version[0] = router._routes_version
        key = (scope["type"], scope.get("method"), get_route_path(scope))
        known = None if nested else static.get(key)
        if known is not None:
            match, child, found_route, context = known
            found: tuple[Any, ...] = (match, {**child, "path_params": {}}, found_route, context)
        else:
            found = walk(scope)
            if (
                not nested
                and found[0] == Match.FULL
                and not found[1].get("path_params")
                and len(static) < _STATIC_PATHS
            ):
                static[key] = found
        scope[_WALKED] = (route, scope.get("path"), scope.get("method"), found)
        return found

    route._match = walk_once  # type: ignore[attr-defined]


app = create_app()
