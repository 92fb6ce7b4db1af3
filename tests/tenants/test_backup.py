"""Export, restore and erasure of one hospital tenant (`python -m tenants export|restore|delete`).

Everything runs the real programs (pg_dump, pg_restore, psql) against the test database.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from cara.auth.principal import tenant_role
from cara.auth.tokens import decode
from cara.kit.db import get_engine, session_scope, tenant_session
from cara.models import (
    CertificateFile,
    Consultation,
    ConsultationDraft,
    ConsultationNote,
    ConsultationNoteEntry,
    Payment,
    Plan,
    ProviderEvent,
    RecordSettings,
    Subscription,
    TranscriptLine,
)
from cara.models.base import utcnow
from tenants import backup, ownership, pgtools
from tenants.__main__ import main as cli
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup

PROFILE = {
    "licenseNumber": "MDC/RN/0042",
    "experience": 11,
    "workHistory": [
        {
            "hospital": "Tamale Teaching Hospital",
            "position": "Senior Registrar",
            "startDate": "2014-01-06",
            "endDate": "2019-12-31",
            "description": "CT and MRI reporting",
        }
    ],
}


def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = cli(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def new_hospital(client: Any, name: str, *, stripe: bool) -> dict[str, Any]:
    """A hospital with one doctor who saved a profile (so its audit log has entries), a
    consultation with a transcript line, a certificate file, and optionally billing rows."""
    h = signup(client, hospital_payload(name=name))
    claims = decode(h["token"])
    assert claims is not None and claims.tenant_schema
    schema, hospital_id = claims.tenant_schema, claims.account_id
    if stripe:
        suffix = uuid.uuid4().hex[:10]
        with session_scope() as s:
            plan = s.query(Plan).filter_by(code="hospital-gold").one()
            s.execute(
                text("UPDATE platform.accounts SET stripe_customer_id = :c WHERE id = :a"),
                {"c": f"cus_{suffix}", "a": hospital_id},
            )
            sub = Subscription(
                account_id=hospital_id,
                plan_id=plan.id,
                status="active",
                billing_cycle="monthly",
                stripe_customer_id=f"cus_{suffix}",
                stripe_subscription_id=f"sub_{suffix}",
            )
            s.add(sub)
            s.flush()
            s.add(
                Payment(
                    account_id=hospital_id,
                    subscription_id=sub.id,
                    plan_id=plan.id,
                    amount_cents=49900,
                    status="succeeded",
                    stripe_invoice_id=f"in_{suffix}",
                    paid_at=utcnow(),
                )
            )
            # Stripe's webhook payloads name the customer (and carry its email at Stripe).
            s.add(
                ProviderEvent(
                    source="stripe",
                    event_id=f"evt_{suffix}",
                    type="invoice.paid",
                    payload={"data": {"object": {"customer": f"cus_{suffix}", "customer_email": "x@y.z"}}},
                )
            )
    body = doctor_payload(name=f"Dr {name} Staff")
    doctor = add_staff(client, body, h["token"])
    r = client.put("/api/auth/doctor/profile", json=PROFILE, headers=auth(doctor["token"]))
    assert r.status_code == 200, r.text
    doctor_id = uuid.UUID(doctor["user"]["_id"])
    with tenant_session(schema) as s:
        consultation = Consultation(doctor_account_id=doctor_id, console="radiologist", model="double")
        s.add(consultation)
        s.flush()
        s.add(
            TranscriptLine(
                consultation_id=consultation.id,
                seq=0,
                speaker="user",
                text="Left lung nodule",
                spoken_at=utcnow(),
            )
        )
        # The consultation record: a draft, a signed note with an addendum, the record settings.
        s.add(
            ConsultationDraft(
                consultation_id=consultation.id,
                kind="report",
                text="Findings\nLeft lung nodule.",
                sections={"findings": "Left lung nodule.", "impression": ["Nodule."]},
                evidence=[{"sentence": "Left lung nodule.", "lineIds": [1]}],
                model="double",
                prompt_version="record-radiology-v1",
            )
        )
        note = ConsultationNote(consultation_id=consultation.id, text="Left lung nodule, 6 mm.", version=2)
        s.add(note)
        s.flush()
        for number, kind in ((1, "signature"), (2, "addendum")):
            s.add(
                ConsultationNoteEntry(
                    note_id=note.id,
                    number=number,
                    kind=kind,
                    text=f"entry {number}",
                    author_name=body["name"],
                    author_account_id=doctor_id,
                    content_sha256=f"{number}" * 64,
                )
            )
        consultation.state, consultation.signed_at = "signed", utcnow()
        consultation.consent_basis, consultation.consent_at = "doctor_confirmed", utcnow()
        consultation.patient_reference = {"recordNumber": "KB-1"}
        s.add(RecordSettings(owner="hospital", consent_mandatory=False, retention_days=45))
        s.add(
            CertificateFile(
                account_id=doctor_id,
                file_name="fwacs.pdf",
                content_type="application/pdf",
                size_bytes=9,
                sha256="0" * 64,
                content=b"%PDF-1.4\x00",
            )
        )
        s.commit()
    return {
        "schema": schema,
        "hospital": h,
        "doctor": doctor,
        "doctor_body": body,
        "account_ids": [str(hospital_id), str(doctor_id)],
    }


def state(schema: str) -> dict[str, Any]:
    """Every row of the tenant schema and of its platform rows, comparable across a round trip."""
    with get_engine().connect() as conn:
        tables = backup.table_counts(conn, schema)
        rows = {
            t: sorted(
                json.dumps(r, sort_keys=True)
                for r in conn.execute(text(f'SELECT to_jsonb(t) FROM "{schema}"."{t}" t')).scalars()
            )
            for t in tables
        }
        tenant = conn.execute(
            text("SELECT id FROM platform.tenants WHERE schema_name = :s"), {"s": schema}
        ).scalar_one()
        platform = {
            t: list(conn.execute(text(ownership.rows_query(t)), {"tenant": tenant}).scalars())
            for t in ownership.INSERT_ORDER
        }
    return {"tables": rows, "platform": platform}


def role_exists(schema: str) -> bool:
    with get_engine().connect() as conn:
        found = conn.execute(
            text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": tenant_role(schema)}
        ).first()
    return found is not None


def schema_exists(schema: str) -> bool:
    with get_engine().connect() as conn:
        return backup.schema_exists(conn, schema)


def login(client: Any, body: dict[str, Any]) -> Any:
    return client.post(
        "/api/auth/login", json={"email": body["email"], "password": body["password"], "role": "doctor"}
    )


@pytest.fixture
def exported(client: Any, capsys: Any, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """Hospital A (with billing) exported to a file; hospital B alongside it."""
    a = new_hospital(client, "Hospital A", stripe=True)
    b = new_hospital(client, "Hospital B", stripe=False)
    archive = tmp_path / "hospital-a.dump"
    started = time.perf_counter()
    status, out, err = run(capsys, "export", a["schema"], "--out", str(archive))
    a["export_seconds"] = time.perf_counter() - started
    assert status == 0, err
    a.update(archive=archive, export_output=out)
    yield {"a": a, "b": b}


class TestRoundTrip:
    def test_export_delete_restore(self, client: Any, capsys: Any, exported: dict[str, Any]) -> None:
        a, b = exported["a"], exported["b"]
        schema, archive = a["schema"], a["archive"]
        before_a, before_b = state(schema), state(b["schema"])

        # The export: an owner-only archive and sidecar, with counts printed.
        sidecar = backup.sidecar_path(archive)
        assert archive.stat().st_mode & 0o777 == 0o600 and sidecar.stat().st_mode & 0o777 == 0o600
        meta = json.loads(sidecar.read_text())
        assert meta["schema"] == schema and meta["tables"]["doctors"] == 1
        assert {t: len(rows) for t, rows in meta["platform"].items()} == {
            "tenants": 1,
            "hospitals": 1,
            "accounts": 2,
            "subscriptions": 1,
            "payments": 1,
        }
        # No key leaves the schema (tenant revision t0008): accounts are referred to by id only.
        assert meta["foreign_keys"] == []
        # Recordings waiting to be processed move with the tenant (their audio until it is processed).
        assert {"recording_uploads", "recording_parts"} <= set(meta["tables"])
        assert f"exported {schema}" in a["export_output"] and "audit_events" in a["export_output"]
        assert "accounts 2" in a["export_output"]

        # Erasure: schema, platform rows and role gone, a Stripe reminder, an audit entry without names.
        status, out, err = run(capsys, "delete", schema, "--confirm", schema)
        assert status == 0, err
        assert "accounts 2" in out and "payments 1" in out and "subscriptions 1" in out
        assert "provider_events 1" in out
        customer = (
            meta["platform"]["accounts"][0]["stripe_customer_id"]
            or meta["platform"]["accounts"][1]["stripe_customer_id"]
        )
        assert "REMINDER" in out and customer in out
        assert not schema_exists(schema) and not role_exists(schema)
        with get_engine().connect() as conn:
            for table in ownership.INSERT_ORDER:
                left = conn.execute(
                    text(f"SELECT count(*) FROM platform.{table} WHERE id = ANY(CAST(:ids AS uuid[]))"),
                    {"ids": [r["id"] for r in meta["platform"][table]]},
                ).scalar_one()
                assert left == 0, table
            erased = conn.execute(
                text("SELECT to_jsonb(e) FROM platform.audit_events e WHERE action = 'tenant.erased'")
            ).scalar_one()
            trail = json.dumps(
                list(conn.execute(text("SELECT to_jsonb(e) FROM platform.audit_events e")).scalars())
            )
        assert erased["tenant_schema"] == schema and erased["detail"]["deleted"]["accounts"] == 2
        personal = [a["doctor_body"]["email"], a["doctor_body"]["name"], a["hospital"]["user"]["email"]]
        personal += [a["hospital"]["user"]["name"], customer]
        assert not [p for p in personal if p.lower() in trail.lower()]
        assert login(client, a["doctor_body"]).status_code == 401

        # The other hospital did not notice.
        assert state(b["schema"]) == before_b and role_exists(b["schema"])
        assert login(client, b["doctor_body"]).status_code == 200

        # Restore: identical rows, the role is back, the doctor signs in and keeps working.
        started = time.perf_counter()
        status, out, err = run(capsys, "restore", str(archive))
        restore_seconds = time.perf_counter() - started
        assert status == 0, err
        assert f"restored {schema}" in out and "platform rows restored" in out
        assert state(schema) == before_a
        assert role_exists(schema)
        with get_engine().connect() as conn:
            assert backup._has_audit_guard(conn, schema)
        r = login(client, a["doctor_body"])
        assert r.status_code == 200, r.text
        token = r.json()["token"]
        me = client.get("/api/auth/user", headers=auth(token)).json()
        assert me["licenseNumber"] == "MDC/RN/0042" and me["workHistory"][0]["position"] == "Senior Registrar"
        # New audit rows continue the restored sequence (the save runs under the tenant's role).
        r = client.put("/api/auth/doctor/profile", json={"experience": 12}, headers=auth(token))
        assert r.status_code == 200, r.text
        with get_engine().connect() as conn:
            ids = list(conn.execute(text(f'SELECT id FROM "{schema}".audit_events ORDER BY id')).scalars())
        assert len(ids) == len(before_a["tables"]["audit_events"]) + 1 and ids[-1] > ids[-2]
        print(f"\nexport {a['export_seconds']:.2f}s, restore {restore_seconds:.2f}s", end="")


class TestExportFromBeforeT0008:
    def test_its_keys_into_accounts_come_back_and_the_migration_drops_them(
        self, client: Any, capsys: Any, tmp_path: Path
    ) -> None:
        from tenants import migrate
        from tests.tenants.test_account_keys import KEYS, PREVIOUS, _downgrade, _keys_into_platform

        a = new_hospital(client, "Before Keys Hospital", stripe=False)
        schema = a["schema"]
        with get_engine().begin() as conn:
            _downgrade(conn, schema, PREVIOUS)  # the shape an export of that time has
        archive = tmp_path / "old.dump"
        assert run(capsys, "export", schema, "--out", str(archive))[0] == 0
        meta = json.loads(backup.sidecar_path(archive).read_text())
        assert {(fk["table"], fk["name"]) for fk in meta["foreign_keys"]} == KEYS
        assert run(capsys, "delete", schema, "--confirm", schema)[0] == 0

        status, _, err = run(capsys, "restore", str(archive))
        assert status == 0, err
        with get_engine().begin() as conn:
            # Added after the platform rows: they validate against the restored accounts.
            assert _keys_into_platform(conn, schema) == KEYS
            migrate.upgrade_tenant_schema(conn, schema)
            assert _keys_into_platform(conn, schema) == set()


class TestRefusals:
    def test_restore_refuses_an_existing_schema(self, capsys: Any, exported: dict[str, Any]) -> None:
        a = exported["a"]
        before = state(a["schema"])
        status, _, err = run(capsys, "restore", str(a["archive"]))
        assert status == 1
        assert f"schema {a['schema']} already exists" in err
        assert state(a["schema"]) == before

    def test_restore_refuses_an_email_taken_meanwhile(
        self, client: Any, capsys: Any, exported: dict[str, Any]
    ) -> None:
        a = exported["a"]
        assert run(capsys, "delete", a["schema"], "--confirm", a["schema"])[0] == 0
        signup(client, doctor_payload(email=a["doctor_body"]["email"]))
        status, _, err = run(capsys, "restore", str(a["archive"]))
        assert status == 1
        assert "already exist" in err and a["doctor_body"]["email"] in err
        assert not schema_exists(a["schema"])
        with get_engine().connect() as conn:
            registered = conn.execute(
                text("SELECT count(*) FROM platform.tenants WHERE schema_name = :s"), {"s": a["schema"]}
            ).scalar_one()
        assert registered == 0

    def test_restore_refuses_an_archive_that_is_not_the_sidecars(
        self, capsys: Any, exported: dict[str, Any], tmp_path: Path
    ) -> None:
        a = exported["a"]
        other = tmp_path / "other.dump"
        other.write_bytes(a["archive"].read_bytes() + b"\0")
        backup.sidecar_path(other).write_text(backup.sidecar_path(a["archive"]).read_text())
        status, _, err = run(capsys, "restore", str(other))
        assert status == 1 and "does not match its sidecar" in err

    def test_export_refuses_unknown_and_malformed_schemas(self, capsys: Any, tmp_path: Path) -> None:
        status, _, err = run(capsys, "export", "hospital_0123456789ab", "--out", str(tmp_path / "x.dump"))
        assert status == 1 and "no tenant hospital_0123456789ab" in err
        status, _, err = run(capsys, "export", "platform", "--out", str(tmp_path / "x.dump"))
        assert status == 2 and "not a tenant schema name" in err
        assert list(tmp_path.iterdir()) == []

    def test_export_never_overwrites(self, capsys: Any, exported: dict[str, Any]) -> None:
        a = exported["a"]
        status, _, err = run(capsys, "export", a["schema"], "--out", str(a["archive"]))
        assert status == 1 and "never overwritten" in err

    def test_delete_refuses_the_independent_tenant(self, client: Any, capsys: Any, tmp_path: Path) -> None:
        doctor = signup(client, doctor_payload())
        status, _, err = run(capsys, "delete", "independent", "--confirm", "independent")
        assert status == 2 and "shared by every independent doctor" in err
        assert schema_exists("independent")
        assert client.get("/api/auth/user", headers=auth(doctor["token"])).status_code == 200
        # It can be exported, but only ever comes back as a copy: its schema always exists.
        archive = tmp_path / "independent.dump"
        assert run(capsys, "export", "independent", "--out", str(archive))[0] == 0
        status, _, err = run(capsys, "restore", str(archive))
        assert status == 1 and "schema independent already exists" in err

    def test_delete_needs_the_name_twice(self, capsys: Any, exported: dict[str, Any]) -> None:
        schema = exported["a"]["schema"]
        status, _, err = run(capsys, "delete", schema, "--confirm", exported["b"]["schema"])
        assert status == 2 and "--confirm must repeat" in err
        assert schema_exists(schema)


class TestNothingLeftBehind:
    """A restore that fails at any step leaves neither the schema nor platform rows."""

    def erased(self, capsys: Any, exported: dict[str, Any]) -> dict[str, Any]:
        a: dict[str, Any] = exported["a"]
        assert run(capsys, "delete", a["schema"], "--confirm", a["schema"])[0] == 0
        return a

    def assert_gone(self, a: dict[str, Any]) -> None:
        assert not schema_exists(a["schema"])
        with get_engine().connect() as conn:
            left = conn.execute(
                text("SELECT count(*) FROM platform.accounts WHERE id = ANY(CAST(:ids AS uuid[]))"),
                {"ids": a["account_ids"]},
            ).scalar_one()
        assert left == 0

    def test_an_error_while_loading_the_archive(
        self, capsys: Any, exported: dict[str, Any], monkeypatch: Any
    ) -> None:
        a = self.erased(capsys, exported)
        real = backup.copy_script

        def failing(src: Any, dst: Any, **kwargs: Any) -> None:
            real(src, dst, **kwargs)
            dst.write(b"SELECT no_such_function();\n")

        monkeypatch.setattr(backup, "copy_script", failing)
        status, _, err = run(capsys, "restore", str(a["archive"]))
        assert status == 1 and "no_such_function" in err
        self.assert_gone(a)

    def test_an_error_after_the_platform_rows(
        self, capsys: Any, exported: dict[str, Any], monkeypatch: Any
    ) -> None:
        a = self.erased(capsys, exported)

        def refuse(*args: Any) -> str:
            raise RuntimeError("role service unavailable")

        monkeypatch.setattr(backup.roles, "ensure_tenant_role", refuse)
        with pytest.raises(RuntimeError, match="role service unavailable"):
            cli(["restore", str(a["archive"])])
        self.assert_gone(a)
        monkeypatch.undo()
        assert run(capsys, "restore", str(a["archive"]))[0] == 0


class TestInspectionCopy:
    def test_restore_as_another_name_and_delete_the_copy(self, capsys: Any, exported: dict[str, Any]) -> None:
        a = exported["a"]
        copy = "hospital_c0ffee000001"
        status, out, err = run(capsys, "restore", str(a["archive"]), "--as", copy)
        assert status == 0, err
        assert "inspection copy" in out
        assert state_tables(copy) == state(a["schema"])["tables"]
        with get_engine().connect() as conn:
            registered = conn.execute(
                text("SELECT count(*) FROM platform.tenants WHERE schema_name = :s"), {"s": copy}
            ).scalar_one()
            keys = conn.execute(
                text(
                    "SELECT count(*) FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid"
                    " JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = :s AND c.contype = 'f'"
                ),
                {"s": copy},
            ).scalar_one()
            assert backup._has_audit_guard(conn, copy)
        # Only keys inside the copy: transcript lines, drafts and notes -> consultations, entries -> notes,
        # recording uploads -> consultations, recording parts -> uploads, imaging studies -> consultations,
        # plan reviews -> consultations, plan review files -> reviews.
        assert registered == 0 and keys == 9
        assert not role_exists(copy)
        # The live tenant's role cannot read the copy.
        with tenant_session(a["schema"]) as s:
            s.execute(text(f'SET LOCAL ROLE "{tenant_role(a["schema"])}"'))
            with pytest.raises(Exception, match="permission denied"):
                s.execute(text(f'SELECT count(*) FROM "{copy}".doctors'))

        status, out, err = run(capsys, "delete", copy, "--confirm", copy)
        assert status == 0, err
        assert "not registered" in out and not schema_exists(copy)
        assert schema_exists(a["schema"])


def state_tables(schema: str) -> dict[str, list[str]]:
    with get_engine().connect() as conn:
        return {
            t: sorted(
                json.dumps(r, sort_keys=True)
                for r in conn.execute(text(f'SELECT to_jsonb(t) FROM "{schema}"."{t}" t')).scalars()
            )
            for t in backup.table_counts(conn, schema)
        }


class TestPieces:
    def test_script_copy_renames_statements_not_data(self) -> None:
        script = (
            b"SET transaction_timeout = 0;\n"
            b"CREATE SCHEMA hospital_aaaaaaaaaaaa;\n"
            b"CREATE TABLE hospital_aaaaaaaaaaaa.doctors (id uuid);\n"
            b"COPY hospital_aaaaaaaaaaaa.doctors (id, note) FROM stdin;\n"
            b"1\tmoved from hospital_aaaaaaaaaaaa\n"
            b"\\.\n"
            b"SELECT pg_catalog.setval('hospital_aaaaaaaaaaaa.seq', 2, true);\n"
            b"-- hospital_aaaaaaaaaaaab is another name\n"
        )
        out = BytesIO()
        backup.copy_script(
            BytesIO(script),
            out,
            rename=("hospital_aaaaaaaaaaaa", "hospital_bbbbbbbbbbbb"),
            drop=[b"SET transaction_timeout = 0;\n"],
        )
        assert out.getvalue().decode().splitlines() == [
            "CREATE SCHEMA hospital_bbbbbbbbbbbb;",
            "CREATE TABLE hospital_bbbbbbbbbbbb.doctors (id uuid);",
            "COPY hospital_bbbbbbbbbbbb.doctors (id, note) FROM stdin;",
            "1\tmoved from hospital_aaaaaaaaaaaa",
            "\\.",
            "SELECT pg_catalog.setval('hospital_bbbbbbbbbbbb.seq', 2, true);",
            "-- hospital_aaaaaaaaaaaab is another name",
        ]

    def test_the_password_reaches_programs_only_through_the_environment(self) -> None:
        url = make_url("postgresql+psycopg://cara:s3cret@db.internal:6543/cara_prod?sslmode=require")
        env = pgtools.libpq_environment(url)
        assert (env["PGHOST"], env["PGPORT"], env["PGUSER"], env["PGDATABASE"]) == (
            "db.internal",
            "6543",
            "cara",
            "cara_prod",
        )
        assert env["PGPASSWORD"] == "s3cret" and env["PGSSLMODE"] == "require"

    def test_tools_older_than_the_server_are_skipped(self, tmp_path: Path, monkeypatch: Any) -> None:
        for program in pgtools.PROGRAMS:
            script = tmp_path / program
            script.write_text(f"#!/bin/sh\necho '{program} (PostgreSQL) 9.6.24'\n")
            script.chmod(0o755)
        monkeypatch.setenv("PG_BIN", str(tmp_path))
        chosen = pgtools.find_toolset(15)
        assert chosen.origin != "PG_BIN" and chosen.major >= 15
        with pytest.raises(pgtools.ToolsNotFound, match=r"PG_BIN .* 9\.6\.24 is older than the server"):
            pgtools.find_toolset(99)
