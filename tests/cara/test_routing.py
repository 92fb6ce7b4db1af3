"""How the app finds a request's route (cara.main): each included router walks its routes once
per request, and the answers are those of FastAPI's own walk."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.routing import APIRoute

from cara.health.endpoints import router as health_router


def _position(path: str) -> int:
    """How many of the health router's routes a walk asks before it reaches `path`'s GET."""
    for n, route in enumerate(health_router.routes, start=1):
        if isinstance(route, APIRoute) and route.path == path.removeprefix("/api") and "GET" in route.methods:
            return n
    raise AssertionError(path)


def test_the_router_with_the_path_walks_its_routes_once(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    matches = APIRoute.matches

    def counting(self: APIRoute, scope: Any) -> Any:
        if self in health_router.routes:
            asked.append(self.path)
        return matches(self, scope)

    monkeypatch.setattr(APIRoute, "matches", counting)
    r = client.get("/api/health/ready")
    assert r.status_code == 200
    assert len(asked) == _position("/api/health/ready"), asked


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/api/health/live", 200),
        ("POST", "/api/health/live", 405),  # the path is known, the method is not
        ("GET", "/api/health/nowhere", 404),
        ("GET", "/api/auth/user", 401),  # the next router's route, walked after health's
    ],
)
def test_answers_are_the_walks_answers(client: Any, method: str, path: str, status: int) -> None:
    assert client.request(method, path).status_code == status
