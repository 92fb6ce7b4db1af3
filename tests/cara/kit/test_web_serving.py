"""The web app (web/dist) at the site root: files, client routes, and the API untouched."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from cara.kit.static import mount_spa


@pytest.fixture
def site(tmp_path: Path) -> TestClient:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<html>app</html>")
    (dist / "assets" / "main-abc123.js").write_text("console.log(1)")
    (dist / "favicon.svg").write_text("<svg/>")
    app = FastAPI()

    @app.get("/api/ping")
    def ping() -> dict[str, str]:
        return {"pong": "yes"}

    assert mount_spa(app, prefix="", dist=dist, reserved=("api/", "admin/"))
    return TestClient(app)


def test_client_routes_get_the_app(site: TestClient) -> None:
    for route in ("/", "/doctor-login", "/radiologist", "/forgot-password?token=x"):
        r = site.get(route)
        assert r.status_code == 200, route
        assert r.text == "<html>app</html>"
        assert r.headers["cache-control"] == "no-cache"


def test_hashed_assets_are_cached_and_missing_ones_are_404(site: TestClient) -> None:
    r = site.get("/assets/main-abc123.js")
    assert r.status_code == 200
    assert "immutable" in r.headers["cache-control"]
    assert site.get("/assets/gone-000.js").status_code == 404
    assert site.get("/favicon.svg").text == "<svg/>"


def test_reserved_prefixes_never_become_the_app(site: TestClient) -> None:
    assert site.get("/api/ping").json() == {"pong": "yes"}
    assert site.get("/api/no-such-route").status_code == 404
    assert site.get("/admin/anything").status_code == 404


def test_paths_cannot_escape_the_build_folder(site: TestClient) -> None:
    r = site.get("/..%2F..%2Fetc%2Fpasswd")
    assert r.status_code == 200
    assert r.text == "<html>app</html>"


def test_real_app_keeps_api_404_in_the_error_shape(client: TestClient) -> None:
    r = client.get("/api/definitely-not-here")
    assert r.status_code == 404
    assert "message" in r.json()


def test_large_answers_are_compressed(client: TestClient) -> None:
    r = client.get("/api/openapi.json", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200
    assert r.headers["content-encoding"] == "gzip"
    assert r.json()["info"]["title"] == "Cara API"


@pytest.fixture
def precompressed(tmp_path: Path) -> TestClient:
    """A build whose files have Brotli and gzip twins (web/vite-precompress.ts writes them)."""
    import gzip

    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    script = b"console.log('cara');" * 100
    for path, body in (
        (dist / "assets" / "main-abc123.js", script),
        (dist / "index.html", b"<html>app</html>" * 100),
    ):
        path.write_bytes(body)
        path.with_name(path.name + ".gz").write_bytes(gzip.compress(body))
        path.with_name(path.name + ".br").write_bytes(b"brotli bytes of " + path.name.encode())
    app = FastAPI()
    assert mount_spa(app, prefix="", dist=dist, reserved=("api/",))
    return TestClient(app)


def test_precompressed_files_are_served_as_they_are(precompressed: TestClient) -> None:
    with precompressed.stream(
        "GET", "/assets/main-abc123.js", headers={"Accept-Encoding": "gzip, deflate, br"}
    ) as r:
        assert r.headers["content-encoding"] == "br"
        assert b"".join(r.iter_raw()) == b"brotli bytes of main-abc123.js"  # the .br file itself
        assert r.headers["content-type"].startswith("text/javascript")
        assert r.headers["vary"] == "Accept-Encoding"
        assert "immutable" in r.headers["cache-control"]

    r = precompressed.get("/assets/main-abc123.js", headers={"Accept-Encoding": "gzip"})
    assert r.headers["content-encoding"] == "gzip"
    assert r.text == "console.log('cara');" * 100  # decoded by the client

    r = precompressed.get("/assets/main-abc123.js", headers={"Accept-Encoding": "br;q=0, gzip;q=0.5"})
    assert r.headers["content-encoding"] == "gzip"

    r = precompressed.get("/assets/main-abc123.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in r.headers
    assert r.text == "console.log('cara');" * 100
    assert r.headers["vary"] == "Accept-Encoding"


def test_client_routes_get_the_precompressed_app(precompressed: TestClient) -> None:
    r = precompressed.get("/doctor-login", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200
    assert r.headers["content-encoding"] == "gzip"
    assert r.headers["content-type"].startswith("text/html")
    assert r.headers["cache-control"] == "no-cache"
    assert r.text == "<html>app</html>" * 100


@pytest.fixture
def site_files(tmp_path: Path) -> TestClient:
    """A build with the files a browser or a crawler asks for by name (web/public/ holds them)."""
    dist = tmp_path / "named" / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / ".well-known").mkdir()
    (dist / "index.html").write_text("<html>app</html>")
    (dist / "robots.txt").write_text("User-agent: *\nAllow: /\n")
    (dist / "manifest.webmanifest").write_text('{"name": "Cara"}')
    (dist / "favicon.ico").write_bytes(b"\x00\x00\x01\x00")
    (dist / "sw.js").write_text("self.addEventListener('fetch', () => {});")
    (dist / ".well-known" / "security.txt").write_text("Contact: mailto:security@example.org\n")
    app = FastAPI()
    assert mount_spa(app, prefix="", dist=dist, reserved=("api/", "admin/"))
    return TestClient(app)


def test_named_files_are_served_with_their_type(site_files: TestClient) -> None:
    expected = {
        "/robots.txt": "text/plain",
        "/manifest.webmanifest": "application/manifest+json",
        "/favicon.ico": "image/x-icon",
        "/sw.js": "text/javascript",
        "/.well-known/security.txt": "text/plain",
    }
    for route, media_type in expected.items():
        r = site_files.get(route)
        assert r.status_code == 200, route
        assert r.headers["content-type"].split(";")[0] == media_type, route
        assert r.text != "<html>app</html>", route
    # The service worker is checked for updates at every visit: never cached for long.
    assert site_files.get("/sw.js").headers["cache-control"] == "no-cache"


def test_unknown_files_are_404_not_the_app(site_files: TestClient, site: TestClient) -> None:
    for client in (site_files, site):
        for route in (
            "/apple-touch-icon.png",
            "/sitemap.xml",
            "/wp-login.php",
            "/.well-known/change-password",
            "/.well-known/assetlinks.json",
            "/.well-known",
            "/doctor-login/x.js",
        ):
            r = client.get(route)
            assert r.status_code == 404, route
            assert "app" not in r.text, route
    # A build without them: 404, not the app.
    named = ("/robots.txt", "/favicon.ico", "/manifest.webmanifest", "/sw.js", "/.well-known/security.txt")
    for route in named:
        assert site.get(route).status_code == 404, route
    # Client routes keep the fallback.
    for route in ("/doctor-login", "/consultations/5f0c", "/radiologist?x=a.b"):
        assert site_files.get(route).text == "<html>app</html>", route
