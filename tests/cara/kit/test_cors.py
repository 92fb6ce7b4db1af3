"""A separately hosted console can read list totals: Content-Range is exposed."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient


def test_allowed_origin_sees_content_range(monkeypatch: Any) -> None:
    from cara.config import get_settings
    from cara.main import create_app

    monkeypatch.setattr(get_settings(), "cors_origins", ["https://console.example.org"])
    app = create_app()
    with TestClient(app) as client:
        r = client.get("/api/health", headers={"Origin": "https://console.example.org"})
        assert r.headers["access-control-allow-origin"] == "https://console.example.org"
        exposed = {h.strip().lower() for h in r.headers["access-control-expose-headers"].split(",")}
        assert {"content-range", "x-request-id"} <= exposed
        other = client.get("/api/health", headers={"Origin": "https://evil.example.com"})
        assert "access-control-allow-origin" not in other.headers


def test_no_cross_origin_access_by_default(client: Any) -> None:
    r = client.get("/api/health", headers={"Origin": "https://console.example.org"})
    assert "access-control-allow-origin" not in r.headers
