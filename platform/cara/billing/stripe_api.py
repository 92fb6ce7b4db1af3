"""The one place that builds the Stripe client and turns provider failures into our errors.

Production and tests share this path: only `STRIPE_API_BASE` differs (the
project's test double, cara_doubles.stripe). The secret key stays here; it is
never logged, returned or put on a span.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

import stripe

from cara.config import get_settings
from cara.kit.errors import ServiceUnavailable

log = logging.getLogger("cara.billing")
# The SDK logs every request URL at INFO; ours say what failed, without ids or amounts.
logging.getLogger("stripe").setLevel(logging.WARNING)

NOT_CONFIGURED = "Payment system is not properly configured"
PROVIDER_DOWN = "The payment provider is unavailable. Please try again shortly."


def is_configured() -> bool:
    return bool(get_settings().stripe_secret_key)


def test_mode() -> bool:
    """True with a test key or another API base (the double): the UI shows a "test payments" badge."""
    settings = get_settings()
    return bool(settings.stripe_api_base) or (settings.stripe_secret_key or "").startswith("sk_test_")


@lru_cache(maxsize=4)
def _client(secret_key: str, api_base: str | None) -> stripe.StripeClient:
    # A couple of retries with the SDK's own idempotency keys: safe for POSTs.
    if api_base:
        return stripe.StripeClient(
            secret_key, base_addresses={"api": api_base.rstrip("/")}, max_network_retries=2
        )
    return stripe.StripeClient(secret_key, max_network_retries=2)


def client() -> stripe.StripeClient:
    """The Stripe client, or 503 'Payment system is not properly configured'."""
    settings = get_settings()
    if not settings.stripe_secret_key:
        raise ServiceUnavailable(NOT_CONFIGURED)
    return _client(settings.stripe_secret_key, settings.stripe_api_base)


def is_missing(exc: stripe.StripeError) -> bool:
    """Stripe does not know the object (404 resource_missing)."""
    return isinstance(exc, stripe.InvalidRequestError) and (
        exc.http_status == 404 or exc.code == "resource_missing"
    )


@contextmanager
def provider_errors() -> Iterator[None]:
    """Stripe failures that are not the caller's fault become a clear 503.

    Callers handle the errors they expect (a missing object, a declined card)
    inside this block; what is left is an outage, a bad key or a request we
    built wrongly, none of which the browser can fix.
    """
    try:
        yield
    except stripe.AuthenticationError as exc:
        log.error("stripe refused our key", extra={"stripe_status": exc.http_status})
        raise ServiceUnavailable(NOT_CONFIGURED) from exc
    except stripe.StripeError as exc:
        log.error(
            "stripe call failed",
            extra={
                "stripe_error": type(exc).__name__,
                "stripe_status": exc.http_status,
                "stripe_code": exc.code,
            },
        )
        raise ServiceUnavailable(PROVIDER_DOWN) from exc
