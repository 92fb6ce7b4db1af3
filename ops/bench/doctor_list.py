"""A hospital's doctor list a page at a time, beside a bare FastAPI app answering the same bytes.

    .venv/bin/python ops/bench/doctor_list.py [--sizes 500,10000] [--duration 5] [--rounds 2]
        [--connections 50] [--whole] [--quick]

Setup: one hospital tenant per size in `--sizes` (default 500 and 10,000 hospital-created doctors,
created with cara.registration.service and one precomputed password hash, as foundation.py does),
each doctor's profile filled in (two certifications, a work-history entry, the default week of
availability), so the list query runs beside other tenants' rows.

Rows per hospital, all `GET /api/doctors/page?isHospitalCreated=true` as the web app asks (50 rows):
the first page, and a deep page (the cursor of the row 50 before the end, by name). `--whole` adds
the old whole list `GET /api/doctors` for the smallest hospital (for comparison; ~1 kB per doctor).
First of all, the floor: `GET /api/auth/user` as the hospital (token, tenant, one row read), the
per-request cost every authenticated call pays; each page is also printed as a ratio to it. And
the machine's floor: the bare app answering the first page's bytes after one single-row read of
the same database (bare_app.py's `/floor`), as many processes as the product: what FastAPI and one
PostgreSQL round trip reach on this machine at the same concurrency.

Load: wrk -t1 -c`--connections` (gzip accepted, as browsers do) for `--duration` s after 1 s of
warm-up, product and bare alternating over `--rounds` rounds (so the shared machine's background
load cancels out). The product runs as deployed, `python -m cara.serve` with `--workers` processes
(default WEB_CONCURRENCY, else one per usable core; printed, with the load average); the bare app
(ops/bench/bare_app.py: FastAPI, `async def`, no middleware, one uvicorn process) answers the
product's first-page bytes uncompressed. Prints req/s,
p50, p99 (medians over rounds), server CPU per request, the product/bare ratios, page bytes raw and
gzip, and the targets: p99 < 30 ms at 50 clients, the deep page within 1.2x of the first (p50).

Servers: BENCH_DATABASE_URL / BENCH_REDIS_URL as for foundation.py (the Redis db is flushed); a
`cara_bench_<random>` database is created and dropped at the end, even on error. ~3 min with the
defaults (seeding 10,000 doctors is most of it); `--quick`: 200 and 2,000 doctors, 3 s, 1 round.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import httpx
import request_overhead
from _common import (
    ApiServer,
    Login,
    Summary,
    create_doctors,
    create_hospitals,
    log,
    plain_conninfo,
    run_bench,
)
from consultations_list import ServeServer, load_average
from request_overhead import BareServer, Load, Row, ensure_wrk, wrk

P99_TARGET_MS = 30.0
DEEP_TARGET = 1.2
PAGE_TARGET_BYTES = 30 * 1024
PAGE = 50
FLOOR = "floor: GET /api/auth/user (hospital)"

# The same load script as request_overhead.py's, with gzip accepted as a browser does.
request_overhead._LUA = request_overhead._LUA.replace(
    '{["Authorization"] = "Bearer " .. tokens[(n %% #tokens) + 1]}',
    '{["Authorization"] = "Bearer " .. tokens[(n %% #tokens) + 1], ["Accept-Encoding"] = "gzip"}',
)
assert "Accept-Encoding" in request_overhead._LUA


@dataclass(frozen=True)
class Plan:
    sizes: tuple[int, ...]
    duration: float
    rounds: int
    connections: int
    whole: bool
    profile: str | None = None
    workers: int = 1

    def __str__(self) -> str:
        return (
            f"hospitals of {', '.join(f'{n:,}' for n in self.sizes)} doctors; "
            f"wrk -t1 -c{self.connections}, 1 s warm-up + {self.duration:g} s per server and row, "
            f"{self.rounds} rounds alternating product/bare; python -m cara.serve with {self.workers} "
            "server process(es), the bare app one uvicorn process"
        )


def parse_args(argv: Sequence[str] | None) -> Plan:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="500,10000", help="doctors per hospital, comma-separated")
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--whole", action="store_true", help="also the whole list GET /api/doctors")
    parser.add_argument("--quick", action="store_true", help="200 and 2,000 doctors, 3 s, 1 round")
    parser.add_argument(
        "--profile", help="afterwards, py-spy raw stacks of the product under the last first-page row here"
    )
    parser.add_argument(
        "--workers", help="server processes (default: WEB_CONCURRENCY, else one per usable core, as deployed)"
    )
    args = parser.parse_args(argv)
    from cara.serve import web_concurrency  # reads no settings

    workers = web_concurrency(args.workers)
    if args.quick:
        return Plan((200, 2000), 3.0, 1, args.connections, args.whole, args.profile, workers)
    sizes = tuple(int(s) for s in args.sizes.split(",") if s.strip())
    return Plan(
        sizes, args.duration, max(1, args.rounds), args.connections, args.whole, args.profile, workers
    )


CERTIFICATIONS = [
    {
        "name": "FWACS Radiology",
        "issuer": "West African College of Surgeons",
        "date": "2016-03-01",
        "fileId": None,
    },
    {"name": "Basic Life Support", "issuer": "Ghana Red Cross", "date": "2023-09-12", "fileId": None},
]
WORK_HISTORY = [
    {
        "hospital": "Korle Bu Teaching Hospital",
        "position": "Senior Registrar",
        "startDate": "2014-01-06",
        "endDate": "2019-12-31",
        "description": "CT and MRI reporting, on-call rota",
    }
]


def fill_profiles(schema: str) -> None:
    """Every doctor of `schema` gets certifications and a work history, as a used profile has."""
    from sqlalchemy import text

    from cara.kit.db import session_scope

    with session_scope() as session:
        session.execute(
            text(
                f'UPDATE "{schema}".doctors'
                " SET certifications = CAST(:c AS jsonb), work_history = CAST(:w AS jsonb)"
            ),
            {"c": json.dumps(CERTIFICATIONS), "w": json.dumps(WORK_HISTORY)},
        )
        session.execute(text(f'ANALYZE "{schema}".doctors'))
        session.execute(text("ANALYZE platform.accounts"))


def deep_cursor(hospital_id: str) -> str:
    """The cursor the web app would hold after paging to 50 rows before the end, by name."""
    from sqlalchemy import text

    from cara.kit import listing
    from cara.kit.db import session_scope

    with session_scope() as session:
        name, ident = session.execute(
            text(
                "SELECT name, id FROM platform.accounts WHERE hospital_id = :h AND role = 'doctor'"
                " ORDER BY name DESC, id DESC OFFSET :n LIMIT 1"
            ),
            {"h": hospital_id, "n": PAGE},
        ).one()
    return listing.encode_cursor("name", name, str(ident))


def sizes_of(api: ApiServer, path: str, token: str) -> tuple[bytes, int]:
    """The answer's JSON and its size on the wire with gzip accepted."""
    headers = {"Authorization": f"Bearer {token}"}
    plain = httpx.get(f"{api.base_url}{path}", headers={**headers, "Accept-Encoding": "identity"}, timeout=30)
    assert plain.status_code == 200, plain.text[:300]
    packed = httpx.get(f"{api.base_url}{path}", headers={**headers, "Accept-Encoding": "gzip"}, timeout=30)
    wire = int(packed.headers.get("content-length", len(plain.content)))
    if packed.headers.get("content-encoding") != "gzip":
        wire = len(plain.content)
    return plain.content, wire


def main(argv: Sequence[str] | None = None) -> int:
    plan = parse_args(argv)
    summary = Summary()
    binary = ensure_wrk()

    def body(api: ApiServer) -> None:
        assert isinstance(api, ServeServer)
        log(f"python -m cara.serve, {api.workers} server process(es): pids {api.pids()}; {load_average()}")
        hospitals: list[Login] = create_hospitals(len(plan.sizes))
        rows: list[Row] = []
        answers: dict[str, bytes] = {}
        accounts: list[str] = []  # for the bare app's one-row reads (the machine's floor)
        for size, hospital in zip(plan.sizes, hospitals, strict=True):
            log(f"{size:,} doctors for {hospital.schema}")
            created = create_doctors([hospital] * size)
            accounts += [str(d.account_id) for d in created[:50]]
            fill_profiles(hospital.schema)
            me = httpx.get(
                f"{api.base_url}/api/auth/user", headers={"Authorization": f"Bearer {hospital.token}"}
            )
            hospital_id = me.json()["hospitalId"]
            query = {"isHospitalCreated": "true"}
            first = "/api/doctors/page?" + urlencode(query)
            deep = "/api/doctors/page?" + urlencode({**query, "cursor": deep_cursor(hospital_id)})
            for name, path in ((f"{size:,}: first page", first), (f"{size:,}: deep page", deep)):
                content, wire = sizes_of(api, path, hospital.token)
                page = json.loads(content)
                assert len(page["items"]) == PAGE, (name, len(page["items"]))
                answers.setdefault(path.split("?")[0], content)
                summary.add(
                    f"{name} bytes",
                    f"{len(content) / 1024:.1f} kB JSON, {wire / 1024:.1f} kB gzip",
                    f"<= {PAGE_TARGET_BYTES // 1024} kB",
                    len(content) <= PAGE_TARGET_BYTES,
                )
                rows.append(Row(name, path, (hospital.token,), True))
            if size == plan.sizes[0]:
                # The floor: an authenticated, tenant-scoped read of one row (the principal's path).
                content, _ = sizes_of(api, "/api/auth/user", hospital.token)
                answers.setdefault("/api/auth/user", content)
                rows.insert(0, Row(FLOOR, "/api/auth/user", (hospital.token,), True))
            if plan.whole and size == min(plan.sizes):
                path = "/api/doctors?" + urlencode(query)
                content, wire = sizes_of(api, path, hospital.token)
                answers.setdefault("/api/doctors", content)
                summary.add(
                    f"{size:,}: whole list bytes",
                    f"{len(content) / 1024:.0f} kB JSON, {wire / 1024:.0f} kB gzip",
                )
                rows.append(Row(f"{size:,}: whole list", path, (hospital.token,), True))

        with tempfile.TemporaryDirectory(prefix="cara-bare-") as tmp:
            spec = {
                path: (200, "application/json", base64.b64encode(content).decode())
                for path, content in answers.items()
            }
            (Path(tmp) / "responses.json").write_text(json.dumps(spec))
            # The bare app also answers under /floor after one single-row read of the same
            # database (bare_app.py): what FastAPI plus one PostgreSQL round trip reach here.
            bare = BareServer(
                Path(tmp) / "bare.log",
                Path(tmp) / "responses.json",
                workers=plan.workers,
                database=plain_conninfo(os.environ["DATABASE_URL"]),
                accounts=",".join(accounts),
            )
            try:
                bare.wait_ready("/api/doctors/page")
                servers = {
                    # The product's CPU: the supervisor and every server process of cara.serve.
                    "product": (api.base_url, api.process.pid, api.cpu_seconds),
                    "bare": (bare.base_url, bare.process.pid, bare.cpu_seconds),
                    "bare + 1 read": (bare.base_url + "/floor", bare.process.pid, bare.cpu_seconds),
                }
                results: dict[tuple[str, str], Load] = {}
                first_page = next(r for r in rows if r.name.endswith("first page"))
                floor_url, floor_pid, _ = servers["bare + 1 read"]
                for _round in range(plan.rounds):
                    wrk(binary, floor_url, floor_pid, first_page, seconds=1, connections=plan.connections)
                    results.setdefault(("floor", "bare + 1 read"), Load()).add(
                        wrk(
                            binary,
                            floor_url,
                            floor_pid,
                            first_page,
                            seconds=plan.duration,
                            connections=plan.connections,
                            cpu_of=bare.cpu_seconds,
                        )
                    )
                f = results[("floor", "bare + 1 read")]
                log(f"bare app + one single-row read ({load_average()})\n    {f.line()}")
                summary.add(
                    "machine floor: bare app + 1 read",
                    f"{f.rps:.0f} req/s, p50 {f.p50:.1f} / p99 {f.p99:.1f} ms (FastAPI and one round trip)",
                    f"p99 < {P99_TARGET_MS:g} ms",
                    f.p99 < P99_TARGET_MS and not f.errors,
                )
                for row in rows:
                    for r in range(plan.rounds):
                        order = ("product", "bare") if r % 2 == 0 else ("bare", "product")
                        for which in order:
                            url, pid, cpu_of = servers[which]
                            wrk(binary, url, pid, row, seconds=1, connections=plan.connections)
                            load = wrk(
                                binary,
                                url,
                                pid,
                                row,
                                seconds=plan.duration,
                                connections=plan.connections,
                                cpu_of=cpu_of,
                            )
                            results.setdefault((row.name, which), Load()).add(load)
                    p, b = results[(row.name, "product")], results[(row.name, "bare")]
                    log(f"{row.name} ({load_average()})\n    product {p.line()}\n    bare    {b.line()}")
                    summary.add(
                        f"{row.name}",
                        f"{p.rps:.0f} req/s, p50 {p.p50:.1f} / p99 {p.p99:.1f} ms"
                        + (f", errors {p.errors}" if p.errors else ""),
                        f"p99 < {P99_TARGET_MS:g} ms",
                        p.p99 < P99_TARGET_MS and not p.errors,
                    )
                    summary.add(
                        "  vs bare (same bytes)",
                        f"bare {b.rps:.0f} req/s, p50 {b.p50:.1f} / p99 {b.p99:.1f} ms; "
                        f"req/s {p.rps / b.rps:.2f}x, p50 {p.p50 / b.p50:.1f}x",
                    )
                    summary.add("  server CPU", f"{p.cpu_ms:.2f} ms/request (bare {b.cpu_ms:.2f})")
                floor = results[(FLOOR, "product")]
                for size in plan.sizes:
                    page = results[(f"{size:,}: first page", "product")]
                    summary.add(
                        f"{size:,}: first page / floor",
                        f"p50 {page.p50 / floor.p50:.2f}x, CPU {page.cpu_ms / floor.cpu_ms:.2f}x "
                        f"(+{page.cpu_ms - floor.cpu_ms:.2f} ms/request for the list itself)",
                    )
                for size in plan.sizes:
                    first = results[(f"{size:,}: first page", "product")]
                    deep = results[(f"{size:,}: deep page", "product")]
                    ratio = deep.p50 / first.p50
                    summary.add(
                        f"{size:,}: deep / first page",
                        f"p50 {ratio:.2f}x, CPU {deep.cpu_ms / first.cpu_ms:.2f}x",
                        f"<= {DEEP_TARGET:g}x",
                        ratio <= DEEP_TARGET,
                    )
            finally:
                bare.stop()
        if plan.profile:
            row = [r for r in rows if r.name.endswith("first page")][-1]
            request_overhead.profile(
                api,
                binary,
                row,
                plan.profile,
                seconds=plan.duration,
                connections=plan.connections,
                native=False,
            )

    return run_bench(plan, summary, body, server=lambda path: ServeServer(path, plan.workers))


if __name__ == "__main__":
    sys.exit(main())
