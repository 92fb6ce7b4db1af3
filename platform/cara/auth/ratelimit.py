"""Sign-in and password-reset limits (counted by cara.kit.throttle).

Failed sign-ins are counted three ways, each in its own moving window:

- per (email, client address): `LOGIN_MAX_FAILURES` in `LOGIN_WINDOW_SECONDS`;
- per email, from every address (`RATE_LIMIT_LOGIN_ACCOUNT`): guessing one account's
  password from many addresses;
- per client address, on every email (`RATE_LIMIT_LOGIN_ADDRESS`): one password tried
  across many accounts.

Past any of them, attempts are refused before the password is even checked. A success
clears the (email, address) count only; the others run out with their window.
The client address is `cara.kit.client.client_address` (X-Forwarded-For only from a
trusted proxy).
"""

from __future__ import annotations

from cara.config import get_settings
from cara.kit import throttle

LOGIN_TOO_MANY = "Too many failed login attempts. Please try again in {wait}."


def _pair_limit() -> str:
    settings = get_settings()
    return f"{settings.login_max_failures} per {settings.login_window_seconds} seconds"


def _limits(email: str, client: str) -> list[tuple[str, str, tuple[str, ...]]]:
    settings = get_settings()
    return [
        ("login-failures", _pair_limit(), (email, client)),
        ("login-account", settings.rate_limit_login_account, (email,)),
        ("login-address", settings.rate_limit_login_address, (client,)),
    ]


def check(email: str, client: str) -> None:
    for name, spec, ids in _limits(email, client):
        throttle.check(name, spec, *ids, message=LOGIN_TOO_MANY)


def record_failure(email: str, client: str) -> None:
    for name, spec, ids in _limits(email, client):
        throttle.count(name, spec, *ids)


def clear(email: str, client: str) -> None:
    throttle.clear("login-failures", _pair_limit(), email, client)


def forgot_password(email: str, client: str) -> None:
    """Counts a reset request per address and per email (known or not: the same either way)."""
    settings = get_settings()
    throttle.hit("forgot-address", settings.rate_limit_forgot_password_address, client)
    throttle.hit("forgot-email", settings.rate_limit_forgot_password_email, email)


def reset_password(client: str) -> None:
    throttle.hit("reset-address", get_settings().rate_limit_reset_password_address, client)
