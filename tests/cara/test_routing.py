"""How the app finds a request's route (cara.main): the router that has the path walks its routes
at most once per request, a path without parameters finds its route without a walk once known,
and the answers are those of FastAPI's own walk."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from fastapi import APIRouter
from fastapi.routing import APIRoute

from cara.doctors.endpoints import router as doctors_router
from cara.health.endpoints import router as health_router


def _position(router: APIRouter, method: str, path: str) -> int:
    """How many of the router's routes one walk asks before it reaches `method path`."""
    for n, route in enumerate(router.routes, start=1):
        if (
            isinstance(route, APIRoute)
            and route.path_regex.match(path.removeprefix("/api"))
            and method in route.methods
        ):
            return n
    raise AssertionError(path)


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the health and doctors routers' routes asked whether they match, in order."""
    seen: list[str] = []
    matches = APIRoute.matches
    watched = {id(r) for r in (*health_router.routes, *doctors_router.routes)}

    def counting(self: APIRoute, scope: Any) -> Any:
        if id(self) in watched:
            seen.append(self.path)
        return matches(self, scope)

    monkeypatch.setattr(APIRoute, "matches", counting)
    return seen


def test_a_path_with_parameters_is_walked_once_per_request(client: Any, asked: list[str]) -> None:
    for _ in range(2):
        asked.clear()
        path = f"/api/doctors/{uuid.uuid4()}"
        assert client.delete(path).status_code == 401  # routed, then refused: no token
        assert len(asked) == _position(doctors_router, "DELETE", path), asked


def test_a_path_without_parameters_is_walked_until_known(client: Any, asked: list[str]) -> None:
    assert client.get("/api/health/ready").status_code == 200
    assert len(asked) <= _position(health_router, "GET", "/api/health/ready"), asked
    asked.clear()
    assert client.get("/api/health/ready").status_code == 200
    assert asked == []


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/api/health/live", 200),
        ("POST", "/api/health/live", 405),  # the path is known, the method is not
        ("GET", "/api/health/live", 200),  # a 405 is not remembered for the GET
        ("GET", "/api/health/nowhere", 404),
        ("GET", "/api/auth/user", 401),  # the next router's route, walked after health's
        ("DELETE", "/api/doctors/not-a-uuid", 401),
        ("GET", "/api/doctors/not-a-uuid", 405),
    ],
)
def test_answers_are_the_walks_answers(client: Any, method: str, path: str, status: int) -> None:
    for _ in range(2):  # the first time, and once remembered
        assert client.request(method, path).status_code == status
