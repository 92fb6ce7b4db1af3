"""The consultation record's list: `GET /api/consultations` for a doctor with 5,000 consultations
of 200 transcript lines each (1,000,000 lines).

    .venv/bin/python ops/bench/consultations_list.py [--consultations 5000] [--lines 200] [--quick]

Prints figures only; the targets (first and deep page p99 < 50 ms, search p99 < 100 ms at 20
concurrent clients) are printed next to them.

Setup: one independent doctor (cara.registration, as in foundation.py) whose consultations are
written with set-based SQL (consent, patient reference, title; each line a sentence from a
clinical vocabulary, a few rare words in a few consultations), a second doctor with a tenth as
many in the same shared schema, then VACUUM ANALYZE. The search documents of rows written this way
are gathered as an upgrade does (tenant migration t0007; timed and printed: the one-off cost), so the
first search finds them ready (timed too); the live relay gathers them as it stores lines.

Load per scenario: one uvicorn worker, asyncio httpx client, closed loop at `--concurrency` for
2 s warm-up + `--duration` s: the first page (20 rows), a page deep in the list (cursor at row
~4,000, keyset), a search for a word in every consultation, one in 0.1 % of them, and a patient
record number. Server and PostgreSQL CPU per request are printed for each.

Servers: BENCH_DATABASE_URL / BENCH_REDIS_URL as for foundation.py; a throwaway database.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

import httpx
from _common import REPO, ApiServer, LoadResult, Summary, create_doctors, hammer, log, run_bench

PAGE_TARGET_MS = 50.0
SEARCH_TARGET_MS = 100.0

PHRASES = [
    "Patient reports chest pain radiating to the left arm since this morning",
    "Blood pressure one hundred fifty over ninety five on three visits",
    "No shortness of breath at rest, mild dyspnoea on exertion",
    "ECG shows sinus rhythm without acute ST changes",
    "Hey Cara, what is the spinal cord constraint for conventional fractionation",
    "Spinal cord Dmax 50 Gy, myelopathy risk 0.2 percent per QUANTEC",
    "Mammogram shows a spiculated mass in the upper outer quadrant",
    "Consider ultrasound guided core biopsy of the lesion",
    "Lung nodule of six millimetres, solid, in the right upper lobe",
    "Lung-RADS category 3, low-dose CT in six months",
    "Patient is on metformin and amlodipine, no known drug allergies",
    "Family history of breast cancer in the mother at fifty two",
    "Temperature thirty eight point two, productive cough for five days",
    "Advise paracetamol, fluids, and review in forty eight hours if no better",
    "Creatinine within normal limits, potassium four point one",
    "Discussed the risks and benefits, patient agrees with the plan",
]
RARE_WORD = "pheochromocytoma"


@dataclass(frozen=True)
class Plan:
    consultations: int
    lines: int
    concurrency: int
    duration: float
    warmup: float

    def __str__(self) -> str:
        return (
            f"{self.consultations} consultations x {self.lines} lines for one doctor "
            f"(+{self.consultations // 10} for a second doctor in the same schema), "
            f"c={self.concurrency}, {self.warmup:g} s warm-up + {self.duration:g} s per scenario"
        )


def parse_args(argv: Sequence[str] | None) -> Plan:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--consultations", type=int, default=5000)
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--quick", action="store_true", help="500 consultations x 50 lines, 3 s: a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        return Plan(500, 50, args.concurrency, 3.0, 1.0)
    return Plan(args.consultations, args.lines, args.concurrency, args.duration, 2.0)


def seed(schema: str, doctor_id: str, consultations: int, lines: int) -> None:
    """Consultations and transcript lines in set-based SQL (the API path is what is measured)."""
    from sqlalchemy import text

    from cara.kit.db import get_engine

    phrases = "ARRAY[" + ",".join("'" + p.replace("'", "''") + "'" for p in PHRASES) + "]"
    with get_engine().begin() as conn:
        conn.execute(
            text(
                f"""
                INSERT INTO "{schema}".consultations (id, doctor_account_id, console, model, started_at,
                    ended_at, reconnects, consent_basis, consent_by_account_id, consent_at,
                    patient_reference, title, state)
                SELECT gen_random_uuid(), CAST(:doctor AS uuid),
                    (ARRAY['radiologist','cardiologist','generic','general-practitioner','nurse',
                           'radiotherapist'])[1 + i % 6],
                    'bench', now() - i * interval '37 minutes',
                    CASE WHEN i = 1 THEN NULL
                         ELSE now() - i * interval '37 minutes' + interval '18 minutes' END,
                    0, 'doctor_confirmed', CAST(:doctor AS uuid), now() - i * interval '37 minutes',
                    jsonb_build_object('recordNumber', 'KB-' || (10000 + i), 'name', 'Patient ' || i,
                                       'age', 20 + i % 60,
                                       'sex', CASE WHEN i % 2 = 0 THEN 'female' ELSE 'male' END),
                    'Consultation ' || i,
                    (ARRAY['in_progress','draft','signed','draft'])[1 + i % 4]
                FROM generate_series(1, :n) AS i
                """
            ),
            {"doctor": doctor_id, "n": consultations},
        )
        conn.execute(
            text(
                f"""
                INSERT INTO "{schema}".transcript_lines
                    (consultation_id, seq, speaker, text, spoken_at, created_at)
                SELECT c.id, s, (ARRAY['user','assistant','tool','user'])[1 + s % 4],
                    ({phrases})[1 + (abs(hashtext(c.id::text)) + s) % {len(PHRASES)}]
                        || CASE WHEN s = 7 AND abs(hashtext(c.id::text)) % 1000 = 0
                                THEN ' {RARE_WORD}' ELSE '' END,
                    c.started_at + s * interval '5 seconds', now()
                FROM "{schema}".consultations c, generate_series(0, :lines - 1) AS s
                WHERE c.doctor_account_id = CAST(:doctor AS uuid)
                """
            ),
            {"doctor": doctor_id, "lines": lines},
        )
    with get_engine().connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text(f'VACUUM ANALYZE "{schema}".consultations'))
        conn.execute(text(f'VACUUM ANALYZE "{schema}".transcript_lines'))


def gather_as_upgrade(schema: str) -> None:
    """What tenant migration t0007 runs in each schema: every search document that is behind."""
    import importlib.util

    from sqlalchemy import text

    from cara.kit.db import get_engine

    path = REPO / "tenants" / "alembic" / "tenant" / "versions" / "t0007_search_documents.py"
    spec = importlib.util.spec_from_file_location("t0007", path)
    assert spec is not None and spec.loader is not None
    migration = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(migration)
    with get_engine().begin() as conn:
        conn.execute(text("SET LOCAL jit = off"))
        conn.execute(text(migration.GATHER.format(schema=schema)))


def deep_cursor(api: ApiServer, token: str, rows: int) -> tuple[str, int]:
    """The cursor of the page starting after about `rows` rows, walked 100 at a time."""
    headers = {"Authorization": f"Bearer {token}"}
    cursor, seen = None, 0
    while seen < rows:
        params = {"limit": "100", **({"cursor": cursor} if cursor else {})}
        page = httpx.get(
            f"{api.base_url}/api/consultations", params=params, headers=headers, timeout=30
        ).json()
        seen += len(page["items"])
        cursor = page["nextCursor"]
        assert cursor, "the list ended early"
    return cursor, seen


def main(argv: Sequence[str] | None = None) -> int:
    plan = parse_args(argv)
    summary = Summary()

    def body(api: ApiServer) -> None:
        log("creating two independent doctors")
        doctor, other = create_doctors([None, None])
        log(f"seeding {plan.consultations} consultations x {plan.lines} lines")
        started = time.perf_counter()
        seed(doctor.schema, str(doctor.account_id), plan.consultations, plan.lines)
        seed(other.schema, str(other.account_id), plan.consultations // 10, plan.lines)
        log(f"seeded in {time.perf_counter() - started:.1f} s")
        headers = {"Authorization": f"Bearer {doctor.token}"}
        first = httpx.get(f"{api.base_url}/api/consultations", headers=headers, timeout=30)
        assert first.status_code == 200 and len(first.json()["items"]) == 20, first.text[:300]
        started = time.perf_counter()
        gather_as_upgrade(doctor.schema)
        summary.add(
            "search documents gathered at upgrade (t0007, one-off)",
            f"{(time.perf_counter() - started) * 1000:.0f} ms",
        )
        started = time.perf_counter()
        cold = httpx.get(
            f"{api.base_url}/api/consultations", params={"q": "biopsy"}, headers=headers, timeout=300
        )
        first_search = time.perf_counter() - started
        assert cold.status_code == 200, cold.text[:300]
        summary.add("first search after the upgrade", f"{first_search * 1000:.0f} ms")
        cursor, depth = deep_cursor(api, doctor.token, int(plan.consultations * 0.8))
        rare = httpx.get(
            f"{api.base_url}/api/consultations", params={"q": RARE_WORD, "limit": "100"}, headers=headers
        )
        patient = f"KB-{10000 + plan.consultations // 2}"
        scenarios: list[tuple[str, dict[str, str], float, str]] = [
            ("first page", {}, PAGE_TARGET_MS, ""),
            (f"deep page (after row {depth})", {"cursor": cursor}, PAGE_TARGET_MS, ""),
            ("search 'pain' (in every consultation)", {"q": "pain"}, SEARCH_TARGET_MS, ""),
            (
                f"search '{RARE_WORD}' ({len(rare.json()['items'])} consultations)",
                {"q": RARE_WORD},
                SEARCH_TARGET_MS,
                "",
            ),
            (f"search patient '{patient}'", {"q": patient}, SEARCH_TARGET_MS, ""),
            (
                "search 'pain' + state=signed, deep",
                {"q": "pain", "state": "signed", "cursor": cursor},
                SEARCH_TARGET_MS,
                "",
            ),
        ]
        # The floor: an authenticated request that reads one account (what every endpoint pays).
        floor = hammer(
            api,
            "/api/auth/user",
            [doctor.token],
            duration=plan.duration,
            warmup=plan.warmup,
            concurrency=plan.concurrency,
        )
        print(
            "\n== GET /api/auth/user (the floor of an authenticated request)\n"
            f"{floor.line()}\n{floor.cpu_line()}"
        )
        flat = floor.latency
        summary.add(
            f"floor: GET /api/auth/user, c={plan.concurrency}",
            f"{floor.rps:.0f} req/s, p50 {flat.p50_ms:.1f} / p99 {flat.p99_ms:.1f} ms, cpu/req server "
            f"{floor.server_cpu / max(floor.issued, 1) * 1000:.2f} ms",
        )
        for name, params, target, _ in scenarios:
            check = httpx.get(f"{api.base_url}/api/consultations", params=params, headers=headers, timeout=30)
            assert check.status_code == 200, check.text[:300]
            print(
                f"\n== GET /api/consultations {name}: {len(check.json()['items'])} rows",
                flush=True,
            )
            result: LoadResult = hammer(
                api,
                "/api/consultations",
                [doctor.token],
                params=params,
                duration=plan.duration,
                warmup=plan.warmup,
                concurrency=plan.concurrency,
            )
            print(result.line())
            print(result.cpu_line())
            serial = hammer(
                api,
                "/api/consultations",
                [doctor.token],
                params=params,
                duration=min(plan.duration, 4.0),
                warmup=1.0,
                concurrency=1,
            )
            print(f"c=1: {serial.line()}")
            print(f"c=1: {serial.cpu_line()}")
            lat = result.latency
            issued = max(result.issued, 1)
            server_ms = result.server_cpu / issued * 1000
            database_ms = result.database_cpu / issued * 1000
            summary.add(
                f"{name}, c={plan.concurrency}",
                f"{result.rps:.0f} req/s, p50 {lat.p50_ms:.1f} / p99 {lat.p99_ms:.1f} ms, cpu/req server "
                f"{server_ms:.2f} ms, PostgreSQL {database_ms:.2f} ms"
                + (f", errors {result.errors}" if result.errors else ""),
                f"p99 < {target:g} ms",
                lat.p99_ms < target and not result.errors,
            )
            slat = serial.latency
            summary.add(
                "  same, c=1 (unqueued)",
                f"{serial.rps:.0f} req/s, p50 {slat.p50_ms:.1f} / p99 {slat.p99_ms:.1f} ms",
            )

    return run_bench(plan, summary, body)


if __name__ == "__main__":
    sys.exit(main())
