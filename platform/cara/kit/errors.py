"""One error shape for the whole API: {"message": str, "fields": {name: message}}.

Services raise subclasses of `CaraError`; the handlers in `cara.kit.handlers`
turn them into responses. Nothing below the routers raises HTTPException.
"""

from __future__ import annotations


class CaraError(Exception):
    status_code = 400

    def __init__(self, message: str, *, fields: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields or {}


class BadRequest(CaraError):
    status_code = 400


class ValidationFailed(CaraError):
    """Form-level validation: one message per field, texts from the spec (§5)."""

    status_code = 422

    def __init__(self, fields: dict[str, str], message: str = "Please fix the errors in the form") -> None:
        super().__init__(message, fields=fields)


class Unauthorized(CaraError):
    status_code = 401


class Forbidden(CaraError):
    status_code = 403


class NotFound(CaraError):
    status_code = 404


class Conflict(CaraError):
    status_code = 409


class PayloadTooLarge(CaraError):
    status_code = 413


class UnsupportedMediaType(CaraError):
    status_code = 415


class TooManyRequests(CaraError):
    status_code = 429

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class FailedDependency(CaraError):
    """424: a service the tenant configured (its PACS) refused or did not answer; the message
    names the setting to check."""

    status_code = 424


class InsufficientStorage(CaraError):
    """507: a storage quota is reached; what is already stored stays."""

    status_code = 507


class ServiceUnavailable(CaraError):
    status_code = 503
