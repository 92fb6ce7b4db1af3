"""Each URL prefix is served from one domain package.

The table below is the map from prefix to package; a route is owned by the longest
prefix that matches it, and its endpoint function must live in that package. A new
route under an existing prefix therefore goes into that prefix's package; a new
prefix needs a row here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi.routing import APIRoute, APIWebSocketRoute

from cara.main import create_app

OWNERS = {
    "/api/admin": "cara.admin_console",
    # The spec puts the doctor's own profile and certificate upload under /api/auth/doctor.
    "/api/auth/doctor": "cara.profiles",
    # Sign-up is registration's (which depends on auth, never the other way).
    "/api/auth/signup": "cara.registration",
    "/api/auth/complete-signup": "cara.registration",
    "/api/auth": "cara.auth",
    "/api/certificates": "cara.profiles",
    "/api/consultations": "cara.consultations",
    "/api/doctors": "cara.doctors",
    "/api/health": "cara.health",
    "/api/live": "cara.live",
    "/api/plan-review-files": "cara.clinical",
    "/api/plan-reviews": "cara.clinical",
    "/api/radiotherapy-chat": "cara.chat",
    "/api/recordings": "cara.recordings",
    "/api/imaging": "cara.imaging",
    "/api/stripe": "cara.billing",
    "/api/subscription": "cara.billing",
    "/api/summarize": "cara.summaries",
    # The note templates drafts are written in (the catalogue itself is the record's).
    "/api/templates": "cara.summaries",
}


def _api_routes(routes: list[Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    for route in routes:
        if isinstance(route, APIRoute | APIWebSocketRoute):
            path = prefix + route.path
            if path.startswith("/api/"):
                yield path, route.endpoint.__module__
        elif hasattr(route, "original_router"):  # a router included lazily
            context = getattr(route, "include_context", None)
            yield from _api_routes(
                route.original_router.routes, prefix + (getattr(context, "prefix", "") or "")
            )


def owner(path: str, owners: dict[str, str] = OWNERS) -> str | None:
    matches = [p for p in owners if path == p or path.startswith(p + "/")]
    return owners[max(matches, key=len)] if matches else None


def misplaced(routes: list[tuple[str, str]]) -> list[tuple[str, str, str | None]]:
    """(path, module, owning package) of each route not served from its prefix's package."""
    out = []
    for path, module in routes:
        package = owner(path)
        if package is None or not module.startswith(f"{package}."):
            out.append((path, module, package))
    return out


def test_every_route_is_served_by_the_package_of_its_prefix() -> None:
    routes = list(_api_routes(create_app().routes))
    assert len(routes) > 30
    assert misplaced(routes) == []


def test_a_route_outside_its_prefix_package_is_caught() -> None:
    assert misplaced(
        [
            ("/api/subscription/current", "cara.subscriptions.endpoints"),
            ("/api/auth/doctor/profile", "cara.auth.endpoints"),
            ("/api/unknown", "cara.unknown.endpoints"),
            ("/api/auth/login", "cara.auth.endpoints"),
            ("/api/admin/stats", "cara.admin_console.endpoints"),
        ]
    ) == [
        ("/api/subscription/current", "cara.subscriptions.endpoints", "cara.billing"),
        ("/api/auth/doctor/profile", "cara.auth.endpoints", "cara.profiles"),
        ("/api/unknown", "cara.unknown.endpoints", None),
    ]
