"""Field checks shared by the forms of several domains (texts from spec §5)."""

from __future__ import annotations

import re
from urllib.parse import urlparse

# The spec's "simple address pattern": something@something.something, no spaces.
_EMAIL = re.compile(r"^[^\s@\x00-\x1f\x7f]+@[^\s@\x00-\x1f\x7f]+\.[^\s@\x00-\x1f\x7f]+$")
_PHONE_DIGITS = re.compile(r"^\d{10,15}$")
# A phone number as people type it: digits with the usual separators (forms check stricter formats).
_PHONE_WRITTEN = re.compile(r"^\+?[\d\s\-().]{6,32}$")


def blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def email_error(value: str | None) -> str | None:
    if blank(value):
        return "Email is required"
    if not _EMAIL.match((value or "").strip()) or len(value or "") > 254:
        return "Invalid email format"
    return None


def normalise_email(value: str) -> str:
    return value.strip().lower()


def phone_digits_ok(value: str) -> bool:
    return bool(_PHONE_DIGITS.match(value.strip()))


def phone_written_ok(value: str) -> bool:
    return bool(_PHONE_WRITTEN.match(value.strip()))


def url_ok(value: str) -> bool:
    parsed = urlparse(value.strip())
    return parsed.scheme in ("http", "https") and bool(parsed.netloc) and "." in parsed.netloc


class FieldErrors(dict[str, str]):
    """Collects the first message per field."""

    def add(self, field: str, message: str | None) -> None:
        if message and field not in self:
            self[field] = message

    def require(self, field: str, value: object, message: str) -> bool:
        if blank(value):
            self.add(field, message)
            return False
        return True


class ChangeSet(list[str]):
    """Applies new values to model attributes, remembering the names of those that changed
    (what an audit entry records: which fields, never their values)."""

    def set(self, obj: object, attr: str, value: object, name: str) -> None:
        if getattr(obj, attr) != value:
            setattr(obj, attr, value)
            self.append(name)
