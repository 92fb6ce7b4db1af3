"""GET /api/health and the shared HTTP behaviour (request ids, OpenAPI)."""

from __future__ import annotations

from typing import Any

from cara.health import endpoints as health


class TestHealth:
    def test_ok(self, client: Any) -> None:
        r = client.get("/api/health")
        assert r.status_code == 200
        assert r.json() == {"status": "ok", "database": "ok", "broker": "ok"}

    def test_broker_down_is_503(self, client: Any, monkeypatch: Any) -> None:
        monkeypatch.setattr(health, "_broker_ok", lambda: False)
        r = client.get("/api/health")
        assert r.status_code == 503
        assert r.json() == {"status": "degraded", "database": "ok", "broker": "down"}

    def test_database_down_is_503(self, client: Any, monkeypatch: Any) -> None:
        monkeypatch.setattr(health, "_database_ok", lambda: False)
        r = client.get("/api/health")
        assert r.status_code == 503
        assert r.json() == {"status": "degraded", "database": "down", "broker": "ok"}


class TestRequestIds:
    def test_generated_when_absent(self, client: Any) -> None:
        r = client.get("/api/health")
        assert len(r.headers["x-request-id"]) == 32

    def test_well_formed_incoming_id_is_kept(self, client: Any) -> None:
        r = client.get("/api/health", headers={"X-Request-ID": "edge-1234abcd"})
        assert r.headers["x-request-id"] == "edge-1234abcd"

    def test_malformed_incoming_id_is_replaced(self, client: Any) -> None:
        r = client.get("/api/health", headers={"X-Request-ID": "bad id; injected=1"})
        assert r.headers["x-request-id"] != "bad id; injected=1"
        assert len(r.headers["x-request-id"]) == 32


class TestOpenApi:
    # Operation ids are the generated web client's function names: renaming one is a breaking change.
    EXPECTED = {
        ("get", "/api/health"): "health_check",
        ("post", "/api/auth/signup"): "auth_signup",
        ("post", "/api/auth/login"): "auth_login",
        ("get", "/api/auth/user"): "auth_current_user",
        ("post", "/api/auth/logout"): "auth_logout",
        ("post", "/api/auth/forgot-password"): "auth_forgot_password",
        ("post", "/api/auth/reset-password"): "auth_reset_password",
        ("post", "/api/admin/invitations"): "admin_invite",
        ("get", "/api/live/status"): "live_status",
        ("post", "/api/summarize"): "summarize",
        ("post", "/api/radiotherapy-chat/messages"): "radiotherapy_chat_message",
    }

    def test_stable_operation_ids(self, client: Any) -> None:
        spec = client.get("/api/openapi.json").json()
        found = {
            (method, path): op["operationId"]
            for path, ops in spec["paths"].items()
            for method, op in ops.items()
        }
        for key, op_id in self.EXPECTED.items():
            assert found.get(key) == op_id

    def test_every_operation_declares_the_error_shape(self, client: Any) -> None:
        spec = client.get("/api/openapi.json").json()
        for path, ops in spec["paths"].items():
            for method, op in ops.items():
                if path in ("/api/health", "/api/health/live"):
                    continue  # probes answer their own shape, and liveness has no error to give
                errors = [c for c in op["responses"] if c.startswith(("4", "5"))]
                assert errors, f"{method} {path} declares no error responses"


class TestAccessLog:
    def test_logs_route_template_not_concrete_path(self, client: Any, caplog: Any) -> None:
        import logging

        caplog.set_level(logging.INFO, logger="cara.access")
        client.post("/api/auth/forgot-password?email=leak@example.com", json={"email": "x@example.com"})
        lines = [r for r in caplog.records if r.name == "cara.access"]
        assert lines and lines[-1].route == "/api/auth/forgot-password"
        ours = [r for r in caplog.records if r.name.startswith("cara")]
        assert all("leak@example.com" not in str(vars(r)) for r in ours)
