"""Field checks shared by the forms of several domains (texts from spec §5).

Each field rule is written once here (`FIELD_RULES`, with its texts in `TEXTS`). A form is
data (`FormRules`): which fields it checks and in what order, its minimums, and the few
texts the spec words differently for it ('State/Province is required' in Manage Doctors,
'State is required' elsewhere). The forms themselves are declared beside their payloads:
the doctor forms in `cara.doctors.schemas`, hospital and admin registration in
`cara.registration.schemas`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from types import MappingProxyType
from typing import Literal
from urllib.parse import urlparse

# The spec's "simple address pattern": something@something.something, no spaces.
_EMAIL = re.compile(r"^[^\s@\x00-\x1f\x7f]+@[^\s@\x00-\x1f\x7f]+\.[^\s@\x00-\x1f\x7f]+$")
_PHONE_DIGITS = re.compile(r"^\d{10,15}$")
# A phone number as people type it: digits with the usual separators (forms check stricter formats).
_PHONE_WRITTEN = re.compile(r"^\+?[\d\s\-().]{6,32}$")


def blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def email_error(value: str | None) -> str | None:
    problem = _email(value, DEFAULT_FORM)
    return TEXTS[f"email.{problem}"] if problem else None


def normalise_email(value: str) -> str:
    return value.strip().lower()


def phone_digits_ok(value: str) -> bool:
    return bool(_PHONE_DIGITS.match(value.strip()))


def phone_written_ok(value: str) -> bool:
    return bool(_PHONE_WRITTEN.match(value.strip()))


def url_ok(value: str) -> bool:
    parsed = urlparse(value.strip())
    return parsed.scheme in ("http", "https") and bool(parsed.netloc) and "." in parsed.netloc


# ---------------------------------------------------------------- dates

# The days a date given to the API may name (a consultation's, a recording's, a search's). A date
# outside is a typo or a probe, and the arithmetic done on it (a day added, a zone taken off)
# could overflow Python's or PostgreSQL's range: it is refused with a 422 naming the field.
EARLIEST_DAY = date(2000, 1, 1)
LATEST_DAY = date(2100, 12, 31)
# How far ahead of the server's clock a device's clock may run for a moment that has happened.
FUTURE_SLACK = timedelta(days=1)
DAY_RANGE_TEXT = f"Must be a date from {EARLIEST_DAY.isoformat()} to {LATEST_DAY.isoformat()}"
FUTURE_TEXT = "Must not be more than a day in the future"


def day_error(value: date | None) -> str | None:
    """Why a day is refused (outside EARLIEST_DAY..LATEST_DAY), or None."""
    if value is None or EARLIEST_DAY <= value <= LATEST_DAY:
        return None
    return DAY_RANGE_TEXT


def as_utc(value: datetime) -> datetime:
    """A moment in UTC (a time without zone is taken as UTC). For a checked moment only: a
    date at the edge of Python's range overflows when its zone is taken off."""
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)


def moment_error(value: datetime | None, *, now: datetime, past_only: bool = False) -> str | None:
    """Why a moment is refused, or None: its day (in UTC) outside EARLIEST_DAY..LATEST_DAY, or,
    for a moment that has happened (`past_only`), more than FUTURE_SLACK after `now`."""
    if value is None:
        return None
    # The day as written is checked first: taking the zone off year 1 or 9999 would overflow.
    if day_error(value.date()) or day_error(as_utc(value).date()):
        return DAY_RANGE_TEXT
    if past_only and as_utc(value) > now + FUTURE_SLACK:
        return FUTURE_TEXT
    return None


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


# ---------------------------------------------------------------- form rules

TEXTS: Mapping[str, str] = MappingProxyType(
    {
        "name.required": "Name is required",
        "name.bidi": "Name must not contain text-direction control characters",
        "email.required": "Email is required",
        "email.format": "Invalid email format",
        "password.required": "Password is required",
        "password.short": "Password must be at least {minimum} characters",
        "password.long": "Password is too long",
        "phoneNumber.required": "Phone number is required",
        "phoneNumber.format": "Invalid phone number format",
        "specialty.required": "Specialty is required",
        "specialty.choice": "Invalid specialty",
        "licenseNumber.required": "License number is required",
        "experience.negative": "Experience cannot be negative",
        "experience.high": "Experience must be {maximum} years or less",
        "country.required": "Country is required",
        "state.required": "State is required",
        "privacyPolicyAccepted.required": "You must accept the privacy policy",
        "address.required": "Address is required",
        "registrationNumber.required": "Registration number is required",
        "type.choice": "Type must be private or public",
        "capacity.negative": "Capacity cannot be negative",
        "capacity.high": "Capacity must be 1,000,000 beds or fewer",
        "website.format": "Website must be a valid URL",
    }
)

MAX_PASSWORD = 200
MAX_CAPACITY = 1_000_000


@dataclass(frozen=True, kw_only=True)
class FormRules:
    """One form's use of the shared field rules.

    `fields` are checked in this order (the order of the error messages); `edits` says which
    of them a request must have: `whole` (all but `optional`), `given` (an edit: only fields
    with a value) or `sent` (an edit: only fields the client sent, a null included).
    `texts` holds this form's own wording over `TEXTS`.
    """

    fields: tuple[str, ...]
    optional: frozenset[str] = frozenset()
    edits: Literal["whole", "given", "sent"] = "whole"
    password_min: int = 6
    phone_format: Literal["digits", "written"] | None = None
    experience_max: int = 80
    choices: Mapping[str, Collection[str]] = field(default_factory=dict)
    texts: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = [name for name in self.fields if name not in FIELD_RULES]
        if unknown:
            raise ValueError(f"no field rule for {unknown}")

    def text(self, key: str) -> str:
        return self.texts.get(key, TEXTS[key]).format(minimum=self.password_min, maximum=self.experience_max)

    def check(
        self,
        values: Mapping[str, object],
        *,
        sent: Collection[str] = (),
        errors: FieldErrors | None = None,
    ) -> FieldErrors:
        """The first problem of each field, in the form's own words."""
        errors = FieldErrors() if errors is None else errors
        for name in self.fields:
            value = values.get(name)
            if self.edits == "sent" and name not in sent:
                continue
            if self.edits == "given" and value is None:
                continue
            if self.edits == "whole" and value is None and name in self.optional:
                continue
            problem = FIELD_RULES[name](value, self)
            if problem:
                errors.add(name, self.text(f"{name}.{problem}"))
        return errors


# A rule returns the name of the value's first problem (a key suffix in TEXTS), or None.
FieldRule = Callable[[object, FormRules], str | None]


def _required(value: object, form: FormRules) -> str | None:
    return "required" if blank(value) else None


# Bidirectional controls (LRE..RLO, LRI..PDI, LRM, RLM, ALM) reorder how a text is displayed:
# '\u202egnp.pdf' shows as 'fdp.png'. Names never need them.
BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _name(value: object, form: FormRules) -> str | None:
    if blank(value):
        return "required"
    return "bidi" if isinstance(value, str) and BIDI_CONTROLS.search(value) else None


def _email(value: object, form: FormRules) -> str | None:
    if blank(value):
        return "required"
    text = str(value)
    if not _EMAIL.match(text.strip()) or len(text) > 254:
        return "format"
    return None


def _password(value: object, form: FormRules) -> str | None:
    if blank(value):
        return "required"
    if len(str(value)) < form.password_min:
        return "short"
    if len(str(value)) > MAX_PASSWORD:
        return "long"
    return None


_PHONE_FORMATS: Mapping[str, Callable[[str], bool]] = {
    "digits": phone_digits_ok,
    "written": phone_written_ok,
}


def _phone(value: object, form: FormRules) -> str | None:
    if blank(value):
        return "required"
    if form.phone_format and not _PHONE_FORMATS[form.phone_format](str(value)):
        return "format"
    return None


def _specialty(value: object, form: FormRules) -> str | None:
    if blank(value):
        return "required"
    return None if str(value).strip() in form.choices["specialty"] else "choice"


def _experience(value: object, form: FormRules) -> str | None:
    if not isinstance(value, int) or value < 0:
        return "negative"
    return "high" if value > form.experience_max else None


def _accepted(value: object, form: FormRules) -> str | None:
    return None if value else "required"


def _hospital_type(value: object, form: FormRules) -> str | None:
    return None if value in form.choices["type"] else "choice"


def _capacity(value: object, form: FormRules) -> str | None:
    if not isinstance(value, int) or value < 0:
        return "negative"
    return "high" if value > MAX_CAPACITY else None


def _website(value: object, form: FormRules) -> str | None:
    return None if blank(value) or url_ok(str(value)) else "format"


FIELD_RULES: Mapping[str, FieldRule] = MappingProxyType(
    {
        "name": _name,
        "email": _email,
        "password": _password,
        "phoneNumber": _phone,
        "specialty": _specialty,
        "licenseNumber": _required,
        "experience": _experience,
        "country": _required,
        "state": _required,
        "privacyPolicyAccepted": _accepted,
        "address": _required,
        "registrationNumber": _required,
        "type": _hospital_type,
        "capacity": _capacity,
        "website": _website,
    }
)

# Forms that only check an email (sign-in, password reset, invitations) use the shared texts.
DEFAULT_FORM = FormRules(fields=("email",))
