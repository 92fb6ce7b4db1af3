"""Sign-in and password-reset limits (counted by cara.kit.throttle).

Failed sign-ins are counted three ways, each in its own moving window:

- per (email, client address): `LOGIN_MAX_FAILURES` in `LOGIN_WINDOW_SECONDS`;
- per email, from every address (`RATE_LIMIT_LOGIN_ACCOUNT`): guessing one account's
  password from many addresses;
- per client address, on every email (`RATE_LIMIT_LOGIN_ADDRESS`): one password tried
  across many accounts.

Only the first refuses (429, before the password is checked): it holds the address that
failed, never anyone else. The other two are counted by strangers, so a block on them would
let anyone lock an account, or a whole clinic behind one address, out. Past them (`guarded`)
a sign-in is asked for more instead: a right password from a place the account signed in
from before (`cara.auth.stepup`) goes in as usual, and from anywhere else the account's
email gets a sign-in link (`cara.auth.service.login`). A success clears the (email, address)
count; a password reset or a used sign-in link clears the account's.
The client address is `cara.kit.client.client_address` (X-Forwarded-For only from a
trusted proxy).
"""

from __future__ import annotations

import uuid

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
    """429 once this address has failed too often on this email (only its own attempts count)."""
    throttle.check("login-failures", _pair_limit(), email, client, message=LOGIN_TOO_MANY)


def guarded(email: str, client: str) -> bool:
    """Whether the account's or the address's count is past its limit: a sign-in from a place
    the account does not know then needs a step-up, never a block."""
    settings = get_settings()
    return throttle.reached("login-account", settings.rate_limit_login_account, email) or throttle.reached(
        "login-address", settings.rate_limit_login_address, client
    )


def record_failure(email: str, client: str) -> None:
    for name, spec, ids in _limits(email, client):
        throttle.count(name, spec, *ids)


def clear(email: str, client: str) -> None:
    throttle.clear("login-failures", _pair_limit(), email, client)


def clear_account(email: str) -> None:
    """The owner proved themselves (a password reset, a used sign-in link): their account's
    count starts again, whoever ran it up."""
    throttle.clear("login-account", get_settings().rate_limit_login_account, email)


def unlock_mail(account_id: uuid.UUID) -> bool:
    """Counts one sign-in link mailed to the account; False past the limit (none is sent)."""
    return throttle.allow("login-unlock-mail", get_settings().rate_limit_login_unlock_mail, str(account_id))


def check_current_password(account_id: uuid.UUID, email: str, client: str) -> None:
    """A signed-in caller's current password (changing the password or email): the address's
    sign-in count, and a count of the account's own that only a holder of its session can run
    up (the sign-in count per account is anyone's)."""
    check(email, client)
    spec = get_settings().rate_limit_login_account
    throttle.check("current-password", spec, str(account_id), message=LOGIN_TOO_MANY)


def record_current_password_failure(account_id: uuid.UUID, email: str, client: str) -> None:
    throttle.count("login-failures", _pair_limit(), email, client)
    throttle.count("current-password", get_settings().rate_limit_login_account, str(account_id))


def forgot_password(email: str, client: str) -> None:
    """Counts a reset request per address and per email (known or not: the same either way)."""
    settings = get_settings()
    throttle.hit("forgot-address", settings.rate_limit_forgot_password_address, client)
    throttle.hit("forgot-email", settings.rate_limit_forgot_password_email, email)


def reset_password(client: str) -> None:
    throttle.hit("reset-address", get_settings().rate_limit_reset_password_address, client)
