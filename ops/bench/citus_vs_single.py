"""One PostgreSQL against a Citus coordinator with two workers: the same requests, in one run.

    .venv/bin/python ops/bench/citus_vs_single.py [--hospitals 40] [--doctors 300] [--concurrency 20]
                                                 [--duration 10] [--rounds 2] [--quick]

Prints figures only; the target (cluster / single >= 0.7 on one machine, where the cluster only adds
network hops and two-phase commits and no capacity) is printed next to them.

Two deployments are set up side by side and kept running for the whole run, so they share the same
background load: a `cara_bench_<random>` database on the single PostgreSQL server
(BENCH_DATABASE_URL; without it an embedded server is started, as for the other benchmarks) and one
on the local Citus cluster (ops/citus/cluster, started when not running and stopped again at the
end), each with its own uvicorn worker. Each gets `--hospitals` hospitals with one
hospital-created doctor each, and `--doctors` more doctors with filled-in profiles in the first
hospital (doctor_list.py's set-up).

Measured, rounds alternating single/cluster and cluster/single, wrk as the load generator
(installed with apt-get when missing and run as root):

1. tenant-scoped throughput: `GET /api/auth/user` with the tokens of the doctors of every hospital
   in turn (each answer reads the doctor's profile from their own tenant schema);
2. the doctor list: `GET /api/doctors?hospitalId=<own>` as the first hospital;
3. cross-tenant admin work: `GET /api/admin/stats` (platform tables and rollups only) at one client,
   the analytics rollup refresh (`cara.analytics.rollups.refresh_all`), and a query that reads every
   tenant schema (the doctors of all hospitals counted in one statement), which on the cluster fans
   out to every worker.

Redis: BENCH_REDIS_URL (a spare db index: it is flushed), else as for the other benchmarks. The
throwaway databases and their tenant roles are dropped at the end, even on error.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
from _common import (
    REPO,
    ApiServer,
    Login,
    Servers,
    Summary,
    _exit_on_sigterm,
    configure_env,
    create_doctors,
    create_hospitals,
    log,
    plain_conninfo,
    prepare_database,
    process_cpu_seconds,
    servers,
)
from doctor_list import fill_profiles

RATIO_TARGET = 0.7
CLUSTER = REPO / "ops" / "citus" / "cluster"
CITUS_PORT = int(os.environ.get("CITUS_PORT", "5440"))
ADMIN_EMAIL = "bench-admin@example.com"
ADMIN_PASSWORD = "bench-admin-pass"  # noqa: S105 - a throwaway account in a throwaway database


@dataclass(frozen=True)
class Plan:
    hospitals: int
    doctors: int
    concurrency: int
    duration: float
    warmup: float
    rounds: int
    poolers: bool = True
    worker_sslmode: str | None = None

    def __str__(self) -> str:
        return (
            f"{self.hospitals} hospitals (one doctor each), {self.doctors} doctors listed in the first, "
            f"c={self.concurrency}, {self.warmup:g} s warm-up + {self.duration:g} s, {self.rounds} rounds; "
            + (
                "coordinator -> workers through a PgBouncer beside each"
                if self.poolers
                else "direct to workers"
            )
            + (f", citus.node_conninfo sslmode={self.worker_sslmode}" if self.worker_sslmode else "")
        )


def parse_args(argv: Sequence[str] | None) -> Plan:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hospitals", type=int, default=40)
    parser.add_argument("--doctors", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="10 hospitals, 50 doctors, 3 s, 1 round")
    parser.add_argument(
        "--direct",
        action="store_true",
        help="the coordinator connects to the workers directly, not through their PgBouncers",
    )
    parser.add_argument(
        "--worker-sslmode",
        choices=("disable", "prefer", "require"),
        help="the coordinator's citus.node_conninfo sslmode for this run (default: as configured, "
        "Citus's default is require): what TLS to the workers costs on one host",
    )
    args = parser.parse_args(argv)
    if args.quick:
        return Plan(10, 50, args.concurrency, 3.0, 1.0, 1, not args.direct, args.worker_sslmode)
    return Plan(
        args.hospitals,
        args.doctors,
        args.concurrency,
        args.duration,
        2.0,
        args.rounds,
        not args.direct,
        args.worker_sslmode,
    )


# ---------------------------------------------------------------- wrk

_LUA = """
local tokens = {%(tokens)s}
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, {["Authorization"] = "Bearer " .. tokens[(n %% #tokens) + 1],
                               ["Accept-Encoding"] = "gzip"})
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("CARA %%d %%d %%d %%d %%d %%d %%d %%d\\n", summary.requests, summary.duration,
    e.status, e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), latency.max))
end
"""


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        log("installing wrk (apt-get)")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        if subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], env=env, check=False).returncode:
            subprocess.run(["apt-get", "update", "-qq"], env=env, check=True)
            subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], env=env, check=True)
        found = shutil.which("wrk")
    if not found:
        raise SystemExit("wrk is needed (Debian: apt-get install wrk)")
    return found


@dataclass
class Load:
    requests: int = 0
    seconds: float = 0.0
    bad_status: int = 0
    socket_errors: int = 0
    p50_ms: list[float] = field(default_factory=list)
    p99_ms: list[float] = field(default_factory=list)
    server_cpu: float = 0.0
    database_cpu: float = 0.0

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def errors(self) -> int:
        return self.bad_status + self.socket_errors

    def per_request(self, seconds: float) -> float:
        return seconds / self.requests * 1000 if self.requests else float("nan")

    @property
    def cpu_per_request(self) -> float:
        """API and database CPU per request, ms: what bounds the rate on a machine of its own."""
        return self.per_request(self.server_cpu + self.database_cpu)

    def line(self) -> str:
        return (
            f"{self.rps:.0f} req/s, p50 {statistics.median(self.p50_ms):.1f} / "
            f"p99 {statistics.median(self.p99_ms):.1f} ms, CPU ms/request: API "
            f"{self.per_request(self.server_cpu):.2f} + database {self.per_request(self.database_cpu):.2f}"
            + (f", non-2xx {self.bad_status}" if self.bad_status else "")
            + (f", socket errors/timeouts {self.socket_errors}" if self.socket_errors else "")
        )


def wrk(
    binary: str,
    api: ApiServer,
    path: str,
    tokens: Sequence[str],
    *,
    seconds: float,
    connections: int,
    database_cpu: Callable[[], float] = lambda: 0.0,
) -> Load:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(_LUA % {"tokens": ", ".join(f'"{t}"' for t in tokens)})
    try:
        db_cpu = database_cpu()
        cpu = process_cpu_seconds(api.process.pid)
        done = subprocess.run(
            [
                binary,
                "-t1",
                # Well past any answer time here: a slow answer counts as slow, not as an error.
                "--timeout",
                "30s",
                f"-c{connections}",
                f"-d{max(1, round(seconds))}s",
                "-s",
                script.name,
                f"{api.base_url}{path}",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        cpu = process_cpu_seconds(api.process.pid) - cpu
        db_cpu = database_cpu() - db_cpu
    finally:
        os.unlink(script.name)
    found = re.search(r"^CARA (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$", done.stdout, re.M)
    if not found:
        raise RuntimeError(f"unexpected wrk output:\n{done.stdout}\n{done.stderr}")
    n, micros, status, sock, p50, _p95, p99, _max = (int(x) for x in found.groups())
    return Load(n, micros / 1e6, status, sock, [p50 / 1000], [p99 / 1000], cpu, db_cpu)


def merge(into: Load, more: Load) -> None:
    into.requests += more.requests
    into.seconds += more.seconds
    into.bad_status += more.bad_status
    into.socket_errors += more.socket_errors
    into.p50_ms += more.p50_ms
    into.p99_ms += more.p99_ms
    into.server_cpu += more.server_cpu
    into.database_cpu += more.database_cpu


# ---------------------------------------------------------------- database CPU

_TICK = os.sysconf("SC_CLK_TCK")
CITUS_DATA = Path(os.environ.get("CITUS_DATA", REPO / ".data" / "citus"))


def _cpu(pid: int) -> tuple[int, float, float]:
    """(parent pid, own CPU s, CPU s of reaped children) of a live process; (0, 0, 0) if gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0, 0.0, 0.0
    own = (int(fields[11]) + int(fields[12])) / _TICK
    return int(fields[1]), own, (int(fields[13]) + int(fields[14])) / _TICK


def tree_cpu(pids: Sequence[int]) -> float:
    """CPU seconds of the processes and their children, living or reaped (a server's backends)."""
    stats = {int(p): _cpu(int(p)) for p in os.listdir("/proc") if p.isdigit()}
    total = 0.0
    for pid in pids:
        total += stats.get(pid, (0, 0.0, 0.0))[1] + stats.get(pid, (0, 0.0, 0.0))[2]
        total += sum(own + reaped for parent, own, reaped in stats.values() if parent == pid)
    return total


def cluster_cpu() -> float:
    """Every process of the local cluster: each node's postmaster and backends, and the workers'
    PgBouncers. Only this benchmark uses the cluster while it runs."""
    pids = []
    for pidfile in (*CITUS_DATA.glob("nodes/*/postmaster.pid"), *CITUS_DATA.glob("nodes/*/pgbouncer.pid")):
        try:
            pids.append(int(pidfile.read_text().split()[0]))
        except (OSError, ValueError, IndexError):
            continue
    return tree_cpu(pids)


def backends_cpu(db_url: str) -> Callable[[], float]:
    """CPU of the backends connected to one database of a shared server (the API's pool, steady
    under load), found by their process titles ("postgres: <user> <database> ..."); the server's
    other work is not this benchmark's."""
    marker = f" {db_url.rsplit('/', 1)[-1]} ".encode()

    def measure() -> float:
        total = 0.0
        for pid in (p for p in os.listdir("/proc") if p.isdigit()):
            try:
                title = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if title.startswith(b"postgres: ") and marker in title:
                total += _cpu(int(pid))[1]
        return total

    return measure


# ---------------------------------------------------------------- the two deployments


@dataclass
class Deployment:
    name: str
    found: Servers
    env: dict[str, str] = field(default_factory=dict)
    api: ApiServer | None = None
    hospitals: list[Login] = field(default_factory=list)
    doctors: list[Login] = field(default_factory=list)
    hospital_id: str = ""
    admin_token: str = ""
    database_cpu: Callable[[], float] = lambda: 0.0


def use(deployment: Deployment) -> None:
    """Point this process's settings and engine at the deployment's database."""
    from cara.config import get_settings
    from cara.kit.db import reset_engine

    os.environ.update(deployment.env)
    get_settings.cache_clear()
    reset_engine()


def cluster(*args: str) -> str:
    done = subprocess.run([str(CLUSTER), *args], capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"ops/citus/cluster {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def coordinator_up() -> bool:
    try:
        psycopg.connect(
            f"host=127.0.0.1 port={CITUS_PORT} user=postgres dbname=postgres", connect_timeout=2
        ).close()
    except psycopg.OperationalError:
        return False
    return True


@contextmanager
def worker_sslmode(mode: str | None) -> Iterator[None]:
    """The coordinator's `citus.node_conninfo` sslmode for the run (a server setting), then reset."""
    if mode is None:
        yield
        return
    conninfo = f"host=127.0.0.1 port={CITUS_PORT} user=postgres dbname=postgres"

    def apply(sql: str) -> None:
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute(sql)
            conn.execute("SELECT pg_reload_conf()")

    apply(f"ALTER SYSTEM SET citus.node_conninfo = 'sslmode={mode}'")
    log(f"coordinator -> workers with sslmode={mode}")
    try:
        yield
    finally:
        apply("ALTER SYSTEM RESET citus.node_conninfo")


@contextmanager
def citus_database(redis_url: str, *, poolers: bool = False) -> Iterator[Servers]:
    """A `cara_bench_<random>` database on the local cluster, with its workers registered (and
    reached through a PgBouncer beside each, with `poolers`: ops/citus/cluster poolers)."""
    started_here = not coordinator_up()
    if started_here:
        log("starting the local Citus cluster (ops/citus/cluster start)")
        cluster("start")
    name = f"cara_bench_{secrets.token_hex(4)}"
    cluster("createdb", name)
    log(f"created database {name} on the Citus coordinator (127.0.0.1:{CITUS_PORT})")
    if poolers:
        cluster("poolers", name)
        log(
            f"the coordinator reaches the workers through PgBouncer"
            f" (ports {CITUS_PORT + 101}, {CITUS_PORT + 102})"
        )
    server = f"postgresql+psycopg://postgres@127.0.0.1:{CITUS_PORT}/postgres"
    try:
        yield Servers(server, redis_url, f"postgresql+psycopg://postgres@127.0.0.1:{CITUS_PORT}/{name}", name)
    finally:
        try:
            from cara.kit.db import reset_engine

            reset_engine()
        except Exception as exc:  # still drop the database
            log(f"warning: could not dispose the engine: {exc}")
        cluster("dropdb", name)
        from sqlalchemy import create_engine
        from sqlalchemy.pool import NullPool

        from tenants.roles import drop_roles

        for port in (CITUS_PORT, CITUS_PORT + 1, CITUS_PORT + 2):
            engine = create_engine(
                f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres", poolclass=NullPool
            )
            with engine.begin() as conn:
                drop_roles(conn, name)
            engine.dispose()
        log(f"dropped database {name} and its tenant roles on every node")
        if started_here:
            cluster("stop")
            log("stopped the Citus cluster")


def cached_worker_connections(found: Servers) -> str:
    """The cluster database's worker connection policy (tenants.citus.limit_worker_connections)."""
    with psycopg.connect(plain_conninfo(found.db_url)) as conn:
        cached, lifetime, throttle = (
            conn.execute(f"SHOW {name}").fetchone()[0]  # type: ignore[index]
            for name in (
                "citus.max_cached_conns_per_worker",
                "citus.max_cached_connection_lifetime",
                "citus.max_shared_pool_size",
            )
        )
    return (
        f"worker connections cached per worker and role: {cached}"
        + (f" (lifetime {lifetime})" if cached != "0" else "")
        + f", citus.max_shared_pool_size {throttle}"
    )


def set_up(deployment: Deployment, plan: Plan, stack: ExitStack, log_dir: Path) -> None:
    # The admin signs in with a password alone (no TOTP enrolment) in this throwaway database.
    configure_env(
        deployment.found,
        {
            "FIRST_ADMIN_EMAIL": ADMIN_EMAIL,
            "FIRST_ADMIN_PASSWORD": ADMIN_PASSWORD,
            "ADMIN_MFA_REQUIRED": "false",
        },
    )
    deployment.env = {
        k: os.environ[k]
        for k in (
            "CARA_ENV",
            "DATABASE_URL",
            "REDIS_URL",
            "JWT_SECRET",
            "OTEL_TRACES_EXPORTER",
            "ADMIN_MFA_REQUIRED",
        )
    }
    deployment.env.update(FIRST_ADMIN_EMAIL=ADMIN_EMAIL, FIRST_ADMIN_PASSWORD=ADMIN_PASSWORD)
    use(deployment)
    prepare_database()
    from cara.admin_console.service import ensure_first_admin
    from cara.analytics import rollups
    from cara.kit.db import session_scope

    with session_scope() as session:
        ensure_first_admin(session)
    log(f"{deployment.name}: creating {plan.hospitals} hospitals and their doctors")
    deployment.hospitals = create_hospitals(plan.hospitals)
    deployment.doctors = create_doctors(deployment.hospitals)
    create_doctors([deployment.hospitals[0]] * plan.doctors)
    fill_profiles(deployment.hospitals[0].schema)
    with session_scope() as session:
        rollups.refresh_all(session)
    api = ApiServer(log_dir / f"uvicorn-{deployment.name}.log")
    stack.callback(api.stop)
    api.wait_ready()
    deployment.api = api
    auth = {"Authorization": f"Bearer {deployment.hospitals[0].token}"}
    from cara.kit.db import platform_session
    from cara.models import Account

    with platform_session() as session:
        owner = session.get(Account, deployment.hospitals[0].account_id)
        assert owner is not None and owner.hospital_id is not None
        deployment.hospital_id = str(owner.hospital_id)
    listed = httpx.get(
        f"{api.base_url}/api/doctors",
        params={"hospitalId": deployment.hospital_id, "isHospitalCreated": "true"},
        headers=auth,
    )
    assert listed.status_code == 200 and len(listed.json()) == plan.doctors + 1, listed.text[:300]
    login = httpx.post(
        f"{api.base_url}/api/auth/login",
        json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "role": "admin"},
    )
    assert login.status_code == 200, login.text
    deployment.admin_token = login.json()["token"]
    log(f"{deployment.name}: uvicorn ready on {api.base_url}")


def timed(run: Callable[[], object], times: int = 5) -> float:
    """Median wall time of `run`, in ms."""
    spent = []
    for _ in range(times):
        started = time.perf_counter()
        run()
        spent.append((time.perf_counter() - started) * 1000)
    return statistics.median(spent)


def admin_work(deployment: Deployment) -> dict[str, float]:
    from sqlalchemy import text

    from cara.analytics import rollups
    from cara.kit.db import get_engine, session_scope

    use(deployment)

    def refresh() -> None:
        with session_scope() as session:
            rollups.refresh_all(session)

    with get_engine().connect() as conn:
        schemas = list(conn.execute(text("SELECT schema_name FROM platform.tenants")).scalars())
    every_tenant = text(
        "SELECT sum(n) FROM ("
        + " UNION ALL ".join(f'SELECT count(*) AS n FROM "{s}".doctors' for s in schemas)
        + ") c"
    )

    def fan_out() -> None:
        with get_engine().connect() as conn:
            conn.execute(every_tenant).scalar_one()

    fan_out()
    return {"refresh": timed(refresh), "fan_out": timed(fan_out)}


def main(argv: Sequence[str] | None = None) -> int:
    plan = parse_args(argv)
    binary = ensure_wrk()
    signal.signal(signal.SIGTERM, _exit_on_sigterm)  # the databases are dropped on the way out
    summary = Summary()
    with ExitStack() as stack:
        single_found = stack.enter_context(servers(stack))
        citus_found = stack.enter_context(citus_database(single_found.redis_url, poolers=plan.poolers))
        stack.enter_context(worker_sslmode(plan.worker_sslmode))
        log_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cara-bench-")))
        single = Deployment("single", single_found, database_cpu=backends_cpu(single_found.db_url))
        citus = Deployment("citus", citus_found, database_cpu=cluster_cpu)
        try:
            with ExitStack() as apis:  # both uvicorn servers stop before their databases are dropped
                for deployment in (single, citus):
                    set_up(deployment, plan, apis, log_dir)
                print(
                    f"host: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}; wrk -t1\n"
                    f"single: {single_found.db_url.rsplit('@', 1)[-1]}\n"
                    f"citus:  {citus_found.db_url.rsplit('@', 1)[-1]} (coordinator; workers on "
                    f"{CITUS_PORT + 1} and {CITUS_PORT + 2}, same host)\n"
                    f"redis:  {single_found.redis_url}\nplan:   {plan}\n"
                    f"cluster: {cached_worker_connections(citus_found)}",
                    flush=True,
                )
                measure(binary, plan, single, citus, summary)
        finally:
            summary.print()
    return 0


def measure(binary: str, plan: Plan, single: Deployment, citus: Deployment, summary: Summary) -> None:
    scenarios: dict[str, tuple[str, Callable[[Deployment], list[str]], int]] = {
        "tenant-scoped GET /api/auth/user": (
            "/api/auth/user",
            lambda d: [doctor.token for doctor in d.doctors],
            plan.concurrency,
        ),
        "doctor list GET /api/doctors": (
            "/api/doctors?isHospitalCreated=true&hospitalId={hospital}",
            lambda d: [d.hospitals[0].token],
            plan.concurrency,
        ),
        "admin GET /api/admin/stats (c=1)": (
            "/api/admin/stats?timeRange=monthly",
            lambda d: [d.admin_token],
            1,
        ),
    }
    results = {(name, d.name): Load() for name in scenarios for d in (single, citus)}
    for r in range(plan.rounds):
        order = (single, citus) if r % 2 == 0 else (citus, single)
        for name, (path, tokens, connections) in scenarios.items():
            for d in order:
                assert d.api is not None
                url = path.format(hospital=d.hospital_id)
                wrk(binary, d.api, url, tokens(d), seconds=plan.warmup, connections=connections)
                load = wrk(
                    binary,
                    d.api,
                    url,
                    tokens(d),
                    seconds=plan.duration,
                    connections=connections,
                    database_cpu=d.database_cpu,
                )
                merge(results[(name, d.name)], load)
                print(f"round {r + 1} {name} [{d.name}]: {load.line()}", flush=True)
    print()
    for name in scenarios:
        one, many = results[(name, "single")], results[(name, "citus")]
        ratio = many.rps / one.rps if one.rps else float("nan")
        print(f"{name}: single {one.line()}")
        print(f"{name}: citus  {many.line()}")
        print(f"{name}: cluster / single = {ratio:.2f}", flush=True)
        cpu_ratio = one.cpu_per_request / many.cpu_per_request
        print(
            f"{name}: CPU per request (API + database) single {one.cpu_per_request:.2f} ms, "
            f"citus {many.cpu_per_request:.2f} ms: single / cluster = {cpu_ratio:.2f}",
            flush=True,
        )
        target = name.startswith(("tenant-scoped", "doctor list"))
        summary.add(
            name,
            f"single {one.rps:.0f} req/s (p99 {statistics.median(one.p99_ms):.1f} ms), "
            f"citus {many.rps:.0f} req/s (p99 {statistics.median(many.p99_ms):.1f} ms): "
            f"{ratio:.2f}x" + (f", errors {one.errors + many.errors}" if one.errors + many.errors else ""),
            f">= {RATIO_TARGET}x" if target else "",
            (ratio >= RATIO_TARGET and not one.errors + many.errors) if target else None,
        )
        summary.add(
            f"{name}: CPU per request",
            f"single {one.cpu_per_request:.2f} ms, citus {many.cpu_per_request:.2f} ms "
            f"(API + database processes): single / cluster = {cpu_ratio:.2f}",
        )
    work = {d.name: admin_work(d) for d in (single, citus)}
    for key, label in (
        ("refresh", "analytics rollup refresh (refresh_all), median of 5"),
        ("fan_out", f"one query over every tenant schema ({plan.hospitals + 1}), median of 5"),
    ):
        a, b = work["single"][key], work["citus"][key]
        print(f"{label}: single {a:.1f} ms, citus {b:.1f} ms ({b / a:.1f}x the time)")
        summary.add(label, f"single {a:.1f} ms, citus {b:.1f} ms ({b / a:.1f}x the time)")


if __name__ == "__main__":
    sys.exit(main())
