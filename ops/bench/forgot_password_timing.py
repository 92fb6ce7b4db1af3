"""Forgot-password timing: does the answer take longer for a registered email than for an unknown one?

    .venv/bin/python ops/bench/forgot_password_timing.py [--pairs 50]

Prints the median time of `POST /api/auth/forgot-password` for a registered doctor's email and
for an address no account uses, over `--pairs` interleaved pairs (the order inside each pair
alternates, after 5 warm-up pairs), and the ratio of the two medians; the target is within 20%.
Both paths do the same work (a lookup, a job in the outbox, one commit and send), so the time
does not tell whether an address is registered.

The per-address and per-email limits are raised for the run (they would refuse the 101st
request otherwise). Servers: BENCH_DATABASE_URL / BENCH_REDIS_URL as for foundation.py (the
Redis db is flushed); a `cara_bench_<random>` database is created and dropped at the end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

import httpx
from _common import ApiServer, Summary, log, run_bench

from cara_devstack.signup_link import sign_up

WARMUP_PAIRS = 5
TARGET = 0.20


@dataclass(frozen=True)
class Plan:
    pairs: int


def _timed(client: httpx.Client, email: str) -> float:
    started = time.perf_counter()
    r = client.post("/api/auth/forgot-password", json={"email": email})
    elapsed = time.perf_counter() - started
    if r.status_code != 202:
        raise RuntimeError(f"forgot-password answered {r.status_code}: {r.text}")
    return elapsed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=50)
    args = parser.parse_args(argv)
    plan = Plan(pairs=args.pairs)
    summary = Summary()

    def body(api: ApiServer) -> None:
        with httpx.Client(base_url=api.base_url, timeout=30) as client:
            known = "bench-known-doctor@example.com"
            r = sign_up(
                client,
                {
                    "role": "doctor",
                    "name": "Bench Doctor",
                    "email": known,
                    "password": "bench-doctor-pass",
                    "specialty": "Cardiologist",
                    "phoneNumber": "+15550100",
                    "licenseNumber": "LIC-1",
                    "experience": 5,
                    "country": "Kenya",
                    "state": "Nairobi",
                    "privacyPolicyAccepted": True,
                },
            )
            if r.status_code != 201:
                raise RuntimeError(f"signup answered {r.status_code}: {r.text}")
            unknown = "bench-nobody@example.com"
            times: dict[str, list[float]] = {"known": [], "unknown": []}
            for i in range(WARMUP_PAIRS + plan.pairs):
                order = [("known", known), ("unknown", unknown)]
                if i % 2:
                    order.reverse()
                pair = {kind: _timed(client, email) for kind, email in order}
                if i >= WARMUP_PAIRS:
                    for kind, seconds in pair.items():
                        times[kind].append(seconds)
            log("pairs done")
        known_ms = statistics.median(times["known"]) * 1000
        unknown_ms = statistics.median(times["unknown"]) * 1000
        ratio = known_ms / unknown_ms
        summary.add("median, registered email", f"{known_ms:.2f} ms")
        summary.add("median, unknown email", f"{unknown_ms:.2f} ms")
        summary.add(
            f"ratio over {plan.pairs} interleaved pairs",
            f"{ratio:.3f}",
            f"within {TARGET:.0%} (0.80-1.20)",
            ok=abs(ratio - 1) <= TARGET,
        )

    env = {
        "RATE_LIMIT_FORGOT_PASSWORD_ADDRESS": "100000 per hour",
        "RATE_LIMIT_FORGOT_PASSWORD_EMAIL": "100000 per hour",
    }
    return run_bench(plan, summary, body, env=env)


if __name__ == "__main__":
    sys.exit(main())
