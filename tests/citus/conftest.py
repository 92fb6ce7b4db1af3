"""The tests under tests/citus run the product on a local Citus cluster (ops/citus/cluster).

The cluster (a coordinator and two workers) is built once into .data/citus/ (by ./ops/test before
pytest starts, or here once collection has chosen a Citus test: either way outside any test's
timeout, with the build's progress printed) and started for the session; each test module
switches the application's DATABASE_URL to a database of its own on the coordinator for its
length and back afterwards, so the rest of the suite keeps running on plain PostgreSQL. The tests
carry the `citus` marker (`-m "not citus"` leaves them out); they are skipped, with the reason,
only where the cluster cannot be built or started.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "ops" / "citus" / "cluster"
PORT = int(os.environ.get("CITUS_PORT", "5440"))
WORKER_PORTS = (PORT + 1, PORT + 2)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "citus: runs on a local Citus cluster (ops/citus/cluster), built and started on first use"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.citus)


_build: dict[str, str] = {}


def pytest_collection_finish(session: pytest.Session) -> None:
    """Build Citus before the first test when a Citus test was selected and no build of these
    sources exists: the build takes minutes on a busy machine, more than a test's timeout."""
    here = Path(__file__).parent
    if not any(here in Path(str(item.fspath)).parents for item in session.items):
        return
    capture = session.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        print("\n==> Citus for tests/citus: ops/citus/cluster build (cached in .data/citus)", flush=True)
        try:
            done = subprocess.run([str(CLUSTER), "build"], text=True, timeout=3600, check=False)
        except (subprocess.TimeoutExpired, OSError) as exc:
            _build["error"] = str(exc)
            return
        if done.returncode != 0:
            _build["error"] = f"ops/citus/cluster build exited with {done.returncode}"


def cluster(*args: str, timeout: float = 600) -> str:
    done = subprocess.run([str(CLUSTER), *args], capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError((done.stderr or done.stdout).strip().splitlines()[-1:] or ["failed"])
    return done.stdout


def _coordinator_up() -> bool:
    try:
        psycopg.connect(
            f"host=127.0.0.1 port={PORT} user=postgres dbname=postgres", connect_timeout=2
        ).close()
    except psycopg.OperationalError:
        return False
    return True


def node_conninfo(port: int, dbname: str) -> str:
    return f"host=127.0.0.1 port={port} user=postgres dbname={dbname}"


@pytest.fixture(scope="session")
def citus_cluster() -> Iterator[int]:
    """The running cluster's coordinator port; started (and built) here when needed, and
    stopped at the end of the session if this session started it."""
    if "error" in _build:
        pytest.skip(f"Citus could not be built: {_build['error']}")
    started_here = not _coordinator_up()
    if started_here:
        try:
            cluster("start")
        except (RuntimeError, subprocess.TimeoutExpired, OSError) as exc:
            pytest.skip(f"Citus cluster unavailable (ops/citus/cluster start failed: {exc})")
    yield PORT
    if started_here:
        cluster("stop")


@dataclass
class CitusDatabase:
    name: str
    url: str
    port: int


def use_database(url: str) -> None:
    """Point the application (settings, engine, session factory) at `url`."""
    from cara.config import get_settings
    from cara.kit.db import reset_engine

    os.environ["DATABASE_URL"] = url
    get_settings.cache_clear()
    reset_engine()


@pytest.fixture(scope="session")
def citus_database(citus_cluster: int) -> Iterator[CitusDatabase]:
    """A Cara database on the cluster: platform migrated (reference tables made), the
    independent tenant provisioned, plans seeded, as the suite's own database."""
    name = f"cara_citus_{secrets.token_hex(4)}"
    cluster("createdb", name)
    url = f"postgresql+psycopg://postgres@127.0.0.1:{citus_cluster}/{name}"
    plain = os.environ["DATABASE_URL"]
    use_database(url)
    try:
        from cara.billing import catalog, stripe_api
        from cara.kit.db import get_engine, session_scope
        from cara.plans.seed import seed_plans
        from tenants import migrate
        from tenants.provisioning import ensure_independent_tenant

        migrate.upgrade_platform(get_engine())
        with session_scope() as session:
            ensure_independent_tenant(session)
            seed_plans(session)
            catalog.sync_catalog(session, stripe_api.client())
    finally:
        use_database(plain)
    yield CitusDatabase(name, url, citus_cluster)
    cluster("dropdb", name)
    # Tenant roles are cluster-wide, on every node: remove this database's everywhere.
    from sqlalchemy import create_engine

    from tenants.roles import drop_roles

    for port in (citus_cluster, *WORKER_PORTS):
        engine = create_engine(f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres")
        with engine.begin() as conn:
            drop_roles(conn, name)
        engine.dispose()


@pytest.fixture(scope="module", autouse=True)
def on_citus(citus_database: CitusDatabase) -> Iterator[CitusDatabase]:
    """Every test of the module runs against the cluster's database."""
    plain = os.environ["DATABASE_URL"]
    use_database(citus_database.url)
    yield citus_database
    use_database(plain)
