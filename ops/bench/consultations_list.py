"""The consultation record's list: `GET /api/consultations` for a doctor with 5,000 consultations
of 200 transcript lines each (1,000,000 lines).

    .venv/bin/python ops/bench/consultations_list.py [--consultations 5000] [--lines 200]
        [--concurrency 20] [--duration 10] [--workers N] [--keep-db NAME] [--only TEXT]
        [--profile PATH] [--quick]

Prints figures only; the targets (first and deep page p99 < 50 ms, search p99 < 100 ms at 20
concurrent clients) are printed next to them.

Setup: one independent doctor (cara.registration, as in foundation.py) whose consultations are
written with set-based SQL (consent, patient reference, title; each line a sentence from a
clinical vocabulary, a few rare words in a few consultations), a second doctor with a tenth as
many in the same shared schema, then VACUUM ANALYZE. The search documents of rows written this way
are gathered as an upgrade does (tenant migration t0007; timed and printed: the one-off cost), so the
first search finds them ready (timed too); the live relay gathers them as it stores lines.
`--keep-db NAME`: the database NAME is seeded on the first run and kept; later runs with the same
name (and sizes) reuse it as it is, migrated to the current head (a seeded 1M lines takes minutes).
Drop it when done (`DROP DATABASE NAME WITH (FORCE)`).

Load per scenario: wrk -t1 -c`--concurrency` (closed loop, one connection per client) for 2 s of
warm-up + `--duration` s, then the same at -c1 (unqueued): the first page (20 rows), a page deep
in the list (cursor at row ~4,000, keyset), a search for a word in every consultation, one in
0.1 % of them, a patient record number, and a search with a state filter from a deep cursor.
Server CPU per request (utime+stime of every server process, /proc) and PostgreSQL CPU per
request (the bench database's backends) are printed for each. The baselines, in the same run and
under the same wrk: `GET /api/auth/user` (the floor of an authenticated request), and
ops/bench/bare_app.py answering the first page's very bytes, bare and after one single-row read
of the same database (its `/floor`), so the list's own cost reads as ratios.

Server: `python -m cara.serve` as deployed, `--workers` processes (default: WEB_CONCURRENCY, else
the deployment default of one per usable core); the count is printed. `--profile PATH`: py-spy
raw stacks of one server process under the first-page load, top frames printed.

Servers: BENCH_DATABASE_URL / BENCH_REDIS_URL as for foundation.py; a throwaway database unless
`--keep-db`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import httpx
from _common import (
    REPO,
    ApiServer,
    Login,
    Summary,
    create_doctors,
    database_backend_cpu,
    log,
    plain_conninfo,
    process_cpu_seconds,
    run_bench,
)
from request_overhead import BareServer, ensure_wrk, print_top_frames

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
    workers: int
    keep_db: str | None = None
    only: str = ""
    profile: str | None = None

    def __str__(self) -> str:
        return (
            f"{self.consultations} consultations x {self.lines} lines for one doctor "
            f"(+{self.consultations // 10} for a second doctor in the same schema), "
            f"wrk -t1 -c{self.concurrency}, {self.warmup:g} s warm-up + {self.duration:g} s per scenario, "
            f"python -m cara.serve with {self.workers} server process(es)"
        )


def parse_args(argv: Sequence[str] | None) -> Plan:
    from cara.serve import web_concurrency  # reads no settings

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--consultations", type=int, default=5000)
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument(
        "--workers", help="server processes (default: WEB_CONCURRENCY, else one per usable core, as deployed)"
    )
    parser.add_argument("--keep-db", help="seed this database once and keep it; later runs reuse it")
    parser.add_argument("--only", default="", help="only the scenarios whose name contains this text")
    parser.add_argument("--profile", help="py-spy raw stacks of a server process under the first-page load")
    parser.add_argument("--quick", action="store_true", help="500 consultations x 50 lines, 3 s: a smoke run")
    args = parser.parse_args(argv)
    workers = web_concurrency(args.workers)
    if args.quick:
        return Plan(500, 50, args.concurrency, 3.0, 1.0, workers, args.keep_db, args.only, args.profile)
    return Plan(
        args.consultations,
        args.lines,
        args.concurrency,
        args.duration,
        2.0,
        workers,
        args.keep_db,
        args.only,
        args.profile,
    )


class ServeServer(ApiServer):
    """`python -m cara.serve --workers N`, the deployed server, as a child process (ApiServer runs
    one bare uvicorn worker). Its CPU is that of the supervisor and every server process."""

    def __init__(self, log_path: Path, workers: int) -> None:
        from cara_devstack import embedded

        self._embedded = embedded
        self.workers = workers
        self.port = embedded.free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self._log = log_path.open("wb")
        argv = [sys.executable, "-m", "cara.serve", "--host", "127.0.0.1", "--port", str(self.port)]
        argv += ["--workers", str(workers)]
        env = {k: v for k, v in os.environ.items() if k not in ("FIRST_ADMIN_EMAIL", "FIRST_ADMIN_PASSWORD")}
        self.process = embedded.spawn(
            argv, death_signal=signal.SIGTERM, cwd=REPO, env=env, stdout=self._log, stderr=subprocess.STDOUT
        )

    def pids(self) -> list[int]:
        """The supervisor and its server processes."""
        found, todo = [], [self.process.pid]
        while todo:
            pid = todo.pop()
            found.append(pid)
            try:
                for task in Path(f"/proc/{pid}/task").iterdir():
                    todo += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                pass
        return found

    def cpu_seconds(self) -> float:
        return sum(process_cpu_seconds(pid) for pid in self.pids())

    def tail(self, lines: int = 20) -> str:
        text = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join([line for line in text if '"level": "info"' not in line][-lines:])


# wrk's load: the paths in turn (one per request), every request with the doctor's token.
_LUA = """
local paths = {%(paths)s}
local headers = {["Authorization"] = "Bearer %(token)s"}
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", paths[(n %% #paths) + 1], headers)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("CARA %%d %%d %%d %%d %%d %%d\\n", summary.requests, summary.duration,
    e.status, e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(99)))
end
"""


@dataclass
class Load:
    requests: int
    seconds: float
    errors: int
    p50: float
    p99: float
    server_cpu: float  # every server process, the measured window
    database_cpu: float  # the bench database's backends, same window

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def cpu_ms(self) -> float:
        return self.server_cpu / self.requests * 1000 if self.requests else float("nan")

    @property
    def db_ms(self) -> float:
        return self.database_cpu / self.requests * 1000 if self.requests else float("nan")

    def line(self) -> str:
        return (
            f"{self.rps:6.0f} req/s  p50 {self.p50:6.1f} ms  p99 {self.p99:6.1f} ms  CPU/request server "
            f"{self.cpu_ms:.2f} ms, PostgreSQL {self.db_ms:.2f} ms"
            + (f"  errors {self.errors}" if self.errors else "")
        )


def wrk(
    binary: str,
    base_url: str,
    paths: Sequence[str],
    token: str,
    *,
    seconds: float,
    connections: int,
    cpu: Callable[[], float],
) -> Load:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(_LUA % {"paths": ", ".join(json.dumps(p) for p in paths), "token": token})
    script_args = ("-s", script.name, base_url)
    try:
        server, database = cpu(), database_backend_cpu()
        done = subprocess.run(
            [
                binary,
                "-t1",
                "--timeout",
                "30s",
                f"-c{connections}",
                f"-d{max(1, round(seconds))}s",
                *script_args,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        server = cpu() - server
        after = database_backend_cpu()
    finally:
        os.unlink(script.name)
    found = re.search(r"^CARA (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$", done.stdout, re.M)
    if not found:
        raise RuntimeError(f"unexpected wrk output:\n{done.stdout}\n{done.stderr}")
    n, micros, status, sock, p50, p99 = (int(x) for x in found.groups())
    db = sum(t - database.get(pid, 0.0) for pid, t in after.items())
    return Load(n, micros / 1e6, status + sock, p50 / 1000, p99 / 1000, server, db)


def load_average() -> str:
    return "load average " + " ".join(Path("/proc/loadavg").read_text().split()[:3])


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


def seeded_doctors(plan: Plan) -> tuple[Login, Login] | None:
    """On a kept database: the two doctors an earlier run seeded, with fresh tokens, after
    migrating their schema to the current head; None when nothing is seeded yet."""
    from sqlalchemy import text

    from cara.auth import tokens
    from cara.kit.db import get_engine
    from tenants import migrate
    from tenants.naming import INDEPENDENT_SCHEMA as schema

    with get_engine().begin() as conn:
        if conn.execute(text("SELECT to_regclass(:t)"), {"t": f'"{schema}".consultations'}).scalar() is None:
            return None
        counts = conn.execute(
            text(
                f'SELECT doctor_account_id, count(*) FROM "{schema}".consultations'
                " GROUP BY 1 ORDER BY 2 DESC LIMIT 2"
            )
        ).all()
        if not counts:
            return None
        if [n for _, n in counts] != [plan.consultations, plan.consultations // 10]:
            raise SystemExit(
                f"the kept database holds {[n for _, n in counts]} consultations, not this plan's; "
                "drop it or name another with --keep-db"
            )
        migrate.upgrade_tenant_schema(conn, schema)
    return tuple(  # type: ignore[return-value]
        Login(uuid.UUID(str(i)), schema, tokens.issue(account_id=i, role="doctor", tenant_schema=schema))
        for i, _ in counts
    )


def main(argv: Sequence[str] | None = None) -> int:
    plan = parse_args(argv)
    summary = Summary()
    binary = ensure_wrk()

    def body(api: ApiServer) -> None:
        assert isinstance(api, ServeServer)
        found = seeded_doctors(plan) if plan.keep_db else None
        if found is not None:
            doctor, other = found
            log(f"reusing the seeded consultations of {plan.keep_db}")
        else:
            log("creating two independent doctors")
            doctor, other = create_doctors([None, None])
            log(f"seeding {plan.consultations} consultations x {plan.lines} lines")
            started = time.perf_counter()
            seed(doctor.schema, str(doctor.account_id), plan.consultations, plan.lines)
            seed(other.schema, str(other.account_id), plan.consultations // 10, plan.lines)
            log(f"seeded in {time.perf_counter() - started:.1f} s")
        headers = {"Authorization": f"Bearer {doctor.token}"}
        url = f"{api.base_url}/api/consultations"
        first = httpx.get(url, headers=headers, timeout=30)
        assert first.status_code == 200 and len(first.json()["items"]) == 20, first.text[:300]
        if found is None:
            started = time.perf_counter()
            gather_as_upgrade(doctor.schema)
            summary.add(
                "search documents gathered at upgrade (t0007, one-off)",
                f"{(time.perf_counter() - started) * 1000:.0f} ms",
            )
            started = time.perf_counter()
            cold = httpx.get(url, params={"q": "biopsy"}, headers=headers, timeout=300)
            assert cold.status_code == 200, cold.text[:300]
            summary.add("first search after the upgrade", f"{(time.perf_counter() - started) * 1000:.0f} ms")
        cursor, depth = deep_cursor(api, doctor.token, int(plan.consultations * 0.8))
        rare = httpx.get(url, params={"q": RARE_WORD, "limit": "100"}, headers=headers, timeout=30)
        patient = f"KB-{10000 + plan.consultations // 2}"
        scenarios: list[tuple[str, dict[str, str], float]] = [
            ("first page", {}, PAGE_TARGET_MS),
            (f"deep page (after row {depth})", {"cursor": cursor}, PAGE_TARGET_MS),
            ("search 'pain' (in every consultation)", {"q": "pain"}, SEARCH_TARGET_MS),
            (
                f"search '{RARE_WORD}' ({len(rare.json()['items'])} consultations)",
                {"q": RARE_WORD},
                SEARCH_TARGET_MS,
            ),
            (f"search patient '{patient}'", {"q": patient}, SEARCH_TARGET_MS),
            (
                "search 'pain' + state=signed, deep",
                {"q": "pain", "state": "signed", "cursor": cursor},
                SEARCH_TARGET_MS,
            ),
        ]
        print(f"\nserver: python -m cara.serve, {api.workers} process(es): pids {api.pids()}", flush=True)

        def measure(
            name: str, base: str, paths: Sequence[str], cpu: Callable[[], float]
        ) -> tuple[Load, Load]:
            wrk(binary, base, paths, doctor.token, seconds=plan.warmup, connections=plan.concurrency, cpu=cpu)
            loaded = wrk(
                binary,
                base,
                paths,
                doctor.token,
                seconds=plan.duration,
                connections=plan.concurrency,
                cpu=cpu,
            )
            serial = wrk(
                binary, base, paths, doctor.token, seconds=min(plan.duration, 4.0), connections=1, cpu=cpu
            )
            print(
                f"\n== {name}  ({load_average()})\n"
                f"c={plan.concurrency}: {loaded.line()}\nc=1:  {serial.line()}",
                flush=True,
            )
            return loaded, serial

        # The baselines: the floor of an authenticated request, and a bare app with the same bytes.
        floor, _ = measure(
            "GET /api/auth/user (the floor of an authenticated request)",
            api.base_url,
            ["/api/auth/user"],
            api.cpu_seconds,
        )
        summary.add(
            f"floor: GET /api/auth/user, c={plan.concurrency}",
            f"{floor.rps:.0f} req/s, p50 {floor.p50:.1f} / p99 {floor.p99:.1f} ms, "
            f"cpu/req server {floor.cpu_ms:.2f} ms, PostgreSQL {floor.db_ms:.2f} ms",
        )
        bare_loads: dict[str, Load] = {}
        with tempfile.TemporaryDirectory(prefix="cara-bare-") as tmp:
            responses = Path(tmp) / "responses.json"
            import base64

            responses.write_text(
                json.dumps(
                    {
                        "/api/consultations": (
                            200,
                            "application/json",
                            base64.b64encode(first.content).decode(),
                        )
                    }
                )
            )
            bare = BareServer(
                Path(tmp) / "bare.log",
                responses,
                database=plain_conninfo(os.environ["DATABASE_URL"]),
                accounts=str(doctor.account_id),
                workers=plan.workers,
            )
            try:
                bare.wait_ready("/api/consultations")
                # wrk sends the Lua script's paths: the floor's prefix goes there, not in the URL.
                for which, prefix in (("bare", ""), ("bare + 1 read", "/floor")):
                    bare_loads[which], _ = measure(
                        f"{which}: the first page's bytes (bare_app.py, {plan.workers} process(es))",
                        bare.base_url,
                        [f"{prefix}/api/consultations"],
                        bare.cpu_seconds,
                    )
            finally:
                bare.stop()
        for which, load in bare_loads.items():
            summary.add(
                f"{which} (first page's bytes), c={plan.concurrency}",
                f"{load.rps:.0f} req/s, p50 {load.p50:.1f} / p99 {load.p99:.1f} ms, "
                f"cpu/req server {load.cpu_ms:.2f} ms",
            )
        results: dict[str, Load] = {}
        for name, params, target in scenarios:
            if plan.only and plan.only not in name:
                continue
            path = "/api/consultations" + (f"?{urlencode(params)}" if params else "")
            check = httpx.get(f"{api.base_url}{path}", headers=headers, timeout=30)
            assert check.status_code == 200, check.text[:300]
            loaded, serial = measure(
                f"GET /api/consultations {name}: {len(check.json()['items'])} rows",
                api.base_url,
                [path],
                api.cpu_seconds,
            )
            results[name] = loaded
            summary.add(
                f"{name}, c={plan.concurrency}",
                f"{loaded.rps:.0f} req/s, p50 {loaded.p50:.1f} / p99 {loaded.p99:.1f} ms, cpu/req server "
                f"{loaded.cpu_ms:.2f} ms ({loaded.cpu_ms / floor.cpu_ms:.1f}x floor), "
                f"PostgreSQL {loaded.db_ms:.2f} ms" + (f", errors {loaded.errors}" if loaded.errors else ""),
                f"p99 < {target:g} ms",
                loaded.p99 < target and not loaded.errors,
            )
            summary.add(
                "  same, c=1 (unqueued)",
                f"{serial.rps:.0f} req/s, p50 {serial.p50:.1f} / p99 {serial.p99:.1f} ms, "
                f"cpu/req server {serial.cpu_ms:.2f} ms",
            )
        if "first page" in results and "bare" in bare_loads:
            page, bare_page = results["first page"], bare_loads["bare"]
            summary.add(
                "first page / bare (same bytes)",
                f"req/s {page.rps / bare_page.rps:.2f}x, p50 {page.p50 / bare_page.p50:.1f}x, "
                f"CPU {page.cpu_ms / bare_page.cpu_ms:.1f}x",
            )
        summary.add("machine", f"{os.cpu_count()} CPUs, {load_average()} at the end")
        if plan.profile:
            import shutil

            spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
            # A server process: the busiest of the supervisor's children (or the one process).
            target_pid = max(api.pids()[1:] or api.pids(), key=process_cpu_seconds)
            spy_args = ("--duration", str(round(plan.duration)), "--nonblocking", "--output", plan.profile)
            recorder = subprocess.Popen(
                [
                    spy,
                    "record",
                    "--pid",
                    str(target_pid),
                    "--gil",
                    "--rate",
                    "200",
                    "--format",
                    "raw",
                    *spy_args,
                ],
                stdout=subprocess.DEVNULL,
            )
            time.sleep(0.5)
            wrk(
                binary,
                api.base_url,
                ["/api/consultations"],
                doctor.token,
                seconds=plan.duration,
                connections=plan.concurrency,
                cpu=api.cpu_seconds,
            )
            recorder.wait(timeout=plan.duration + 30)
            print_top_frames(Path(plan.profile))

    return run_bench(
        plan, summary, body, keep_db=plan.keep_db, server=lambda path: ServeServer(path, plan.workers)
    )


if __name__ == "__main__":
    sys.exit(main())
