"""How the app finds a request's route, with less of FastAPI's per-request walking.

Three changes to the routers the app includes, made once the app is built (`tune_routing`, the
last thing `cara.main.create_app` does): an included router's "routes version" is its own counter
(`_flat_route_versions`), a router none of whose routes' literal parts starts the path is passed
over at once (`_skip_routers_by_prefix`), and the router that has the path walks its routes once
per request, not twice, and not at all for a known path without parameters
(`_walk_once_per_request`).

Each reads or replaces private attributes of FastAPI's and Starlette's routing (`original_router`,
`_routes_version`, `_get_routes_version`, `effective_candidates`, `_match`, `matches`,
`starlette._utils.get_route_path`), which any release may rename or give another meaning. So:

- `TESTED_FASTAPI` lists the FastAPI releases they were verified against, and
  tests/cara/kit/test_routing_patches.py fails on any other one;
- `tune_routing` leaves the app to FastAPI's own walk (and logs a warning) when one of those
  attributes is missing, rather than failing at start-up or patching half of the routers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, FastAPI
from starlette.routing import BaseRoute, Match
from starlette.types import Scope

try:
    from starlette._utils import get_route_path
except ImportError:  # a Starlette that moved it: tune_routing keeps FastAPI's own walk
    get_route_path = None  # type: ignore[assignment]

log = logging.getLogger("cara.routing")

# The FastAPI releases these changes were verified against: tests/cara/test_routing.py passed and
# ops/bench/request_overhead.py measured them. Add a release only after doing both on it.
TESTED_FASTAPI = frozenset({"0.163.2"})

# What the changes read or replace: on each route that includes a router (it has
# `original_router`), and on that router.
_INCLUDED_ROUTE_ATTRIBUTES = ("effective_candidates", "_match", "matches")
_ROUTER_ATTRIBUTES = ("_routes_version", "_get_routes_version")


def tune_routing(app: FastAPI) -> None:
    """Make the app's included routers find a request's route with less walking (see the module's
    docstring); run last in create_app, once every route is added. When FastAPI or Starlette lacks
    an attribute the changes rely on, the app is left as it is, to FastAPI's own walk."""
    missing = missing_private_attributes(app)
    if missing:
        log.warning(
            "FastAPI's routing lacks %s: its own route walk is kept (cara.kit.routing)", ", ".join(missing)
        )
        return
    _flat_route_versions(app)
    _skip_routers_by_prefix(app)


def missing_private_attributes(app: FastAPI) -> list[str]:
    """The private names the changes need that this FastAPI / Starlette lacks, as `Class.name`."""
    missing = set() if get_route_path is not None else {"starlette._utils.get_route_path"}
    for route in app.router.routes:
        router = getattr(route, "original_router", None)
        if router is None:
            continue  # not an included router: none of the changes touches it
        missing |= {
            f"{type(route).__name__}.{n}" for n in _INCLUDED_ROUTE_ATTRIBUTES if not hasattr(route, n)
        }
        missing |= {f"{type(router).__name__}.{n}" for n in _ROUTER_ATTRIBUTES if not hasattr(router, n)}
    return sorted(missing)


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
