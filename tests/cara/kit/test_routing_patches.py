"""The routing changes of cara.kit.routing rely on FastAPI's private attributes: they are applied
only on a FastAPI release they were verified against, and step aside when the attributes are gone.
How the tuned app routes is tests/cara/test_routing.py's."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import fastapi
import pytest
from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient

from cara.kit import routing


@pytest.fixture(autouse=True)
def clean_state() -> Iterator[None]:
    """These tests touch neither the database nor Redis: no reset around each of them."""
    yield


def test_fastapi_is_a_release_the_routing_changes_were_verified_against() -> None:
    assert fastapi.__version__ in routing.TESTED_FASTAPI, (
        f"FastAPI {fastapi.__version__} is not one cara.kit.routing was verified against "
        f"({', '.join(sorted(routing.TESTED_FASTAPI))}): its changes reach into FastAPI's private "
        "routing attributes. Run tests/cara/test_routing.py and the routing benchmark "
        "(ops/bench/request_overhead.py) on this release, and only then add it to TESTED_FASTAPI."
    )


def _included(app: FastAPI) -> list[Any]:
    return [r for r in app.router.routes if getattr(r, "original_router", None) is not None]


def _tuned(route: Any) -> bool:
    """Whether tune_routing replaced this included router's walk (instance attributes)."""
    return "matches" in vars(route) and "_match" in vars(route)


def _nests_routers(route: Any) -> bool:
    return any(hasattr(child, "original_router") for child in route.original_router.routes)


def test_the_app_has_every_attribute_and_each_flat_router_is_tuned() -> None:
    from cara.main import app

    assert routing.missing_private_attributes(app) == []
    flat = [r for r in _included(app) if not _nests_routers(r)]
    assert len(flat) > 5, "the domains' routers are included in the app, each nesting none"
    untuned = [
        r.original_router.prefix or r.effective_candidates()[0].path_format for r in flat if not _tuned(r)
    ]
    assert untuned == [], "a router nesting none, all of whose routes have templates, is tuned"
    assert all("_get_routes_version" in vars(r.original_router) for r in flat)
    # A router that nests others (cara.assistant_routes) keeps FastAPI's walk.
    assert not any(_tuned(r) for r in _included(app) if _nests_routers(r))


def _small_app() -> FastAPI:
    router = APIRouter(prefix="/things")

    @router.get("/here")
    def here() -> dict[str, str]:
        return {"at": "here"}

    @router.get("/{thing_id}")
    def one(thing_id: int) -> dict[str, int]:
        return {"id": thing_id}

    app = FastAPI()
    app.include_router(router, prefix="/api")
    return app


def _answers(app: FastAPI) -> list[tuple[int, Any]]:
    with TestClient(app) as client:
        return [
            (r.status_code, r.json())
            for r in (
                client.get(path)
                for path in ("/api/things/here", "/api/things/here", "/api/things/7", "/api/elsewhere")
            )
        ]


EXPECTED = [
    (200, {"at": "here"}),
    (200, {"at": "here"}),
    (200, {"id": 7}),
    (404, {"detail": "Not Found"}),
]


def test_a_small_app_is_tuned_and_answers_as_before() -> None:
    app = _small_app()
    assert _answers(app) == EXPECTED
    routing.tune_routing(app)
    assert all(_tuned(r) for r in _included(app))
    assert _answers(app) == EXPECTED


@pytest.mark.parametrize(
    ("attribute", "missing"),
    [
        ("_ROUTER_ATTRIBUTES", "APIRouter._routes_version_gone"),
        ("_INCLUDED_ROUTE_ATTRIBUTES", "_IncludedRouter._match_gone"),
    ],
)
def test_a_missing_private_attribute_keeps_fastapis_own_walk(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, attribute: str, missing: str
) -> None:
    """As on a FastAPI whose routers lost an attribute the changes use: nothing is changed."""
    name = missing.partition(".")[2]
    monkeypatch.setattr(routing, attribute, (*getattr(routing, attribute), name))
    app = _small_app()
    assert routing.missing_private_attributes(app) == [missing]
    with caplog.at_level(logging.WARNING, logger="cara.routing"):
        routing.tune_routing(app)
    assert missing in caplog.text
    assert not any(_tuned(r) for r in _included(app))
    assert not any("_get_routes_version" in vars(r.original_router) for r in _included(app))
    assert _answers(app) == EXPECTED


def test_a_starlette_without_get_route_path_keeps_fastapis_own_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(routing, "get_route_path", None)
    app = _small_app()
    assert routing.missing_private_attributes(app) == ["starlette._utils.get_route_path"]
    routing.tune_routing(app)
    assert not any(_tuned(r) for r in _included(app))
    assert _answers(app) == EXPECTED
