"""Answers are gzipped only for clients that accept it, and say they vary by Accept-Encoding."""

from __future__ import annotations

import gzip
from typing import Any


def test_a_large_answer_is_gzipped_for_a_client_that_accepts_it(client: Any) -> None:
    r = client.get("/api/openapi.json", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200
    assert r.headers["content-encoding"] == "gzip"
    assert "Accept-Encoding" in r.headers["vary"]
    assert r.headers["x-request-id"] and r.headers["x-content-type-options"] == "nosniff"


def test_the_same_answer_is_plain_for_a_client_that_does_not(client: Any) -> None:
    packed = client.get("/api/openapi.json", headers={"Accept-Encoding": "gzip"})
    plain = client.get("/api/openapi.json", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert plain.headers["vary"] == "Accept-Encoding"  # a shared cache must not hand it to the other kind
    assert plain.content == packed.content  # httpx undid the gzip of the first
    assert len(gzip.compress(plain.content)) < len(plain.content)


def test_a_small_answer_is_never_gzipped_and_does_not_vary(client: Any) -> None:
    for encoding in ("gzip", "identity"):
        r = client.get("/api/health/live", headers={"Accept-Encoding": encoding})
        assert r.status_code == 200 and r.json() == {"status": "ok"}
        assert "content-encoding" not in r.headers
        assert "vary" not in r.headers
