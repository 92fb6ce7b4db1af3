"""Settings: the built-in development JWT secret signs nothing a stranger can reach."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from cara import serve
from cara.config import DEV_SECRET, Settings


@pytest.mark.parametrize("env", ["test", "production"])
def test_dev_secret_refused_outside_development(env: str) -> None:
    with pytest.raises(ValidationError, match=rf"JWT_SECRET.*CARA_ENV={env}"):
        Settings(cara_env=env, jwt_secret=DEV_SECRET, host="127.0.0.1")


def test_an_environment_without_a_name_here_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A staging deploy must say CARA_ENV=production (or test): it does not start as 'staging'."""
    monkeypatch.setenv("CARA_ENV", "staging")
    with pytest.raises(ValidationError, match="cara_env"):
        Settings(jwt_secret=DEV_SECRET, host="127.0.0.1")


def test_dev_secret_refused_in_development_on_every_interface() -> None:
    with pytest.raises(ValidationError, match=r"JWT_SECRET.*loopback"):
        Settings(cara_env="development", jwt_secret=DEV_SECRET, host="0.0.0.0")  # noqa: S104


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_dev_secret_accepted_in_development_on_loopback(host: str) -> None:
    assert Settings(cara_env="development", jwt_secret=DEV_SECRET, host=host).jwt_secret == DEV_SECRET


def test_a_random_secret_is_accepted_anywhere() -> None:
    secret = "x" * 40
    assert Settings(cara_env="production", jwt_secret=secret, host="0.0.0.0").jwt_secret == secret  # noqa: S104
    with pytest.raises(ValidationError, match="JWT_SECRET"):
        Settings(cara_env="production", jwt_secret="short", host="0.0.0.0")  # noqa: S104


def test_serve_refuses_the_dev_secret_on_a_command_line_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """HOST passed the settings' check, but --host names every interface: the server must not start."""
    settings = Settings(cara_env="development", jwt_secret=DEV_SECRET, host="127.0.0.1")
    monkeypatch.setattr(serve, "get_settings", lambda: settings)
    with pytest.raises(SystemExit, match="JWT_SECRET"):
        serve.config(host="0.0.0.0")  # noqa: S104
    assert serve.config(host="127.0.0.1").host == "127.0.0.1"
