"""Lists: react-admin's REST conventions (`sort`, `range`, `filter` as JSON query
parameters in, the total in a `Content-Range` header out), and opaque keyset cursors
for the lists a screen pages through (the app's GZipMiddleware compresses the answers)."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any

from fastapi import Response

from cara.kit.errors import BadRequest

MAX_PAGE = 500
# Beyond any real list; keeps OFFSET inside PostgreSQL's bigint.
MAX_OFFSET = 1_000_000_000


@dataclass(frozen=True)
class ListQuery:
    sort_field: str
    descending: bool
    start: int
    end: int  # inclusive, as react-admin sends it
    filters: dict[str, Any] = field(default_factory=dict)

    @property
    def limit(self) -> int:
        return self.end - self.start + 1


def _json(raw: str | None, name: str) -> Any:
    if raw is None or raw == "":
        return None
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise BadRequest(f"The {name} parameter must be JSON.", fields={name: "Must be JSON"}) from exc


def parse(
    sort: str | None,
    range_: str | None,
    filter_: str | None,
    *,
    sortable: set[str],
    default_sort: tuple[str, bool],
    default_page: int = 100,
) -> ListQuery:
    """Parse and check the three parameters; anything malformed is a 400, never a 500."""
    field_name, descending = default_sort
    s = _json(sort, "sort")
    if s is not None:
        if not (isinstance(s, list) and len(s) == 2 and all(isinstance(x, str) for x in s)):
            raise BadRequest('sort must look like ["field","ASC"].', fields={"sort": "Invalid sort"})
        if s[0] not in sortable:
            raise BadRequest(f"Cannot sort by {s[0]!r}.", fields={"sort": "Unknown field"})
        if s[1].upper() not in ("ASC", "DESC"):
            raise BadRequest("Sort order must be ASC or DESC.", fields={"sort": "Invalid order"})
        field_name, descending = s[0], s[1].upper() == "DESC"

    start, end = 0, default_page - 1
    r = _json(range_, "range")
    if r is not None:
        if not (
            isinstance(r, list)
            and len(r) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in r)
            and 0 <= r[0] <= r[1] <= MAX_OFFSET
        ):
            raise BadRequest("range must look like [0,24].", fields={"range": "Invalid range"})
        start, end = r[0], min(r[1], r[0] + MAX_PAGE - 1)

    f = _json(filter_, "filter")
    if f is not None and not isinstance(f, dict):
        raise BadRequest("filter must be a JSON object.", fields={"filter": "Invalid filter"})
    return ListQuery(field_name, descending, start, end, f or {})


def set_content_range(response: Response, resource: str, query: ListQuery, count: int, total: int) -> None:
    if count == 0:
        response.headers["Content-Range"] = f"{resource} */{total}"
    else:
        response.headers["Content-Range"] = f"{resource} {query.start}-{query.start + count - 1}/{total}"


def text_filter(filters: dict[str, Any], key: str = "q") -> str | None:
    value = filters.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str) or "\x00" in value:
        raise BadRequest(f"filter.{key} must be text.", fields={"filter": "Invalid filter"})
    return value.strip()[:200] or None


def bool_filter(filters: dict[str, Any], key: str) -> bool | None:
    value = filters.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, bool):
        raise BadRequest(f"filter.{key} must be true or false.", fields={"filter": "Invalid filter"})
    return value


# ---------------------------------------------------------------- keyset pages (lists a screen pages through)

BAD_CURSOR = "The cursor does not belong to this list; ask for the first page again."
MAX_CURSOR = 400


def encode_cursor(*values: str) -> str:
    """An opaque cursor: the position after the last row of a page (its sort key and id)."""
    raw = json.dumps(list(values), separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, size: int) -> list[str]:
    """The `size` values `encode_cursor` put in; anything else is a 400 naming the cursor."""
    try:
        if len(cursor) > MAX_CURSOR:
            raise ValueError("too long")
        values = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(BAD_CURSOR, fields={"cursor": "Invalid cursor"}) from exc
    if not (isinstance(values, list) and len(values) == size and all(isinstance(v, str) for v in values)):
        raise BadRequest(BAD_CURSOR, fields={"cursor": "Invalid cursor"})
    return values


def like_pattern(text: str) -> str:
    """`%text%` for ILIKE with the user's own `%`, `_` and `\\` taken literally."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"
