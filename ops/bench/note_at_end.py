"""What asking for the note costs the disconnect path of a live visit.

    BENCH_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/postgres \
    BENCH_REDIS_URL=redis://127.0.0.1:6379/13 \
    .venv/bin/python ops/bench/note_at_end.py [--visits 200] [--lines 40]

When the live relay closes it runs `cara.consultations.service.end_live` in one tenant
transaction. With the tenant schema given, that transaction also checks whether the visit wants
a note (lines, no note draft, not signed) and writes the worker's job to the outbox; the note
itself is written by the worker later, never on this path. Each visit (an independent doctor's
consultation with `--lines` transcript lines, seeded directly) is ended twice, alternately in
the two shapes, so background load falls on both alike:

* `bare`: `end_live` without the schema (the end time and the search words only, as before);
* `with note`: `end_live` with the schema (the same, plus the check and the outbox row).

Printed: the latency of each shape (median, p95, p99, max), and the difference of the medians
and p99s, against the target of < 100 ms added. The outbox rows it made are counted, then
deleted (no worker runs here: nothing reaches a model).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from contextlib import ExitStack
from datetime import timedelta

from _common import (
    LatencyStats,
    Summary,
    configure_env,
    create_doctors,
    import_app_modules,
    log,
    prepare_database,
    servers,
)

TARGET_ADDED_MS = 100.0


def seed_visits(doctor: uuid.UUID, schema: str, visits: int, lines: int) -> list[uuid.UUID]:
    from cara.kit.db import tenant_session
    from cara.models import Consultation, TranscriptLine
    from cara.models.base import utcnow

    ids: list[uuid.UUID] = []
    with tenant_session(schema) as session:
        for _ in range(visits):
            started = utcnow() - timedelta(minutes=20)
            consultation = Consultation(
                doctor_account_id=doctor,
                console="general-practitioner",
                model="bench",
                started_at=started,
                consent_basis="doctor_confirmed",
                consent_by_account_id=doctor,
                consent_at=started,
            )
            session.add(consultation)
            session.flush()
            session.add_all(
                TranscriptLine(
                    consultation_id=consultation.id,
                    seq=i,
                    speaker="user" if i % 2 == 0 else "assistant",
                    text=f"Line {i}: cough for three weeks, night sweats, weight loss, sputum sent.",
                    spoken_at=started + timedelta(seconds=5 * i),
                )
                for i in range(lines)
            )
            ids.append(consultation.id)
        session.commit()
    return ids


def end_visits(doctor: uuid.UUID, schema: str, visits: list[uuid.UUID]) -> dict[str, list[float]]:
    from cara.consultations import service as consultations
    from tenants.sessions import TenantTransactions

    transactions = TenantTransactions(schema)
    timings: dict[str, list[float]] = {"bare": [], "with note": []}
    for index, consultation in enumerate(visits):
        # Alternate which shape goes first, so that a warm cache or a busy moment favours neither.
        shapes = ("bare", "with note") if index % 2 == 0 else ("with note", "bare")
        for shape in shapes:
            started = time.perf_counter()
            transactions.run(
                consultations.end_live,
                doctor,
                consultation,
                0,
                schema if shape == "with note" else None,
            )
            timings[shape].append(time.perf_counter() - started)
    return timings


def outbox_rows() -> int:
    from sqlalchemy import delete, func, select

    from cara.kit.db import platform_session
    from cara.models import OutboxJob

    with platform_session() as session:
        count = int(
            session.scalar(
                select(func.count())
                .select_from(OutboxJob)
                .where(OutboxJob.actor_name == "summaries.note_at_end")
            )
            or 0
        )
        session.execute(delete(OutboxJob).where(OutboxJob.actor_name == "summaries.note_at_end"))
        session.commit()
    return count


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--visits", type=int, default=200)
    parser.add_argument("--lines", type=int, default=40)
    args = parser.parse_args()
    summary = Summary()
    with ExitStack() as stack, servers(stack) as found:
        configure_env(found)
        import_app_modules(["cara.consultations.service", "tenants.sessions"])
        prepare_database()
        (doctor,) = create_doctors([None])
        log(f"seeding {args.visits} visits of {args.lines} lines")
        visits = seed_visits(doctor.account_id, doctor.schema, args.visits, args.lines)
        # The job is sent to the broker after commit; none is installed here, so the row stays in
        # the outbox (as it would while the broker is unreachable), which is what is counted.
        timings = end_visits(doctor.account_id, doctor.schema, visits)
        jobs = outbox_rows()
        bare, noted = (LatencyStats.of(timings[k]) for k in ("bare", "with note"))
        print(f"end_live, bare:      {bare.line()}")
        print(f"end_live, with note: {noted.line()}")
        added_median = (statistics.median(timings["with note"]) - statistics.median(timings["bare"])) * 1000
        added_p99 = noted.p99_ms - bare.p99_ms
        summary.add("visits ended (each shape)", str(len(visits)))
        summary.add("note jobs written to the outbox", str(jobs), f"= {len(visits)}", jobs == len(visits))
        summary.add(
            "added to the disconnect path, median",
            f"{added_median:.2f} ms",
            f"< {TARGET_ADDED_MS:.0f} ms",
            added_median < TARGET_ADDED_MS,
        )
        summary.add(
            "added to the disconnect path, p99",
            f"{added_p99:.2f} ms",
            f"< {TARGET_ADDED_MS:.0f} ms",
            added_p99 < TARGET_ADDED_MS,
        )
        summary.print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
