"""One hospital's export, erasure and restore (`python -m tenants export|delete|restore`) at a realistic size.

    .venv/bin/python ops/bench/tenant_backup.py [--doctors 50] [--consultations 40] [--lines 60] [--quick]

Prints figures only: wall time of export, delete and restore, the archive and sidecar sizes next
to the tenant's size in the database; fails (exit status 1) if the restored tenant differs from
the exported one or if the other hospital changed.

Setup: two hospital tenants through cara.registration.service (as in doctor_list.py). The measured one
gets `--doctors` hospital-created doctors, each with a filled-in profile (education,
certifications, work history) and `--consultations` consultations of `--lines` transcript lines
(~200 characters of clinical wording each, every line different), plus `--certificates`
certificate files of `--certificate-kb` kB (a PDF header and incompressible bytes, as real PDFs
mostly are) referenced from the profiles, with the audit entries the application writes for
them. The rows go straight into the tenant's tables with COPY (the API would take far longer to
write them and is not what is measured); then VACUUM ANALYZE, so the export reads settled
pages as on a live database rather than paying for hint bits of freshly loaded rows. The
second hospital is small (3 doctors, 6 consultations, 1 certificate) and must come out
unchanged.

Measured, one after the other, with the library calls behind the CLI (tenants.backup,
tenants.erasure): export to a temporary directory, erasure of the tenant, restore under its own
name. Each phase also prints the CPU seconds of this process, of the client programs (pg_dump,
pg_restore, psql) and of the whole machine over its wall time, so a run slowed by other work on
the machine shows it.

Checks after the restore: row count of every table equals the count taken before the export; a
content digest of every table (an order-independent sum of per-row hashes) and the tenant's
platform rows are equal too; the other hospital's counts, digests and platform rows are as they
were; the hospital's token, issued before the export, lists its doctors through the API again.

Servers: BENCH_DATABASE_URL / BENCH_REDIS_URL as for foundation.py (the Redis db is flushed);
a `cara_bench_<random>` database is created and dropped at the end, even on error.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import resource
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import psycopg
from _common import (
    ApiServer,
    Summary,
    create_doctors,
    create_hospitals,
    log,
    machine_busy_seconds,
    plain_conninfo,
    run_bench,
)
from psycopg.types.json import Jsonb

SMALL_DOCTORS, SMALL_CONSULTATIONS, SMALL_LINES, SMALL_CERTIFICATES = 3, 2, 10, 1


@dataclass(frozen=True)
class Plan:
    doctors: int
    consultations: int  # per doctor
    lines: int  # per consultation
    certificates: int
    certificate_kb: int
    seed: int

    def __str__(self) -> str:
        return (
            f"one hospital with {self.doctors} doctors x {self.consultations} consultations x "
            f"{self.lines} transcript lines, {self.certificates} certificate files of "
            f"{self.certificate_kb} kB (+ a small hospital that must stay unchanged)"
        )


def parse_args(argv: Sequence[str] | None) -> Plan:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--doctors", type=int, default=50)
    parser.add_argument("--consultations", type=int, default=40, help="per doctor")
    parser.add_argument("--lines", type=int, default=60, help="transcript lines per consultation")
    parser.add_argument("--certificates", type=int, default=20, help="certificate files in the hospital")
    parser.add_argument("--certificate-kb", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="10 doctors x 10 consultations x 20 lines")
    args = parser.parse_args(argv)
    if min(args.doctors, args.consultations, args.lines) < 1 or args.certificate_kb < 1:
        parser.error("--doctors, --consultations, --lines and --certificate-kb must be at least 1")
    if args.quick:
        return Plan(10, 10, 20, 5, args.certificate_kb, args.seed)
    return Plan(
        args.doctors, args.consultations, args.lines, args.certificates, args.certificate_kb, args.seed
    )


# ---------------------------------------------------------------- the tenant's data

# Wording of radiology and cardiology consultations; lines are random draws from it, so no two
# are equal (repeated lines would let the archive's compression look better than it is).
_WORDING = (
    "patient presents with left right upper lower lobe nodule opacity consolidation effusion pleural "
    "mediastinal lymph node enlarged measuring millimetres centimetres compared prior study stable "
    "interval increase decrease no evidence of pneumothorax cardiomegaly ejection fraction preserved "
    "reduced wall motion abnormality septal hypokinesia apical mitral regurgitation mild moderate "
    "severe aortic stenosis gradient peak velocity recommend follow-up CT MRI ultrasound contrast "
    "enhanced arterial venous phase lesion hypodense hyperdense liver kidney spleen unremarkable "
    "history hypertension diabetes smoker chest pain shortness of breath on exertion since weeks "
    "ECG sinus rhythm rate bpm ST elevation depression troponin negative positive blood pressure "
    "mmHg oxygen saturation room air fracture cortex displaced alignment maintained soft tissue "
    "swelling the and with without in on at of for is was were are"
)
WORDS = tuple(_WORDING.split())
CONSOLES = ("radiologist", "cardiologist", "radiotherapist", "general-practitioner", "generic")
MODEL = "gemini-3.1-flash-live-preview"
LINE_CHARS = (140, 260)  # uniform: ~200 characters on average
# Every profile has one certification without a file, as most do; the files get their own entries.
UNFILED_CERTIFICATION = {
    "name": "Basic Life Support",
    "issuer": "Ghana Red Cross",
    "date": "2023-09-12",
    "fileId": None,
}


def transcript_text(rng: random.Random) -> str:
    target = rng.randint(*LINE_CHARS)
    return " ".join(rng.choices(WORDS, k=target // 6 + 1))[:target].rstrip()


def random_uuid(rng: random.Random) -> uuid.UUID:
    return uuid.UUID(int=rng.getrandbits(128), version=4)


@dataclass
class Filled:
    consultations: int = 0
    lines: int = 0
    text_bytes: int = 0
    certificates: int = 0
    certificate_bytes: int = 0
    seconds: float = 0.0


def fill_tenant(
    schema: str,
    doctor_ids: Sequence[uuid.UUID],
    *,
    consultations: int,
    lines: int,
    certificates: int,
    certificate_bytes: int,
    seed: int,
) -> Filled:
    """Profiles, certificate files, audit entries, consultations and transcripts for `schema`'s
    doctors, written in one transaction straight into the tenant's tables."""
    rng = random.Random(seed)
    filled = Filled()
    started = time.perf_counter()
    now = datetime.now(UTC)
    files: dict[uuid.UUID, list[dict[str, Any]]] = {d: [] for d in doctor_ids}
    with psycopg.connect(plain_conninfo(os.environ["DATABASE_URL"])) as conn, conn.cursor() as cur:
        with cur.copy(
            f'COPY "{schema}".certificate_files'
            " (id, account_id, file_name, content_type, size_bytes, sha256, content, created_at)"
            " FROM STDIN"
        ) as copy:
            for k in range(certificates):
                owner = doctor_ids[k % len(doctor_ids)]
                content = b"%PDF-1.7\n" + rng.randbytes(max(certificate_bytes - 9, 1))
                file_id = random_uuid(rng)
                uploaded = now - timedelta(days=rng.uniform(30, 700))
                name = f"certificate-{k + 1}.pdf"
                copy.write_row(
                    (
                        file_id,
                        owner,
                        name,
                        "application/pdf",
                        len(content),
                        hashlib.sha256(content).hexdigest(),
                        content,
                        uploaded,
                    )
                )
                files[owner].append({"id": file_id, "size": len(content), "at": uploaded})
                filled.certificates += 1
                filled.certificate_bytes += len(content)

        profiles = []
        audit = []
        for n, doctor in enumerate(doctor_ids):
            certs: list[dict[str, Any]] = [dict(UNFILED_CERTIFICATION)]
            for f in files[doctor]:
                certs.append(
                    {
                        "name": "FWACS Radiology",
                        "issuer": "West African College of Surgeons",
                        "date": f["at"].date().isoformat(),
                        "fileId": str(f["id"]),
                    }
                )
                audit.append(
                    (
                        doctor,
                        "certificate.uploaded",
                        "certificate_file",
                        str(f["id"]),
                        Jsonb({"size": f["size"], "contentType": "application/pdf"}),
                        f["at"],
                    )
                )
            education = [
                {
                    "degree": "MBChB",
                    "institution": "University of Ghana Medical School",
                    "year": str(2000 + n % 20),
                }
            ]
            work = [
                {
                    "hospital": "Korle Bu Teaching Hospital",
                    "position": "Senior Registrar",
                    "startDate": "2014-01-06",
                    "endDate": "2019-12-31",
                    "description": "CT and MRI reporting, on-call rota",
                }
            ]
            profiles.append((Jsonb(education), Jsonb(certs), Jsonb(work), doctor))
            audit.append(
                (
                    doctor,
                    "profile.updated",
                    "doctor",
                    str(doctor),
                    Jsonb({"fields": ["education", "certifications", "workHistory"]}),
                    now - timedelta(days=rng.uniform(1, 30)),
                )
            )
        cur.executemany(
            f'UPDATE "{schema}".doctors SET education = %s, certifications = %s, work_history = %s'
            " WHERE account_id = %s",
            profiles,
        )
        cur.executemany(
            f'INSERT INTO "{schema}".audit_events'
            " (actor_account_id, action, target_type, target_id, detail, created_at)"
            " VALUES (%s, %s, %s, %s, %s, %s)",
            audit,
        )

        sessions = []
        with cur.copy(
            f'COPY "{schema}".consultations'
            " (id, doctor_account_id, console, model, started_at, ended_at, reconnects) FROM STDIN"
        ) as copy:
            for doctor in doctor_ids:
                for _ in range(consultations):
                    cid = random_uuid(rng)
                    begun = now - timedelta(days=rng.uniform(0, 365))
                    # ~10 s per line: the end time follows from the transcript's length.
                    ended = begun + timedelta(seconds=lines * 10 + rng.uniform(0, 60))
                    console, reconnects = rng.choice(CONSOLES), rng.randint(0, 1)
                    copy.write_row((cid, doctor, console, MODEL, begun, ended, reconnects))
                    sessions.append((cid, begun))
        filled.consultations = len(sessions)

        with cur.copy(
            f'COPY "{schema}".transcript_lines'
            " (consultation_id, seq, speaker, text, spoken_at, created_at) FROM STDIN"
        ) as copy:
            for cid, begun in sessions:
                at = begun
                for seq in range(lines):
                    # The doctor and the assistant take turns; now and then a tool result.
                    speaker = "tool" if seq % 15 == 14 else ("user", "assistant")[seq % 2]
                    line = transcript_text(rng)
                    at += timedelta(seconds=rng.uniform(3, 17))
                    copy.write_row((cid, seq, speaker, line, at, at + timedelta(seconds=1)))
                    filled.lines += 1
                    filled.text_bytes += len(line)
        conn.commit()
    filled.seconds = time.perf_counter() - started
    return filled


def vacuum(schema: str) -> None:
    with psycopg.connect(plain_conninfo(os.environ["DATABASE_URL"]), autocommit=True) as conn:
        names = conn.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = %s AND c.relkind = 'r' ORDER BY 1",
            (schema,),
        ).fetchall()
        for (name,) in names:
            conn.execute(f'VACUUM (ANALYZE) "{schema}"."{name}"')


# ---------------------------------------------------------------- what is compared


@dataclass(frozen=True)
class TenantState:
    counts: dict[str, int]
    digests: dict[str, int]
    platform: dict[str, list[Any]]
    sizes: dict[str, int] = field(compare=False)  # bytes per table with indexes and TOAST

    def differences(self, other: TenantState) -> list[str]:
        """What changed from this state (before) to `other` (after)."""
        out = []
        for table in sorted(set(self.counts) | set(other.counts)):
            before, after = self.counts.get(table), other.counts.get(table)
            if before != after:
                out.append(f"{table}: {before} rows before, {after} after")
            elif self.digests.get(table) != other.digests.get(table):
                out.append(f"{table}: same row count ({before}) but different content")
        for table in sorted(set(self.platform) | set(other.platform)):
            if self.platform.get(table) != other.platform.get(table):
                out.append(
                    f"platform.{table}: {len(self.platform.get(table, []))} rows before, "
                    f"{len(other.platform.get(table, []))} after, or their content differs"
                )
        return out


def tenant_state(schema: str) -> TenantState:
    """Row counts, content digests and sizes of `schema`'s tables, and its platform rows."""
    from sqlalchemy import text

    from cara.kit.db import get_engine
    from tenants import backup, ownership

    with get_engine().connect() as conn:
        counts = backup.table_counts(conn, schema)
        # A sum of per-row hashes: independent of row order, so a restore that loads rows in
        # another physical order still compares equal, and no sort of the whole table is needed.
        digests = {
            table: int(
                conn.execute(
                    text(
                        "SELECT coalesce(sum(('x' || substr(md5(t::text), 1, 15))::bit(60)::bigint), 0)"
                        f' FROM "{schema}"."{table}" t'
                    )
                ).scalar_one()
            )
            for table in counts
        }
        sizes = {
            table: int(
                conn.execute(
                    text("SELECT pg_total_relation_size(CAST(:name AS regclass))"),
                    {"name": f'"{schema}"."{table}"'},
                ).scalar_one()
            )
            for table in counts
        }
        tenant = conn.execute(
            text("SELECT id FROM platform.tenants WHERE schema_name = :s"), {"s": schema}
        ).scalar_one()
        platform = {
            table: list(conn.execute(text(ownership.rows_query(table)), {"tenant": tenant}).scalars())
            for table in ownership.INSERT_ORDER
        }
    return TenantState(counts, digests, platform, sizes)


def listed_doctors(api: ApiServer, token: str) -> int:
    """How many doctors the hospital's own list shows through the API (the tenant is usable)."""
    headers = {"Authorization": f"Bearer {token}"}
    me = httpx.get(f"{api.base_url}/api/auth/user", headers=headers, timeout=30)
    if me.status_code != 200:
        raise RuntimeError(f"GET /api/auth/user: {me.status_code} {me.text[:300]}")
    params = {"hospitalId": me.json()["hospitalId"], "isHospitalCreated": "true"}
    answer = httpx.get(f"{api.base_url}/api/doctors", params=params, headers=headers, timeout=30)
    if answer.status_code != 200:
        raise RuntimeError(f"GET /api/doctors: {answer.status_code} {answer.text[:300]}")
    return len(answer.json())


# ---------------------------------------------------------------- timing


@dataclass
class Phase:
    name: str
    wall: float = 0.0
    own_cpu: float = 0.0  # this process (the restore's script filter runs here)
    tools_cpu: float = 0.0  # pg_dump, pg_restore, psql
    machine_cpu: float = 0.0  # every process on the machine, PostgreSQL included

    def line(self) -> str:
        rest = max(0.0, self.machine_cpu - self.own_cpu - self.tools_cpu)
        return (
            f"{self.name}: {self.wall:.2f} s wall | cpu: this process {self.own_cpu:.2f} s, "
            f"client programs {self.tools_cpu:.2f} s, PostgreSQL and rest of machine {rest:.2f} s "
            f"({self.machine_cpu / self.wall if self.wall else 0:.2f} of {os.cpu_count()} cores busy)"
        )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@contextmanager
def timed(name: str) -> Iterator[Phase]:
    phase = Phase(name)
    machine, own, tools = machine_busy_seconds(), time.process_time(), _children_cpu()
    started = time.perf_counter()
    yield phase
    phase.wall = time.perf_counter() - started
    phase.own_cpu = time.process_time() - own
    phase.tools_cpu = _children_cpu() - tools
    phase.machine_cpu = machine_busy_seconds() - machine
    print(phase.line(), flush=True)


def mb(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


# ---------------------------------------------------------------- the run


def main(argv: Sequence[str] | None = None) -> int:
    plan = parse_args(argv)
    summary = Summary()

    def body(api: ApiServer) -> None:
        from tenants import backup, erasure

        log("creating 2 hospitals and their doctors")
        big, small = create_hospitals(2)
        doctors = create_doctors([big] * plan.doctors + [small] * SMALL_DOCTORS)
        big_doctors = [d.account_id for d in doctors[: plan.doctors]]
        small_doctors = [d.account_id for d in doctors[plan.doctors :]]

        log(f"writing {plan.doctors * plan.consultations * plan.lines:,} transcript lines into {big.schema}")
        filled = fill_tenant(
            big.schema,
            big_doctors,
            consultations=plan.consultations,
            lines=plan.lines,
            certificates=plan.certificates,
            certificate_bytes=plan.certificate_kb * 1000,
            seed=plan.seed,
        )
        fill_tenant(
            small.schema,
            small_doctors,
            consultations=SMALL_CONSULTATIONS,
            lines=SMALL_LINES,
            certificates=SMALL_CERTIFICATES,
            certificate_bytes=plan.certificate_kb * 1000,
            seed=plan.seed + 1,
        )
        vacuum(big.schema)
        vacuum(small.schema)
        log(
            f"loaded {filled.consultations:,} consultations, {filled.lines:,} lines "
            f"({mb(filled.text_bytes)} of text), {filled.certificates} certificate files "
            f"({mb(filled.certificate_bytes)}) in {filled.seconds:.1f} s"
        )
        before_api = listed_doctors(api, big.token)
        if before_api != plan.doctors:
            raise RuntimeError(f"the hospital lists {before_api} doctors, {plan.doctors} expected")

        before, small_before = tenant_state(big.schema), tenant_state(small.schema)
        data_bytes = sum(before.sizes.values())
        rows = sum(before.counts.values())
        width = max(len(t) for t in before.counts)
        print(f"\n{big.schema} before the export:")
        for table, n in before.counts.items():
            print(f"  {table:<{width}}  {n:>9,} rows  {mb(before.sizes[table]):>9}")
        print(f"  {'total':<{width}}  {rows:>9,} rows  {mb(data_bytes):>9}\n", flush=True)

        with tempfile.TemporaryDirectory(prefix="cara-bench-backup-") as tmp:
            archive = Path(tmp) / f"{big.schema}.dump"
            with timed("export") as exported:
                report = backup.export_tenant(big.schema, archive)
            archive_bytes = archive.stat().st_size
            sidecar_bytes = report.sidecar.stat().st_size
            print(f"  {report.lines()[0]}\n  sidecar: {sidecar_bytes:,} bytes", flush=True)

            with timed("delete") as deleted:
                erased = erasure.erase_tenant(big.schema)
            print(f"  {erased.lines()[0]}", flush=True)

            with timed("restore") as restored:
                back = backup.restore_tenant(archive)
            print(f"  {back.lines()[0]}", flush=True)

        log("comparing the restored tenant and the other hospital with their state before the export")
        after, small_after = tenant_state(big.schema), tenant_state(small.schema)
        wrong = before.differences(after)
        untouched = small_before.differences(small_after)
        after_api = listed_doctors(api, big.token)

        summary.add(
            "data",
            f"{plan.doctors} doctors, {filled.consultations:,} consultations, {filled.lines:,} transcript "
            f"lines ({mb(filled.text_bytes)} text), {filled.certificates} certificates "
            f"({mb(filled.certificate_bytes)}); {rows:,} rows, {mb(data_bytes)} in the database",
        )
        summary.add(
            "export",
            f"{exported.wall:.2f} s, archive {mb(archive_bytes)} "
            f"({archive_bytes / data_bytes:.0%} of the data), sidecar {sidecar_bytes / 1000:.1f} kB",
        )
        summary.add("delete", f"{deleted.wall:.2f} s")
        summary.add("restore", f"{restored.wall:.2f} s ({data_bytes / restored.wall / 1e6:.1f} MB/s of data)")
        summary.add(
            "restored = exported",
            f"{len(after.counts)} tables, {sum(after.counts.values()):,} rows, contents and platform rows"
            + ("" if not wrong else f": {'; '.join(wrong)}"),
            "equal",
            not wrong,
        )
        summary.add(
            "other hospital",
            f"{sum(small_after.counts.values())} rows"
            + ("" if not untouched else f": {'; '.join(untouched)}"),
            "unchanged",
            not untouched,
        )
        summary.add(
            "hospital token after restore",
            f"GET /api/doctors lists {after_api} doctors",
            f"{plan.doctors}",
            after_api == plan.doctors,
        )
        if wrong or untouched or after_api != plan.doctors:
            raise RuntimeError(
                "the round trip changed data: "
                + "; ".join(
                    [*wrong, *(f"other hospital: {u}" for u in untouched)]
                    + ([f"{after_api} doctors listed after the restore"] if after_api != plan.doctors else [])
                )
            )

    return run_bench(plan, summary, body, modules=("tenants.backup", "tenants.erasure"))


if __name__ == "__main__":
    sys.exit(main())
