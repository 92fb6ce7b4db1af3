"""The tests under tests/pgbouncer run the product through a real PgBouncer in transaction mode.

A session fixture starts Debian's `pgbouncer` (its own port, trust authentication with an auth
file, `pool_mode = transaction`) in front of the suite's PostgreSQL database, with a small server
pool so that consecutive transactions of different clients and tenants share server connections.
Each test module switches the application (DATABASE_URL, DB_TRANSACTION_POOLING) to PgBouncer for
its length and back afterwards. Without the `pgbouncer` binary (ops/lib/bootstrap.sh installs it
where it may) the tests are skipped with that reason.

PgBouncer's `connect_query` gives every server connection the empty search path that the
application otherwise asks for with a startup option, which PgBouncer does not pass on.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from cara.kit.db import VOID_SCHEMA

# Server connections per (database, user) pool: small, so transactions share them.
POOL_SIZE = 3
# A second database name on the same PgBouncer with a single server connection: every client
# of it runs on one PostgreSQL backend, one transaction after another.
SINGLE = "cara_single"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.pgbouncer)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "pgbouncer: runs through a real PgBouncer in transaction mode (Debian's pgbouncer)"
    )


def _binary() -> str | None:
    return shutil.which("pgbouncer") or next(
        (path for path in ("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer") if os.access(path, os.X_OK)), None
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Bouncer:
    port: int
    url: str  # the application's database through PgBouncer
    single_url: str  # the same database through the one-connection pool
    user: str


@pytest.fixture(scope="session")
def pgbouncer() -> Iterator[Bouncer]:
    binary = _binary()
    if binary is None:
        pytest.skip("PgBouncer is not installed (Debian: apt-get install pgbouncer)")
    upstream = make_url(os.environ["DATABASE_URL"])
    host, port = upstream.host or "127.0.0.1", upstream.port or 5432
    user, database = upstream.username or "postgres", upstream.database
    password = f" password={upstream.password}" if upstream.password else ""
    listen = _free_port()
    workdir = Path(tempfile.mkdtemp(prefix="cara-pgbouncer-"))
    connect_query = f"connect_query='SET search_path = {VOID_SCHEMA}'"
    (workdir / "users.txt").write_text(f'"{user}" ""\n')
    (workdir / "pgbouncer.ini").write_text(
        "[databases]\n"
        f"{database} = host={host} port={port} dbname={database}{password} {connect_query}\n"
        f"{SINGLE} = host={host} port={port} dbname={database}{password} pool_size=1 {connect_query}\n"
        "[pgbouncer]\n"
        "listen_addr = 127.0.0.1\n"
        f"listen_port = {listen}\n"
        "unix_socket_dir =\n"
        "auth_type = trust\n"
        f"auth_file = {workdir / 'users.txt'}\n"
        "pool_mode = transaction\n"
        f"default_pool_size = {POOL_SIZE}\n"
        "max_client_conn = 500\n"
        # A transaction waiting longer than this for a server connection fails instead of hanging.
        "query_wait_timeout = 30\n"
        "ignore_startup_parameters = extra_float_digits,options\n"
        f"logfile = {workdir / 'pgbouncer.log'}\n"
        f"pidfile = {workdir / 'pgbouncer.pid'}\n"
    )
    argv = [binary]
    if os.getuid() == 0:  # PgBouncer refuses to run as root
        import pwd

        account = pwd.getpwnam("postgres")
        os.chown(workdir, account.pw_uid, account.pw_gid)
        for path in workdir.iterdir():
            os.chown(path, account.pw_uid, account.pw_gid)
        argv += ["-u", "postgres"]
    process = subprocess.Popen([*argv, str(workdir / "pgbouncer.ini")], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                psycopg.connect(
                    f"host=127.0.0.1 port={listen} user={user} dbname={database}", connect_timeout=2
                ).close()
                break
            except psycopg.OperationalError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log = workdir / "pgbouncer.log"
                    raise RuntimeError(
                        "PgBouncer did not start: "
                        + (log.read_text() if log.exists() else "")
                        + (
                            process.stderr.read().decode()
                            if process.stderr and process.poll() is not None
                            else ""
                        )
                    ) from None
                time.sleep(0.1)
        base = make_url(os.environ["DATABASE_URL"]).set(host="127.0.0.1", port=listen, password=None)
        yield Bouncer(
            port=listen,
            url=base.render_as_string(hide_password=False),
            single_url=base.set(database=SINGLE).render_as_string(hide_password=False),
            user=user,
        )
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        shutil.rmtree(workdir, ignore_errors=True)


def use_database(url: str, *, pooling: bool) -> None:
    """Point the application (settings, engine, session factory) at `url`."""
    from cara.config import get_settings
    from cara.kit.db import reset_engine

    os.environ["DATABASE_URL"] = url
    os.environ["DB_TRANSACTION_POOLING"] = "true" if pooling else "false"
    get_settings.cache_clear()
    reset_engine()


@pytest.fixture(scope="module", autouse=True)
def through_pgbouncer(pgbouncer: Bouncer) -> Iterator[Bouncer]:
    """Every test of the module reaches PostgreSQL through PgBouncer."""
    plain = os.environ["DATABASE_URL"]
    use_database(pgbouncer.url, pooling=True)
    try:
        yield pgbouncer
    finally:
        use_database(plain, pooling=False)
        os.environ.pop("DB_TRANSACTION_POOLING", None)
