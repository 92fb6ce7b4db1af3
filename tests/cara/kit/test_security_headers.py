"""Browser security headers on every kind of response: both apps, their files, the API,
its errors (including a 500), the API documentation and its files."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import APIRouter
from fastapi.testclient import TestClient

from cara.kit.headers import content_security_policy
from cara.main import REPO_ROOT, create_app

EXPECTED = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "strict-origin-when-cross-origin",
}


def _assert_headers(r: Any, *, tls: bool = False) -> None:
    for name, value in EXPECTED.items():
        assert r.headers.get(name) == value, (r.request.url, name)
    csp = dict(d.strip().split(" ", 1) for d in r.headers["content-security-policy"].split(";"))
    assert csp["script-src"] == "'self'"
    # Inline style text is refused: the only hash is the empty string's (Emotion's empty <style>).
    assert csp["style-src"] == "'self' 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
    assert csp["frame-ancestors"] == "'none'"
    assert csp["object-src"] == "'none'"
    assert "unsafe-inline" not in r.headers["content-security-policy"]
    socket = "wss://testserver" if tls else "ws://testserver"
    assert csp["connect-src"] == f"'self' {socket}"
    policy = r.headers["permissions-policy"]
    assert "microphone=(self)" in policy and "camera=(self)" in policy
    if tls:
        assert r.headers["strict-transport-security"].startswith("max-age=63072000")
    else:
        assert "strict-transport-security" not in r.headers


@pytest.fixture
def site() -> TestClient:
    app = create_app()
    boom = APIRouter()

    @boom.get("/api/test-boom")
    def explode() -> None:
        raise RuntimeError("boom")

    app.include_router(boom)
    # The catch-all of the web app was registered first; the test route must come before it.
    app.router.routes.insert(0, app.router.routes.pop())
    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/api/health", 200),  # API JSON
        ("/api/auth/login", 405),  # a method the route does not take
        ("/api/auth/user", 401),  # an error in the error shape
        ("/api/no-such-route", 404),  # an unknown API route
        ("/api/test-boom", 500),  # an unexpected error, answered by the error middleware
        ("/api/openapi.json", 200),
        ("/api/docs", 200),  # Swagger UI
        ("/api/docs/init.js", 200),
        ("/api/docs/assets/swagger-ui-bundle.js", 200),
    ],
)
def test_api_responses_carry_the_headers(site: TestClient, path: str, status: int | None) -> None:
    r = site.get(path)
    if status is not None:
        assert r.status_code == status, r.text[:200]
    _assert_headers(r)


def test_a_post_refused_for_its_size_carries_them(site: TestClient) -> None:
    r = site.post("/api/auth/login", content=b"x" * 2_000_000, headers={"content-type": "application/json"})
    assert r.status_code == 413
    _assert_headers(r)


@pytest.mark.skipif(not (REPO_ROOT / "web" / "dist" / "index.html").is_file(), reason="web app not built")
@pytest.mark.parametrize("path", ["/", "/doctor-login", "/favicon.svg", "/theme.js", "/assets/missing-0.js"])
def test_web_app_pages_and_files_carry_them(site: TestClient, path: str) -> None:
    r = site.get(path)
    assert r.status_code in (200, 404)
    _assert_headers(r)


@pytest.mark.skipif(
    not (REPO_ROOT / "admin-web" / "dist" / "index.html").is_file(), reason="admin console not built"
)
@pytest.mark.parametrize("path", ["/admin/", "/admin/doctors", "/admin/favicon.svg", "/admin"])
def test_admin_console_pages_and_files_carry_them(site: TestClient, path: str) -> None:
    r = site.get(path, follow_redirects=False)
    assert r.status_code in (200, 307)
    _assert_headers(r)


def test_a_method_an_api_route_does_not_take_is_405_with_allow(site: TestClient) -> None:
    r = site.get("/api/auth/login")
    assert r.status_code == 405
    assert r.headers["allow"] == "POST"
    assert set(r.json()) == {"message", "fields"}


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("DELETE", "/api/consultations", "GET, POST"),  # two routes share the path
        ("DELETE", "/api/consultations/settings", "GET, PUT"),  # not /api/consultations/{id}'s
        ("POST", "/api/consultations/abc", "GET, PATCH"),
        ("POST", "/api/doctors/abc", "DELETE, PUT"),
    ],
)
def test_allow_names_every_method_of_the_path(site: TestClient, method: str, path: str, allow: str) -> None:
    r = site.request(method, path)
    assert r.status_code == 405
    assert r.headers["allow"] == allow


def test_every_body_taking_operation_documents_400_and_413(site: TestClient) -> None:
    """A malformed or oversized body is refused before the handler, on every such route."""
    document = site.get("/api/openapi.json").json()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if "requestBody" in operation:
                assert {"400", "413"} <= set(operation["responses"]), f"{method.upper()} {path}"


def test_hsts_only_over_tls() -> None:
    tls = TestClient(create_app(), base_url="https://testserver")
    _assert_headers(tls.get("/api/health"), tls=True)


def test_the_docs_page_loads_nothing_from_another_site(site: TestClient) -> None:
    page = site.get("/api/docs").text
    assert "http" not in page  # every script and style is a path on this server
    assert "<script>" not in page  # no inline script
    assert "SwaggerUIBundle" in site.get("/api/docs/init.js").text


def test_the_docs_page_is_off_in_production(monkeypatch: pytest.MonkeyPatch) -> None:
    from cara.config import get_settings

    monkeypatch.setattr(get_settings(), "api_docs", False)
    app = TestClient(create_app())
    assert app.get("/api/docs").status_code == 404
    assert app.get("/api/openapi.json").status_code == 200


def test_a_host_header_cannot_extend_the_policy() -> None:
    csp = content_security_policy(host="evil.example; script-src *", tls=False)
    assert "evil" not in csp
    assert "connect-src 'self';" in csp
