"""Exports of the largest note a doctor may sign, and what they cost another tenant.

    .venv/bin/python ops/bench/export_isolation.py [--exports 4] [--duration 20] [--rate 40]

Setup: an independent doctor (on trial) signs a note of `MAX_NOTE_CHARS` characters and adds
`MAX_ADDENDA` addenda of `MAX_ADDENDUM_CHARS` each, through the API, i.e. the most one signed
document may hold; a hospital in a tenant of its own is the bystander.

Printed:
1. the CPU seconds of rendering that document to PDF and to FHIR (in this process, the renderer
   the API's render pool runs), and the first and a later download's wall time through the API
   (the later one is the kept copy);
2. the bystander's `GET /api/auth/user` latency (open loop, `--rate` requests a second, for
   `--duration` s) alone, then while `--exports` different such documents are downloaded at
   once, each for the first time (nothing kept yet: every one is rendered); p99 beside p99,
   with the target ratio 1.5.

One uvicorn worker, as `./ops/dev` runs it. Servers: BENCH_DATABASE_URL / BENCH_REDIS_URL as for
foundation.py; a throwaway database.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import httpx
from _common import ApiServer, Summary, create_doctors, create_hospitals, log, percentile, run_bench

TARGET_RATIO = 1.5


@dataclass(frozen=True)
class Plan:
    exports: int
    duration: float
    rate: float

    def __str__(self) -> str:
        return (
            f"{self.exports} concurrent first exports; bystander at {self.rate:g} req/s "
            f"({self.duration:g} s alone, then until the exports end)"
        )


def parse_args(argv: Sequence[str] | None) -> Plan:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--exports", type=int, default=4)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--rate", type=float, default=40.0)
    args = parser.parse_args(argv)
    return Plan(args.exports, args.duration, args.rate)


def _text(n: int, seed: int) -> str:
    """Clinical-looking prose of `n` characters, paragraphs of a few lines."""
    words = (
        "patient",
        "reports",
        "chest",
        "pain",
        "radiating",
        "left",
        "arm",
        "troponin",
        "normal",
        "ECG",
        "sinus",
        "rhythm",
        "follow-up",
        "in",
        "one",
        "week",
        "aspirin",
        "75",
        "mg",
        "daily",
    )
    out: list[str] = []
    size, i = 0, seed
    while size < n:
        word = words[i % len(words)]
        i = (i * 7 + 3) % 9973
        out.append(word + ("\n\n" if i % 61 == 0 else " "))
        size += len(out[-1])
    return "".join(out)[:n]


def largest_note(client: httpx.Client, headers: dict[str, str], seed: int) -> str:
    from cara.consultations.schemas import MAX_ADDENDA, MAX_ADDENDUM_CHARS, MAX_NOTE_CHARS

    started = client.post("/api/consultations", json={"console": "generic", "consent": True}, headers=headers)
    started.raise_for_status()
    cid: str = started.json()["id"]
    client.put(
        f"/api/consultations/{cid}/note", json={"text": _text(MAX_NOTE_CHARS, seed)}, headers=headers
    ).raise_for_status()
    client.post(f"/api/consultations/{cid}/note/sign", headers=headers).raise_for_status()
    for n in range(MAX_ADDENDA):
        client.post(
            f"/api/consultations/{cid}/note/addenda",
            json={"text": _text(MAX_ADDENDUM_CHARS, seed + n)},
            headers=headers,
        ).raise_for_status()
    return cid


def render_cpu(doctor_schema: str, cid: str) -> tuple[float, float, int]:
    """CPU seconds of the PDF and the FHIR bundle of that note, rendered here as the pool does."""
    import uuid

    from cara.consultations import renditions
    from cara.consultations.service.exports import signed_note
    from cara.kit.db import tenant_session
    from cara.models import Consultation

    with tenant_session(doctor_schema) as session:
        consultation = session.get(Consultation, uuid.UUID(cid))
        assert consultation is not None
        note = signed_note(session, consultation)
    chars = sum(len(e.text) for e in note.entries)

    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_THREAD)
        return usage.ru_utime + usage.ru_stime

    before = cpu()
    renditions.render(note, "pdf", "bundle")
    pdf = cpu() - before
    before = cpu()
    renditions.render(note, "fhir", "bundle")
    return pdf, cpu() - before, chars


async def bystander(base_url: str, token: str, rate: float, until: threading.Event | float) -> list[float]:
    """Open loop: one GET /api/auth/user every 1/rate s, latency from when it was due; for `until`
    seconds, or until that event is set."""
    latencies: list[float] = []
    errors = 0
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        begin = time.perf_counter()

        def going(due: float) -> bool:
            return not until.is_set() if isinstance(until, threading.Event) else due < begin + until

        async def one(due: float) -> None:
            nonlocal errors
            response = await client.get("/api/auth/user", headers=headers)
            if response.status_code != 200:
                errors += 1
            latencies.append(time.perf_counter() - due)

        tasks = []
        n = 0
        while going(due := begin + n / rate):
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(due)))
            n += 1
        await asyncio.gather(*tasks)
    if errors:
        raise RuntimeError(f"{errors} bystander requests failed")
    return latencies


def main(argv: Sequence[str] | None = None) -> int:
    plan = parse_args(argv)
    summary = Summary()

    def body(api: ApiServer) -> None:
        other = create_hospitals(1)[0]
        doctors = create_doctors([None])
        doctor = doctors[0]
        headers = {"Authorization": f"Bearer {doctor.token}"}
        with httpx.Client(base_url=api.base_url, timeout=120) as client:
            log(f"signing {plan.exports + 1} of the largest allowed notes")
            notes = [largest_note(client, headers, seed) for seed in range(plan.exports + 1)]

            pdf_cpu, fhir_cpu, chars = render_cpu(doctor.schema, notes[0])
            summary.add("largest note: characters (note + addenda)", f"{chars:,}")
            summary.add("render CPU, PDF", f"{pdf_cpu:.2f} s")
            summary.add("render CPU, FHIR bundle", f"{fhir_cpu:.2f} s")

            t = time.perf_counter()
            first = client.get(f"/api/consultations/{notes[0]}/export/pdf", headers=headers)
            first_s = time.perf_counter() - t
            t = time.perf_counter()
            again = client.get(f"/api/consultations/{notes[0]}/export/pdf", headers=headers)
            again_s = time.perf_counter() - t
            assert first.status_code == again.status_code == 200 and first.content == again.content
            summary.add("PDF download, first (rendered)", f"{first_s:.2f} s")
            summary.add("PDF download, later (kept, same bytes)", f"{again_s * 1000:.0f} ms")

        log("bystander alone")
        asyncio.run(bystander(api.base_url, other.token, plan.rate, 2))  # warm-up
        alone = asyncio.run(bystander(api.base_url, other.token, plan.rate, plan.duration))

        log(f"bystander while {plan.exports} first exports run")
        statuses: list[int] = []
        times: list[float] = []
        lock = threading.Lock()

        def export(cid: str) -> None:
            # The document's first download: nothing kept yet, so it is rendered.
            with httpx.Client(base_url=api.base_url, timeout=120) as client:
                t = time.perf_counter()
                r = client.get(f"/api/consultations/{cid}/export/pdf", headers=headers)
                with lock:
                    times.append(time.perf_counter() - t)
                    statuses.append(r.status_code)

        done = threading.Event()
        threads = [threading.Thread(target=export, args=(cid,)) for cid in notes[1:]]

        def exports() -> None:
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            done.set()

        runner = threading.Thread(target=exports)
        runner.start()
        try:
            loaded = asyncio.run(bystander(api.base_url, other.token, plan.rate, done))
        finally:
            runner.join()
        bad = [s for s in statuses if s != 200]
        p99_alone, p99_loaded = percentile(alone, 0.99) * 1000, percentile(loaded, 0.99) * 1000
        ratio = p99_loaded / p99_alone
        summary.add(
            "bystander GET /api/auth/user alone",
            f"p50 {percentile(alone, 0.5) * 1000:.1f} ms  p99 {p99_alone:.1f} ms  n={len(alone)}",
        )
        summary.add(
            f"... while {plan.exports} exports run",
            f"p50 {percentile(loaded, 0.5) * 1000:.1f} ms  p99 {p99_loaded:.1f} ms  n={len(loaded)}",
        )
        summary.add(
            "p99 ratio (loaded / alone)", f"{ratio:.2f}x", f"<= {TARGET_RATIO}x", ratio <= TARGET_RATIO
        )
        summary.add(
            "exports during the window",
            f"{len(statuses)} downloads, slowest {max(times):.2f} s"
            + (f", {len(bad)} not 200" if bad else ""),
        )

    return run_bench(
        plan, summary, body, env={"TRIAL_DAYS": "14"}, modules=("cara.consultations.renditions",)
    )


if __name__ == "__main__":
    raise SystemExit(main())
