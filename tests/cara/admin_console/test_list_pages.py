"""The console's lists page by page, in every order it can ask for, against the order and totals
worked out here: key, then id ascending, NULLs last going up (PostgreSQL's order); the total in
Content-Range that of every row the filters keep. Many rows share a key, so a page boundary
inside a run of equal keys shows a wrong tie-break, and the paged path (the page's ids first,
then its joins) is compared with the path that orders the joined rows (a join's sort or filter)."""

from __future__ import annotations

import functools
import json
import random
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import insert, select

from cara.kit.db import session_scope
from cara.models import Account, Hospital, Payment, Plan, Tenant, TenantRollup
from tests.factories import auth

START = datetime(2026, 3, 1, 9, tzinfo=UTC)
PAGE = 7
# Letters and digits at the same places: any collation orders them as Python does.
NAMES = ("Hospital Alpha", "Hospital Bravo", "Hospital Delta", "Hospital Kilo")
STATES = ("Ashanti", "Greater Accra", "Volta")


@pytest.fixture
def rows() -> dict[str, list[dict[str, Any]]]:
    """30 hospitals (4 names, 3 regions, 10 creation times, some verified, some suspended, doctor
    counts 0-2 or no rollup), their accounts, 12 doctors (some independent) and 24 payments
    (3 amounts, 2 statuses, 8 dates, some never paid)."""
    rng = random.Random(5)
    hospitals, doctors, payments = [], [], []
    tenant_rows, hospital_rows, rollup_rows, account_rows, payment_rows = [], [], [], [], []
    for i in range(30):
        tenant_id, hospital_id = uuid.uuid4(), uuid.uuid4()
        status = "suspended" if i % 7 == 3 else "active"
        doctors_total = None if i % 5 == 0 else i % 3
        hospital = {
            "id": hospital_id,
            "name": NAMES[i % len(NAMES)],
            "email": f"h{rng.randrange(10)}{i:02d}@example.com",
            "state": STATES[i % len(STATES)],
            "country": "Ghana",
            "is_verified": i % 4 == 1,
            "created_at": START + timedelta(minutes=i % 10),
        }
        tenant_rows.append({"id": tenant_id, "schema_name": f"hospital_list{i:02d}", "kind": "hospital"})
        tenant_rows[-1]["status"] = status
        hospital_rows.append({**hospital, "tenant_id": tenant_id, "phone_number": "+233200000000"})
        if doctors_total is not None:
            rollup_rows.append({"tenant_id": tenant_id, "doctors_total": doctors_total})
        account_rows.append(
            {
                "id": uuid.uuid4(),
                "email": f"account-{i:02d}@example.com",
                "password_hash": "x",
                "role": "hospital",
                "name": hospital["name"],
                "tenant_id": tenant_id,
                "hospital_id": hospital_id,
                "created_at": hospital["created_at"],
            }
        )
        hospitals.append({**hospital, "status": status, "doctors": doctors_total or 0})
    with session_scope() as s:
        independent = s.scalar(select(Tenant.id).where(Tenant.kind == "independent"))
        plans = list(s.scalars(select(Plan).order_by(Plan.code)))[:2]
    for i in range(12):
        owner = hospital_rows[i * 2] if i % 3 else None
        doctor = {
            "id": uuid.uuid4(),
            "name": f"Dr {'ABC'[i % 3]}",
            "email": f"d{i % 4}{i:02d}@example.com",
            "specialty": ("Nurse", "Oncologist")[i % 2],
            "hospital_id": owner["id"] if owner else None,
            "is_verified": i % 3 == 2,
            "is_active": True,
            "created_at": START + timedelta(minutes=i % 4),
        }
        account_rows.append(
            {
                **doctor,
                "password_hash": "x",
                "role": "doctor",
                "tenant_id": owner["tenant_id"] if owner else independent,
            }
        )
        doctors.append({**doctor, "hospital_name": owner["name"] if owner else None})
    payers = [a for a in account_rows if a["role"] == "hospital"]
    for i in range(24):
        paid = i % 5 != 4
        when = START + timedelta(days=i % 8)
        payment = {
            "id": uuid.uuid4(),
            "account_id": payers[i % 6]["id"],
            "plan_id": plans[i % 2].id,
            "amount_cents": (9_900, 24_900, 49_900)[i % 3],
            "status": "succeeded" if paid else "failed",
            "paid_at": when if paid else None,
            "created_at": when - timedelta(hours=i % 2),
        }
        payment_rows.append(payment)
        payments.append(
            {
                **payment,
                "user_name": payers[i % 6]["name"],
                "plan": plans[i % 2].name,
                "date": payment["paid_at"] or payment["created_at"],
            }
        )
    with session_scope() as s:
        s.execute(insert(Tenant), tenant_rows)
        s.execute(insert(Hospital), hospital_rows)
        s.execute(insert(TenantRollup), rollup_rows)
        s.execute(insert(Account), account_rows)
        s.execute(insert(Payment), payment_rows)
    return {"hospitals": hospitals, "doctors": doctors, "payments": payments}


def expected(rows: list[dict[str, Any]], key: Callable[[dict[str, Any]], Any], descending: bool) -> list[str]:
    """Ids in the list's order: the key (NULLs last going up, first going down), then id up."""

    def compare(a: dict[str, Any], b: dict[str, Any]) -> int:
        ka, kb = key(a), key(b)
        if ka != kb:
            up = kb is None if ka is None or kb is None else ka < kb  # a before b going up
            return (1 if up else -1) if descending else (-1 if up else 1)
        return -1 if a["id"] < b["id"] else (1 if a["id"] > b["id"] else 0)

    return [str(r["id"]) for r in sorted(rows, key=functools.cmp_to_key(compare))]


def paged(client: Any, token: str, path: str, resource: str, **params: Any) -> tuple[list[str], int]:
    """Every row, a page of PAGE at a time as react-admin asks, each page's Content-Range checked."""
    ids: list[str] = []
    total = None
    while True:
        start = len(ids)
        query = {k: json.dumps(v) for k, v in params.items()}
        query["range"] = json.dumps([start, start + PAGE - 1])
        r = client.get(path, params=query, headers=auth(token))
        assert r.status_code == 200, r.text
        page = [row["id"] for row in r.json()]
        found = int(r.headers["content-range"].rsplit("/", 1)[1])
        assert total is None or found == total
        total = found
        if not page:
            assert r.headers["content-range"] == f"{resource} */{total}"
            return ids, total
        assert r.headers["content-range"] == f"{resource} {start}-{start + len(page) - 1}/{total}"
        ids += page


HOSPITAL_KEYS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "name": lambda h: h["name"],
    "email": lambda h: h["email"],
    "city": lambda h: h["state"],
    "country": lambda h: h["country"],
    "isVerified": lambda h: h["is_verified"],
    "status": lambda h: h["status"],
    "doctorsCount": lambda h: h["doctors"],
    "createdAt": lambda h: h["created_at"],
}


@pytest.mark.parametrize("descending", [False, True], ids=["ASC", "DESC"])
@pytest.mark.parametrize("field", list(HOSPITAL_KEYS))
def test_hospitals_in_every_order(
    client: Any, admin_token: str, rows: dict[str, Any], field: str, descending: bool
) -> None:
    sort = [field, "DESC" if descending else "ASC"]
    ids, total = paged(client, admin_token, "/api/admin/hospitals", "hospitals", sort=sort)
    assert ids == expected(rows["hospitals"], HOSPITAL_KEYS[field], descending)
    assert total == 30


@pytest.mark.parametrize(
    ("filters", "keep"),
    [
        ({"isVerified": False}, lambda h: not h["is_verified"]),
        ({"isVerified": True}, lambda h: h["is_verified"]),
        ({"status": "suspended"}, lambda h: h["status"] == "suspended"),
        ({"q": "volta"}, lambda h: h["state"] == "Volta"),
        ({"q": "accra", "isVerified": True}, lambda h: h["state"] == "Greater Accra" and h["is_verified"]),
    ],
)
@pytest.mark.parametrize("field", ["createdAt", "name", "doctorsCount"])
def test_hospitals_filtered(
    client: Any,
    admin_token: str,
    rows: dict[str, Any],
    filters: dict[str, Any],
    keep: Callable[[dict[str, Any]], bool],
    field: str,
) -> None:
    kept = [h for h in rows["hospitals"] if keep(h)]
    assert 0 < len(kept) < 30  # the filter keeps some and drops some
    ids, total = paged(
        client, admin_token, "/api/admin/hospitals", "hospitals", sort=[field, "DESC"], filter=filters
    )
    assert ids == expected(kept, HOSPITAL_KEYS[field], True)
    assert total == len(kept)


DOCTOR_KEYS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "name": lambda d: d["name"],
    "email": lambda d: d["email"],
    "specialization": lambda d: d["specialty"],
    "hospitalName": lambda d: d["hospital_name"],
    "isVerified": lambda d: d["is_verified"],
    "createdAt": lambda d: d["created_at"],
}


@pytest.mark.parametrize("descending", [False, True], ids=["ASC", "DESC"])
@pytest.mark.parametrize("field", list(DOCTOR_KEYS))
def test_doctors_in_every_order(
    client: Any, admin_token: str, rows: dict[str, Any], field: str, descending: bool
) -> None:
    sort = [field, "DESC" if descending else "ASC"]
    ids, total = paged(client, admin_token, "/api/admin/doctors", "doctors", sort=sort)
    assert ids == expected(rows["doctors"], DOCTOR_KEYS[field], descending)
    assert total == 12  # the hospitals' own accounts are not doctors
    ids, total = paged(
        client, admin_token, "/api/admin/doctors", "doctors", sort=sort, filter={"specialization": "Nurse"}
    )
    nurses = [d for d in rows["doctors"] if d["specialty"] == "Nurse"]
    assert ids == expected(nurses, DOCTOR_KEYS[field], descending) and total == len(nurses)


PAYMENT_KEYS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "userName": lambda p: p["user_name"],
    "plan": lambda p: p["plan"],
    "amount": lambda p: p["amount_cents"],
    "status": lambda p: p["status"],
    "date": lambda p: p["date"],
}


@pytest.mark.parametrize("descending", [False, True], ids=["ASC", "DESC"])
@pytest.mark.parametrize("field", list(PAYMENT_KEYS))
def test_payments_in_every_order(
    client: Any, admin_token: str, rows: dict[str, Any], field: str, descending: bool
) -> None:
    sort = [field, "DESC" if descending else "ASC"]
    ids, total = paged(client, admin_token, "/api/admin/payment-history", "payment-history", sort=sort)
    assert ids == expected(rows["payments"], PAYMENT_KEYS[field], descending)
    assert total == 24
    failed = [p for p in rows["payments"] if p["status"] == "failed"]
    ids, total = paged(
        client,
        admin_token,
        "/api/admin/payment-history",
        "payment-history",
        sort=sort,
        filter={"status": "failed"},
    )
    assert ids == expected(failed, PAYMENT_KEYS[field], descending) and total == len(failed)
    # A search reads the joined names: the other path, the same order.
    plan = rows["payments"][0]["plan"]
    named = [p for p in rows["payments"] if p["plan"] == plan]
    ids, total = paged(
        client, admin_token, "/api/admin/payment-history", "payment-history", sort=sort, filter={"q": plan}
    )
    assert ids == expected(named, PAYMENT_KEYS[field], descending) and total == len(named)


def test_a_page_reads_only_its_own_rows_joins(
    client: Any, admin_token: str, rows: dict[str, Any], monkeypatch: Any
) -> None:
    """The hospitals by name: the page's ids come from the hospitals alone (no join before the
    offset), and the total counts the hospitals alone."""
    from tests.cara.admin_console.test_admin_console_api import record_reads

    sent = record_reads(monkeypatch)
    params = {"sort": json.dumps(["name", "ASC"]), "range": json.dumps([7, 13])}
    r = client.get("/api/admin/hospitals", params=params, headers=auth(admin_token))
    assert r.status_code == 200 and len(r.json()) == 7
    page, count = sent[-1].split("; ")
    inner = page[page.index("(SELECT") : page.index(") page")]
    assert "JOIN" not in inner and "OFFSET 7 LIMIT 7" in inner
    assert count == "SELECT count(*) FROM platform.hospitals h WHERE true"
