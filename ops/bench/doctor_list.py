"""A hospital's doctor list: `GET /api/doctors?hospitalId=<own>` with 500 doctors.

    .venv/bin/python ops/bench/doctor_list.py [--doctors 500] [--concurrency 50] [--quick]

Prints figures only; the target (p99 < 30 ms at 50 concurrent clients) is printed next to them.

Setup: one hospital tenant with `--doctors` hospital-created doctors (cara.registration.service, one
precomputed password hash, as in foundation.py) plus a second hospital with as many, so the
list query runs next to other tenants' rows; each doctor gets a profile with two
certifications, a work-history entry and the default week of availability (what a filled-in
profile returns). The JSON answer is ~1 kB per doctor before gzip.

Load: one uvicorn worker, asyncio httpx client (gzip accepted, as browsers do), closed loop at
`--concurrency` for 3 s warm-up + 15 s, then concurrency 1 (the unqueued service time). The
client shares the machine's cores with the server and PostgreSQL: each run prints how many
cores each kept busy.

Servers: BENCH_DATABASE_URL / BENCH_REDIS_URL as for foundation.py (the Redis db is flushed);
a `cara_bench_<random>` database is created and dropped at the end, even on error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import httpx
from _common import ApiServer, Login, Summary, create_doctors, create_hospitals, hammer, log, run_bench

P99_TARGET_MS = 30.0


@dataclass(frozen=True)
class Plan:
    doctors: int
    concurrency: int
    duration: float
    warmup: float

    def __str__(self) -> str:
        return (
            f"{self.doctors} doctors in one hospital (+{self.doctors} in another), "
            f"c={self.concurrency}, {self.warmup:g} s warm-up + {self.duration:g} s"
        )


def parse_args(argv: Sequence[str] | None) -> Plan:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--doctors", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--duration", type=float, default=15.0)
    parser.add_argument("--quick", action="store_true", help="100 doctors, 5 s: a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        return Plan(100, args.concurrency, 5.0, 1.0)
    return Plan(args.doctors, args.concurrency, args.duration, 3.0)


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
    import json

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


def main(argv: Sequence[str] | None = None) -> int:
    plan = parse_args(argv)
    summary = Summary()

    def body(api: ApiServer) -> None:
        log("creating 2 hospitals and their doctors")
        hospitals: list[Login] = create_hospitals(2)
        create_doctors([hospitals[0]] * plan.doctors + [hospitals[1]] * plan.doctors)
        for hospital in hospitals:
            fill_profiles(hospital.schema)
        token = hospitals[0].token
        me = httpx.get(f"{api.base_url}/api/auth/user", headers={"Authorization": f"Bearer {token}"})
        hospital_id = me.json()["hospitalId"]
        params = {"hospitalId": hospital_id, "isHospitalCreated": "true"}
        check = httpx.get(
            f"{api.base_url}/api/doctors", params=params, headers={"Authorization": f"Bearer {token}"}
        )
        assert check.status_code == 200 and len(check.json()) == plan.doctors, check.text[:300]
        raw = len(check.content)
        gz = httpx.get(
            f"{api.base_url}/api/doctors",
            params=params,
            headers={"Authorization": f"Bearer {token}", "Accept-Encoding": "gzip"},
        )
        wire = int(gz.headers.get("content-length", raw))
        print(
            f"answer: {plan.doctors} doctors, {raw / 1024:.0f} kB JSON, {wire / 1024:.0f} kB gzip", flush=True
        )

        print(f"\n== GET /api/doctors, c={plan.concurrency}", flush=True)
        loaded = hammer(
            api,
            "/api/doctors",
            [token],
            params=params,
            duration=plan.duration,
            warmup=plan.warmup,
            concurrency=plan.concurrency,
        )
        print(loaded.line())
        print(loaded.cpu_line())
        print("\n== GET /api/doctors, c=1", flush=True)
        serial = hammer(
            api,
            "/api/doctors",
            [token],
            params=params,
            duration=min(plan.duration, 5.0),
            warmup=1,
            concurrency=1,
        )
        print(serial.line())

        lat = loaded.latency
        summary.add(
            "setup", f"{plan.doctors} doctors listed ({raw / 1024:.0f} kB JSON, {wire / 1024:.0f} kB gzip)"
        )
        summary.add(
            f"GET /api/doctors c={plan.concurrency}",
            f"{loaded.rps:.0f} req/s, p50 {lat.p50_ms:.1f} / p95 {lat.p95_ms:.1f} / p99 {lat.p99_ms:.1f} ms"
            + (f", errors {loaded.errors}" if loaded.errors else ""),
            f"p99 < {P99_TARGET_MS:g} ms",
            lat.p99_ms < P99_TARGET_MS and not loaded.errors,
        )
        issued = max(loaded.issued, 1)
        summary.add(
            "  cpu per request | cores busy",
            f"server {loaded.server_cpu / issued * 1000:.2f} ms, "
            f"PostgreSQL {loaded.database_cpu / issued * 1000:.2f} ms | "
            f"server {loaded.cores(loaded.server_cpu):.2f}, client {loaded.cores(loaded.client_cpu):.2f}, "
            f"PostgreSQL {loaded.cores(loaded.database_cpu):.2f}",
        )
        slat = serial.latency
        summary.add(
            "GET /api/doctors c=1 (unqueued)",
            f"{serial.rps:.0f} req/s, p50 {slat.p50_ms:.1f} / p99 {slat.p99_ms:.1f} ms",
        )

    return run_bench(plan, summary, body)


if __name__ == "__main__":
    sys.exit(main())
