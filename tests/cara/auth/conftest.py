from __future__ import annotations

from typing import Any

import pytest

from tests.factories import auth


@pytest.fixture
def admin_token(client: Any) -> str:
    """An admin created the way the first admin is: from configuration."""
    from cara.admins.bootstrap import ensure_first_admin
    from cara.config import get_settings
    from cara.kit.db import session_scope

    settings = get_settings()
    old = (settings.first_admin_email, settings.first_admin_password)
    settings.first_admin_email, settings.first_admin_password = "root-admin@example.com", "root-password"
    try:
        with session_scope() as session:
            assert ensure_first_admin(session) is True
    finally:
        settings.first_admin_email, settings.first_admin_password = old
    r = client.post(
        "/api/auth/login",
        json={"email": "root-admin@example.com", "password": "root-password", "role": "admin"},
    )
    assert r.status_code == 200, r.text
    token: str = r.json()["token"]
    return token


@pytest.fixture
def invitation(client: Any, admin_token: str) -> dict[str, Any]:
    r = client.post(
        "/api/admin/invitations", json={"email": "new-admin@example.com"}, headers=auth(admin_token)
    )
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    body["token"] = body["invitationUrl"].split("invitation=")[1]
    return body
