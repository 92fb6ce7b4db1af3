"""Reads and writes of a hospital's doctors: the platform account joined to the
tenant profile in one statement (no query per doctor)."""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from psycopg import sql
from sqlalchemy import Integer, Row, Select, String, bindparam, delete, func, or_, select, tuple_
from sqlalchemy.orm import Session

from cara.kit.db import fetch_sets, read_only_preamble
from cara.models import Account, DoctorProfile
from cara.models.tenant import account_columns


def _doctors(hospital_id: uuid.UUID) -> Select[tuple[Account, DoctorProfile]]:
    return (
        select(Account, DoctorProfile)
        .join(DoctorProfile, DoctorProfile.account_id == Account.id)
        .where(Account.hospital_id == hospital_id, Account.role == "doctor")
    )


def list_for_hospital(
    session: Session, hospital_id: uuid.UUID, *, hospital_created: bool | None
) -> list[tuple[Account, DoctorProfile]]:
    query = _doctors(hospital_id)
    if hospital_created is not None:
        query = query.where(DoctorProfile.is_hospital_created.is_(hospital_created))
    rows = session.execute(query.order_by(Account.name, Account.id)).tuples().all()
    return list(rows)


def get_for_hospital(
    session: Session, hospital_id: uuid.UUID, doctor_id: uuid.UUID, *, lock: bool = False
) -> tuple[Account, DoctorProfile] | None:
    query = _doctors(hospital_id).where(Account.id == doctor_id)
    if lock:
        query = query.with_for_update()
    row = session.execute(query).tuples().first()
    return (row[0], row[1]) if row else None


def delete_account_rows(session: Session, account_id: uuid.UUID) -> dict[str, int]:
    """Delete every row of the session's tenant schema that names the account in a column made by
    `account_id_column` and goes with the account (profile, certificate files, recording uploads
    and their audio), children's tables first. The consultations stay, with everything hanging
    off them: signed notes outlive their signer, and unsigned drafts keep to the tenant's
    retention rule (cara.consultations.service.apply_retention). For a removal of the account,
    before its platform row goes. Returns rows deleted per table."""
    deleted: dict[str, int] = {}
    for column in account_columns(removable_only=True):
        result = session.execute(
            delete(column.table).where(column == account_id).execution_options(synchronize_session=False)
        )
        deleted[column.table.name] = int(getattr(result, "rowcount", 0) or 0)
    return deleted


def list_version(
    session: Session, hospital_id: uuid.UUID, *, hospital_created: bool | None
) -> tuple[int, Decimal | None, Decimal | None]:
    """How many doctors the list holds, and the exact sums of their accounts' and profiles'
    `updated_at` instants: any change to the list changes one of the three."""
    query = (
        select(
            func.count(),
            # numeric in PostgreSQL: exact to the microsecond, however many rows are summed
            func.sum(func.extract("epoch", Account.updated_at)),
            func.sum(func.extract("epoch", DoctorProfile.updated_at)),
        )
        .select_from(Account)
        .join(DoctorProfile, DoctorProfile.account_id == Account.id)
        .where(Account.hospital_id == hospital_id, Account.role == "doctor")
    )
    if hospital_created is not None:
        query = query.where(DoctorProfile.is_hospital_created.is_(hospital_created))
    count, accounts_changed, profiles_changed = session.execute(query).one()
    return int(count), accounts_changed, profiles_changed


@dataclass(frozen=True)
class PageFilter:
    hospital_id: uuid.UUID
    hospital_created: bool | None = None
    like: str | None = None  # an ILIKE pattern over name, email and licence number
    specialty: str | None = None
    state: str | None = None
    active: bool | None = None


# The columns a list row shows, never the profile's lists: a page reads what it sends.
_ROW = (
    Account.id,
    Account.name,
    Account.email,
    Account.phone_number,
    Account.hospital_id,
    Account.is_active,
    Account.created_at,
    DoctorProfile.specialty,
    DoctorProfile.license_number,
    DoctorProfile.experience,
    DoctorProfile.is_hospital_created,
    DoctorProfile.country,
    DoctorProfile.state,
)
SORT_COLUMNS = {"name": Account.name, "createdAt": Account.created_at}


def page_for_hospital(
    session: Session,
    where: PageFilter,
    *,
    sort: str,
    descending: bool,
    after: tuple[Any, uuid.UUID] | None,
    limit: int,
) -> list[Row[Any]]:
    """A page of the hospital's doctors in (sort key, id) order, keyset-paged: the walk starts at
    `after` on the (hospital_id, key, id) index, so a deep page costs what the first does."""
    statement = _page_statement(
        sort,
        descending,
        hospital_created=where.hospital_created is not None,
        like=where.like is not None,
        specialty=where.specialty is not None,
        state=where.state is not None,
        active=where.active is not None,
        after=after is not None,
    )
    params: dict[str, Any] = {
        "hospital_id": where.hospital_id,
        "hospital_created": where.hospital_created,
        "like": where.like,
        "specialty": where.specialty,
        "state": where.state.lower() if where.state is not None else None,
        "active": where.active,
        "after_key": after[0] if after else None,
        "after_id": after[1] if after else None,
        "limit": limit,
    }
    # Plain columns: run on the session's connection, without the ORM's result processing.
    return list(session.connection().execute(statement, params).all())


@functools.lru_cache(maxsize=256)
def _page_statement(
    sort: str,
    descending: bool,
    *,
    hospital_created: bool,
    like: bool,
    specialty: bool,
    state: bool,
    active: bool,
    after: bool,
) -> Select[Any]:
    """One statement per shape of filters, built once: building it and its cache key each time
    cost more CPU than running it."""
    key = SORT_COLUMNS[sort]
    query = (
        select(*_ROW)
        .join(DoctorProfile, DoctorProfile.account_id == Account.id)
        .where(Account.hospital_id == bindparam("hospital_id"), Account.role == "doctor")
    )
    if hospital_created:
        query = query.where(DoctorProfile.is_hospital_created == bindparam("hospital_created"))
    if like:
        pattern = bindparam("like", type_=String)
        query = query.where(
            or_(
                Account.name.ilike(pattern),
                Account.email.ilike(pattern),
                DoctorProfile.license_number.ilike(pattern),
            )
        )
    if specialty:
        query = query.where(DoctorProfile.specialty == bindparam("specialty"))
    if state:
        query = query.where(func.lower(DoctorProfile.state) == bindparam("state", type_=String))
    if active:
        query = query.where(Account.is_active == bindparam("active"))
    if after:
        position = tuple_(key, Account.id)
        bound = tuple_(bindparam("after_key", type_=key.type), bindparam("after_id", type_=Account.id.type))
        query = query.where(position < bound if descending else position > bound)
    order = (key.desc(), Account.id.desc()) if descending else (key, Account.id)
    return query.order_by(*order).limit(bindparam("limit", type_=Integer))


# ---------------------------------------------------------------- the page on the event loop

# The ids as text: the answer sends their text, and parsing UUIDs to print them again was a tenth
# of the page's Python time.
_PAGE_COLUMNS = (
    "a.id::text, a.name, a.email, a.phone_number, a.hospital_id::text, a.is_active, a.created_at,"
    " p.specialty, p.license_number, p.experience, p.is_hospital_created, p.country, p.state"
)
_PAGE_KEYS = {"name": "a.name", "createdAt": "a.created_at"}


def _literal(value: Any) -> bytes:
    return sql.Literal(value).as_bytes(None)


# One entry per tenant: sized for tens of thousands of hospitals (at 4,096 the cache was
# emptied over and over by a load spread over 10,000, ops/bench/foundation.py section 3).
@functools.lru_cache(maxsize=65536)
def _page_head(schema: str, role: str) -> bytes:
    """The page's query up to the hospital id: the same for every request of a tenant."""
    return (
        read_only_preamble(role)
        + sql.SQL(
            "SELECT " + _PAGE_COLUMNS + " FROM platform.accounts a"
            " JOIN {}.doctors p ON p.account_id = a.id WHERE a.role = 'doctor' AND a.hospital_id = "
        ).format(sql.Identifier(schema))
    ).as_bytes(None)


async def page_for_hospital_async(
    schema: str,
    role: str,
    where: PageFilter,
    *,
    sort: str,
    descending: bool,
    after: tuple[Any, uuid.UUID] | None,
    limit: int,
) -> list[tuple[Any, ...]]:
    """`page_for_hospital` in one round trip on the event loop (cara.kit.db.fetch_sets), under
    the tenant's role: the same rows in the same order, from the same (hospital_id, key, id)
    index walk. Values are quoted literals (one simple-query string carries no parameters)."""
    parts = [_page_head(schema, role), _literal(where.hospital_id)]
    if where.hospital_created is not None:
        parts += [b" AND p.is_hospital_created = ", _literal(where.hospital_created)]
    if where.like is not None:
        like = _literal(where.like)
        parts.append(
            b" AND (a.name ILIKE %s OR a.email ILIKE %s OR p.license_number ILIKE %s)" % (like, like, like)
        )
    if where.specialty is not None:
        parts += [b" AND p.specialty = ", _literal(where.specialty)]
    if where.state is not None:
        parts += [b" AND lower(p.state) = ", _literal(where.state.lower())]
    if where.active is not None:
        parts += [b" AND a.is_active = ", _literal(where.active)]
    key = _PAGE_KEYS[sort].encode()
    if after is not None:
        bound = (key, b"<" if descending else b">", _literal(after[0]), _literal(after[1]))
        parts.append(b" AND (%s, a.id) %s (%s, %s)" % bound)
    direction = b" DESC" if descending else b""
    parts.append(b" ORDER BY %s%s, a.id%s LIMIT %d; COMMIT" % (key, direction, direction, limit))
    (rows,) = await fetch_sets(b"".join(parts))
    return rows
