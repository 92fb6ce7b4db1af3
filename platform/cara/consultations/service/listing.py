"""The doctor's list of consultations: keyset pages, newest first, with text search over title,
patient reference and transcript, read on the event loop.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import uuid
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import pydantic_core
from starlette.concurrency import run_in_threadpool

from cara.auth.principal import Principal, tenant_role
from cara.consultations import repository
from cara.consultations.schemas import PatientReference
from cara.consultations.service.record import (
    BAD_CURSOR,
    MAX_SEARCH_WORDS,
    NOT_FOUND,
    PAGE_SIZE,
    display_state,
    require_doctor,
)
from cara.kit.errors import BadRequest, NotFound, ValidationFailed
from cara.kit.validation import FieldErrors, day_error
from tenants.sessions import TenantTransactions

# ------------------------------------------------------------------ list and read


def encode_cursor(started_at: datetime, consultation_id: uuid.UUID) -> str:
    raw = json.dumps([started_at.isoformat(), str(consultation_id)], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, uuid.UUID]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        started, ident = json.loads(raw)
        at = datetime.fromisoformat(started)
        if at.tzinfo is None:
            raise ValueError("naive time")
        return at, uuid.UUID(ident)
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError) as exc:
        raise BadRequest(BAD_CURSOR) from exc


def search_words(q: str | None) -> list[str]:
    """Letters and digits of the query, lower case; each matches as a word prefix."""
    words = re.findall(r"[^\W_]+", (q or "").lower())
    return [w[:64] for w in words[:MAX_SEARCH_WORDS]]


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def _check_days(started_from: date | None, started_to: date | None) -> None:
    """Both days in the range the API accepts (kit.validation), named as the query names them:
    a day at the edge of the calendar would overflow when a day is added to it."""
    errors = FieldErrors()
    errors.add("from", day_error(started_from))
    errors.add("to", day_error(started_to))
    if errors:
        raise ValidationFailed(errors)


async def list_consultations(
    principal: Principal,
    *,
    q: str | None = None,
    started_from: date | None = None,
    started_to: date | None = None,
    state: str | None = None,
    cursor: str | None = None,
    limit: int = PAGE_SIZE,
) -> bytes:
    """The doctor's consultations, newest first (ConsultationPage, encoded as JSON); text search
    over title, patient reference and transcript; `started_from` / `started_to` are whole days
    (UTC), both included. One read on the event loop, under the tenant's database role."""
    require_doctor(principal)
    _check_days(started_from, started_to)
    schema = principal.tenant_schema
    if schema is None:  # a doctor always has a tenant; the principal check made sure
        raise NotFound(NOT_FOUND)
    words = search_words(q)
    where = repository.ListFilter(
        doctor_id=principal.id,
        words=words,
        started_from=_day_start(started_from) if started_from else None,
        started_before=_day_start(started_to) + timedelta(days=1) if started_to else None,
        state=state,
    )
    after = decode_cursor(cursor) if cursor else None
    role = tenant_role(schema)
    listed = await repository.list_page_async(schema, role, where, after=after, limit=limit + 1)
    if listed.stale:
        # Rare: the live relay gathers a consultation's words as it stores lines and when it
        # ends. Documents written otherwise (an import, a restore) are gathered here, once, in a
        # transaction of their own (the request has no session: it reads on the event loop),
        # and the page read again.
        transactions = TenantTransactions(schema, role)
        await run_in_threadpool(transactions.run, repository.refresh_search, principal.id)
        listed = await repository.list_page_async(schema, role, where, after=after, limit=limit + 1)
    rows = listed.rows[:limit]
    more = len(listed.rows) > limit
    next_cursor = encode_cursor(rows[-1][4], rows[-1][0]) if more and rows else None
    # Encoded straight from the rows by pydantic's own serializer (the bytes FastAPI writes for
    # `response_model=ConsultationPage`, a test holds them equal): building and validating 20
    # models, then dumping them, cost a tenth of the request's CPU.
    return pydantic_core.to_json({"items": [_listed_json(row) for row in rows], "nextCursor": next_cursor})


_REFERENCE_KEYS = tuple(PatientReference.model_fields)


def _listed_json(row: tuple[Any, ...]) -> dict[str, Any]:
    """ConsultationOut's fields, in its order, from a row of repository.list_page_async (values
    as stored: the patient reference was validated when written)."""
    (
        ident,
        console,
        state,
        title,
        started_at,
        ended_at,
        reference,
        basis,
        given_by,
        given_at,
        source,
        lines,
    ) = row
    return {
        "id": ident,
        "console": console,
        "state": display_state(state, ended_at is not None),
        "title": title,
        "startedAt": started_at,
        "endedAt": ended_at,
        "durationSeconds": None if ended_at is None else max(0, int((ended_at - started_at).total_seconds())),
        "lineCount": int(lines),
        "patientReference": {key: reference.get(key) for key in _REFERENCE_KEYS} if reference else None,
        "consent": {"basis": basis, "givenBy": given_by, "givenAt": given_at},
        "source": source or "live",
    }
