"""Removing a doctor as hospitals accumulate, with and without the tenant schemas' foreign keys
into platform.accounts (dropped by tenant revision t0008).

    BENCH_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/postgres \
    BENCH_REDIS_URL=redis://127.0.0.1:6379/11 \
    .venv/bin/python ops/bench/account_removal.py [--sizes 100,300,600] [--keys-up-to 300]
        [--removals 5] [--database cara_fk_bench] [--keep]

For each size the hospital schemas are topped up to that many (foundation.provision_schemas_fast:
copies of what `tenants.provisioning.create_tenant_schema` makes), and one of them gets a hospital
account and `--removals` doctors, each with a profile, a certificate file, three consultations
(transcript lines, a draft, a signed note) and a recording upload with audio. Each doctor is then
removed by `cara.doctors.service.remove_doctor` in a session bound to the hospital's schema, as
the API's DELETE /api/doctors/{id} does, and committed. Printed per size and shape: the time from
the call to the end of the commit (median, min-max), the relation locks the transaction holds
just before its commit (pg_locks of its backend) and the triggers on platform.accounts.

* `after`: the schemas as the code makes them (no key into platform.accounts; remove_doctor
  deletes the doctor's rows in the hospital's schema).
* `before` (sizes up to `--keys-up-to`): the four keys of t0001-t0006 (ON DELETE CASCADE) added
  back to every hospital schema and remove_doctor's own deletion turned off, i.e. the removal as
  it was before t0008: the cascade visits every hospital's tables. The keys are dropped after.
  Refused where the locks it would hold (~15 a hospital, measured) pass half of the server's
  shared lock table (max_locks_per_transaction x max_connections): running that table out fails
  every session on the server, other people's included.

The database (`--database`, default cara_fk_bench) is created, and dropped at the end with its
tenant roles unless `--keep`.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
import uuid
from contextlib import ExitStack
from types import SimpleNamespace
from typing import Any

import psycopg
from _common import (
    REPO,
    _drop_tenant_roles,
    configure_env,
    import_app_modules,
    log,
    plain_conninfo,
    prepare_database,
    servers,
)
from foundation import provision_schemas_fast

LOCKS_PER_HOSPITAL_WITH_KEYS = 15  # measured on cara_mixed_10000 (1,510 locks for 100 hospitals)


def _t0008() -> Any:
    """The revision's module, for its list of keys (table, column, constraint)."""
    path = REPO / "tenants" / "alembic" / "tenant" / "versions" / "t0008_no_keys_into_accounts.py"
    spec = importlib.util.spec_from_file_location("t0008", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


KEYS: tuple[tuple[str, str, str], ...] = _t0008().KEYS


def hospital_schemas() -> list[str]:
    from sqlalchemy import text

    from cara.kit.db import get_engine

    with get_engine().connect() as conn:
        return list(
            conn.execute(
                text("SELECT schema_name FROM platform.tenants WHERE kind = 'hospital' ORDER BY schema_name")
            ).scalars()
        )


def account_triggers() -> int:
    from sqlalchemy import text

    from cara.kit.db import get_engine

    with get_engine().connect() as conn:
        return int(
            conn.execute(
                text("SELECT count(*) FROM pg_trigger WHERE tgrelid = CAST('platform.accounts' AS regclass)")
            ).scalar_one()
        )


def lock_table_slots() -> int:
    from sqlalchemy import text

    from cara.kit.db import get_engine

    with get_engine().connect() as conn:
        per = int(conn.execute(text("SHOW max_locks_per_transaction")).scalar_one())
        connections = int(conn.execute(text("SHOW max_connections")).scalar_one())
        prepared = int(conn.execute(text("SHOW max_prepared_transactions")).scalar_one())
    return per * (connections + prepared)


def set_keys(schemas: list[str], present: bool, *, batch: int = 25) -> float:
    """Add (or drop) the four keys in every schema, `batch` schemas a transaction; seconds taken."""
    from cara.kit.db import get_engine

    started = time.perf_counter()
    for first in range(0, len(schemas), batch):
        statements = []
        for schema in schemas[first : first + batch]:
            for table, column, name in KEYS:
                if present:
                    statements.append(
                        f'ALTER TABLE "{schema}".{table} ADD CONSTRAINT {name} FOREIGN KEY ({column})'
                        " REFERENCES platform.accounts (id) ON DELETE CASCADE"
                    )
                else:
                    statements.append(f'ALTER TABLE "{schema}".{table} DROP CONSTRAINT IF EXISTS {name}')
        with get_engine().begin() as conn:
            conn.exec_driver_sql(";\n".join(statements))
    return time.perf_counter() - started


def seed_hospital(schema: str, doctors: int) -> SimpleNamespace:
    """A hospital account in `schema` and `doctors` doctors with clinical rows; the principal
    (the attributes remove_doctor reads) and the doctors' ids."""
    from sqlalchemy import select

    from cara.kit.db import session_scope
    from cara.models import (
        Account,
        CertificateFile,
        Consultation,
        ConsultationDraft,
        ConsultationNote,
        ConsultationNoteEntry,
        DoctorProfile,
        Hospital,
        RecordingPart,
        RecordingUpload,
        Tenant,
        TranscriptLine,
    )
    from cara.models.base import utcnow

    tag = uuid.uuid4().hex[:8]
    unusable = "!"  # no argon2 hash: nobody signs in as these accounts
    with session_scope(schema) as s:
        tenant_id = s.scalar(select(Tenant.id).where(Tenant.schema_name == schema))
        hospital = s.scalar(select(Hospital).where(Hospital.tenant_id == tenant_id))
        owner = s.scalar(select(Account).where(Account.tenant_id == tenant_id, Account.role == "hospital"))
        if hospital is None or owner is None:  # the first round in this schema
            hospital = Hospital(
                tenant_id=tenant_id, name=f"Bench {tag}", email=f"h-{tag}@example.com", phone_number="0"
            )
            s.add(hospital)
            s.flush()
            owner = Account(
                email=f"h-{tag}@example.com",
                password_hash=unusable,
                role="hospital",
                name=f"Bench {tag}",
                tenant_id=tenant_id,
                hospital_id=hospital.id,
            )
            s.add(owner)
        ids = []
        for n in range(doctors):
            doctor = Account(
                email=f"d-{tag}-{n}@example.com",
                password_hash=unusable,
                role="doctor",
                name=f"Dr {tag} {n}",
                tenant_id=tenant_id,
                hospital_id=hospital.id,
            )
            s.add(doctor)
            s.flush()
            ids.append(doctor.id)
            s.add(DoctorProfile(account_id=doctor.id, specialty="Radiologist", license_number=f"L-{tag}-{n}"))
            s.add(
                CertificateFile(
                    account_id=doctor.id,
                    file_name="c.pdf",
                    content_type="application/pdf",
                    size_bytes=1,
                    sha256="0" * 64,
                    content=b"%",
                )
            )
            for c in range(3):
                consultation = Consultation(doctor_account_id=doctor.id, console="generic", model="m")
                s.add(consultation)
                s.flush()
                s.add_all(
                    TranscriptLine(
                        consultation_id=consultation.id,
                        seq=i,
                        speaker="user",
                        text="line",
                        spoken_at=utcnow(),
                    )
                    for i in range(20)
                )
                s.add(
                    ConsultationDraft(
                        consultation_id=consultation.id,
                        kind="summary",
                        text="d",
                        model="m",
                        prompt_version="v",
                    )
                )
                note = ConsultationNote(consultation_id=consultation.id, text="n")
                s.add(note)
                s.flush()
                s.add(
                    ConsultationNoteEntry(
                        note_id=note.id,
                        number=1,
                        kind="signature",
                        text="n",
                        author_name="Dr",
                        content_sha256="0" * 64,
                    )
                )
                if c == 0:
                    upload = RecordingUpload(
                        doctor_account_id=doctor.id,
                        client_id=uuid.uuid4(),
                        console="generic",
                        consent_basis="doctor_confirmed",
                        recorded_at=utcnow(),
                        mime_type="audio/webm",
                        state="done",
                        consultation_id=consultation.id,
                    )
                    s.add(upload)
                    s.flush()
                    s.add(RecordingPart(upload_id=upload.id, offset=0, data=b"a" * 1000))
    principal = SimpleNamespace(hospital_id=hospital.id, id=owner.id, role="hospital", tenant_schema=schema)
    return SimpleNamespace(principal=principal, doctors=ids)


def remove_all(schema: str, seeded: SimpleNamespace) -> tuple[list[float], list[int]]:
    from sqlalchemy import text

    from cara.doctors import service
    from cara.kit.db import tenant_session

    times, locks = [], []
    for doctor in seeded.doctors:
        session = tenant_session(schema)
        try:
            started = time.perf_counter()
            service.remove_doctor(session, seeded.principal, str(doctor), None)
            held = session.execute(
                text("SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'relation'")
            ).scalar_one()
            session.commit()
            times.append((time.perf_counter() - started) * 1000)
            locks.append(int(held))
        finally:
            session.close()
    return times, locks


def left_behind(schema: str, doctors: list[uuid.UUID]) -> int:
    """Rows of the removed doctors still in the schema (must be 0 in both shapes)."""
    from sqlalchemy import text

    from cara.kit.db import get_engine

    with get_engine().connect() as conn:
        return sum(
            int(
                conn.execute(
                    text(f'SELECT count(*) FROM "{schema}".{table} WHERE {column} = ANY(:ids)'),
                    {"ids": doctors},
                ).scalar_one()
            )
            for table, column, _name in KEYS
        )


def measure(schema: str, shape: str, hospitals: int, removals: int) -> None:
    seeded = seed_hospital(schema, removals)
    triggers = account_triggers()
    times, locks = remove_all(schema, seeded)
    rest = left_behind(schema, seeded.doctors)
    print(
        f"  {hospitals:>6} hospitals  {shape:<6}  remove_doctor + commit:"
        f" median {statistics.median(times):8.1f} ms"
        f" (min {min(times):.1f}, max {max(times):.1f}, n={len(times)})"
        f"  relation locks held: {statistics.median(locks):.0f} (max {max(locks)})"
        f"  triggers on platform.accounts: {triggers}  rows left: {rest}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,300,600")
    parser.add_argument("--keys-up-to", type=int, default=300)
    parser.add_argument("--removals", type=int, default=5)
    parser.add_argument("--database", default="cara_fk_bench")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))

    with ExitStack() as stack, servers(stack, keep_db=args.database) as found:
        try:
            configure_env(found)
            import_app_modules(("cara.doctors.service", "tenants.provisioning"))
            prepare_database()
            from cara.doctors import repository

            slots = lock_table_slots()
            print(f"database {found.dbname}; server lock table ~{slots} slots", flush=True)
            for size in sizes:
                have = len(hospital_schemas())
                if have < size:
                    took = time.perf_counter()
                    provision_schemas_fast(size - have, threads=2, platform_keys=False)
                    log(f"{size - have} hospital schemas made in {time.perf_counter() - took:.0f} s")
                schemas = hospital_schemas()
                target = schemas[0]
                measure(target, "after", len(schemas), args.removals)
                if size > args.keys_up_to:
                    continue
                if LOCKS_PER_HOSPITAL_WITH_KEYS * len(schemas) > slots // 2:
                    print(
                        f"  {len(schemas):>6} hospitals  before  refused: the lock table is too small",
                        flush=True,
                    )
                    continue
                took = set_keys(schemas, True)
                log(f"the 4 keys added to {len(schemas)} schemas in {took:.1f} s")
                real = repository.delete_account_rows
                repository.delete_account_rows = lambda session, account_id: {}  # the cascade does it
                try:
                    measure(target, "before", len(schemas), args.removals)
                finally:
                    repository.delete_account_rows = real
                    took = set_keys(schemas, False)
                    log(f"the keys dropped again in {took:.1f} s")
        finally:
            if not args.keep:
                stack.callback(_drop, found.db_server_url, found.dbname)
    return 0


def _drop(server_url: str, dbname: str) -> None:
    with psycopg.connect(plain_conninfo(server_url), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
    log(f"dropped database {dbname}")
    _drop_tenant_roles(server_url, dbname)


if __name__ == "__main__":
    sys.exit(main())
