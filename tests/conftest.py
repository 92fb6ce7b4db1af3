"""Test session setup: real PostgreSQL and Redis, a fresh database per run.

TEST_DATABASE_URL / TEST_REDIS_URL name servers to use (any database on the
server works: the suite creates its own `cara_test_<random>` next to it and
drops it at the end). Without them, embedded PostgreSQL and Redis are started
under .data/test-* for the length of the run.

Between tests every tenant schema except `independent` is dropped, platform
tables other than plans are emptied, and the Redis database is flushed, so
each test starts from the same seeded state.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import make_url

from tests.factories import auth

REPO = Path(__file__).resolve().parents[1]
_state: dict[str, Any] = {}


def _plain(url: str) -> str:
    """psycopg conninfo from an SQLAlchemy URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def pytest_configure(config: pytest.Config) -> None:
    db_server = os.environ.get("TEST_DATABASE_URL")
    redis_url = os.environ.get("TEST_REDIS_URL")
    if not db_server or not redis_url:
        from cara_devstack import embedded

        if not db_server:
            pg = embedded.start_postgres(REPO / ".data" / "test-postgres")
            _state["pg"] = pg
            db_server = pg.url
        if not redis_url:
            rd = embedded.start_redis(REPO / ".data" / "test-redis")
            _state["redis"] = rd
            redis_url = rd.url
    if "+psycopg" not in db_server:
        db_server = db_server.replace("postgresql://", "postgresql+psycopg://", 1)

    dbname = f"cara_test_{secrets.token_hex(4)}"
    with psycopg.connect(_plain(db_server), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{dbname}"')
    test_url = make_url(db_server).set(database=dbname).render_as_string(hide_password=False)
    _state.update(dbname=dbname, server=db_server)

    # Payments go to the project's Stripe double (cara_doubles.stripe) for the whole run, as in
    # ./ops/dev; tests/cara/billing drives it. The signup trial is off unless a test turns it on,
    # so the other tests' accounts start without a subscription.
    from cara_doubles.stripe import StripeDouble

    stripe_double = StripeDouble().start()
    _state["stripe"] = stripe_double
    os.environ.update(
        STRIPE_SECRET_KEY=stripe_double.secret_key,
        STRIPE_WEBHOOK_SECRET=stripe_double.webhook_secret,
        STRIPE_API_BASE=stripe_double.url,
        TRIAL_DAYS="0",
        # Hospitals count as verified at sign-up unless a test turns verification on
        # (tests/cara/auth/test_email_verification.py).
        HOSPITAL_EMAIL_VERIFICATION="false",
        # Admins sign in with a password alone unless a test requires two-factor of them
        # (tests/cara/auth/test_mfa.py).
        ADMIN_MFA_REQUIRED="false",
    )
    os.environ.update(
        CARA_ENV="test",
        DATABASE_URL=test_url,
        REDIS_URL=redis_url,
        JWT_SECRET="test-secret-" + secrets.token_hex(16),
        # Spans recorded for the tracing tests' in-process processors, none exported.
        OTEL_TRACES_EXPORTER="memory",
        PUBLIC_BASE_URL="http://testserver",
        LOGIN_MAX_FAILURES="5",
        # Servers the tests start (browser tests, fuzzing) run one process each: several test
        # servers share the machine's cores, and a test that needs two processes says so.
        WEB_CONCURRENCY="1",
    )
    # Tests sign up and call the assistant far more often than a person would: the abuse limits
    # are out of the way unless a test lowers one (tests/cara/auth/test_abuse_limits.py).
    from cara.config import Settings

    os.environ.update(
        {name.upper(): "100000 per hour" for name in Settings.model_fields if name.startswith("rate_limit_")}
    )
    os.environ.pop("SMTP_HOST", None)

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


def pytest_unconfigure(config: pytest.Config) -> None:
    if "dbname" in _state:
        from cara.kit.db import reset_engine

        reset_engine()
        from sqlalchemy import create_engine

        from tenants.roles import drop_roles

        with psycopg.connect(_plain(_state["server"]), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{_state["dbname"]}" WITH (FORCE)')
        # Tenant roles are cluster-wide: remove this run's once its database is gone.
        engine = create_engine(_state["server"])
        with engine.begin() as conn:
            drop_roles(conn, _state["dbname"])
        engine.dispose()
    for key in ("stripe", "redis", "pg"):
        if key in _state:
            _state[key].stop()


@pytest.fixture(autouse=True)
def clean_state() -> Iterator[None]:
    from cara.admin_console.service import forget_cached_stats
    from cara.kit.redis import get_redis

    get_redis().flushdb()
    forget_cached_stats()  # a stats answer of the previous test's data, kept a few seconds
    yield
    reset_database()
    get_redis().flushdb()


def reset_database() -> None:
    """Empty every table between tests.

    A test's background work (e.g. a live relay storing its last transcript
    line) can still hold locks for a moment; a deadlock with it is retried.
    """
    from psycopg.errors import DeadlockDetected
    from sqlalchemy.exc import OperationalError

    for attempt in range(5):
        try:
            _reset_database()
            return
        except OperationalError as exc:
            if not isinstance(exc.orig, DeadlockDetected) or attempt == 4:
                raise
            time.sleep(0.2 * (attempt + 1))


def _reset_database() -> None:
    from sqlalchemy import text

    from cara.kit.db import get_engine

    with get_engine().begin() as conn:
        schemas = conn.execute(
            text("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'hospital\\_%'")
        ).scalars()
        for schema in list(schemas):
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        # Every table by name: no key from a tenant schema into platform.accounts lets the
        # truncation of accounts below take a tenant table with it.
        conn.execute(
            text(
                "TRUNCATE independent.doctors, independent.audit_events,"
                " independent.consultations, independent.transcript_lines,"
                " independent.consultation_drafts, independent.consultation_notes,"
                " independent.consultation_note_entries, independent.record_settings,"
                " independent.recording_uploads, independent.recording_parts,"
                " independent.certificate_files, independent.imaging_studies,"
                " independent.pacs_settings, independent.plan_reviews,"
                " independent.plan_review_files, independent.structure_name_mappings"
            )
        )
        conn.execute(
            text(
                "TRUNCATE platform.audit_events, platform.provider_events, platform.payments,"
                " platform.subscriptions, platform.password_resets, platform.admin_invitations,"
                " platform.outbox_jobs, platform.tenant_rollups, platform.period_rollups,"
                " platform.pending_signups, platform.accounts, platform.hospitals CASCADE"
            )
        )
        conn.execute(text("DELETE FROM platform.tenants WHERE kind = 'hospital'"))


@pytest.fixture(scope="session")
def orthanc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's Orthanc with DICOMweb for the run: a free port, storage in a temporary directory
    removed at the end. Skips where Orthanc is not installed (ops/lib/bootstrap.sh installs it)."""
    import shutil

    from cara_devstack import embedded

    if not embedded.orthanc_installed():
        pytest.skip("Orthanc is not installed (apt-get install orthanc orthanc-dicomweb)")
    data_dir = tmp_path_factory.mktemp("orthanc")
    server = embedded.start_orthanc(data_dir)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def app() -> Any:
    from cara.main import app as the_app

    return the_app


@pytest.fixture
def client(app: Any) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    with TestClient(app) as c:
        yield c


@pytest.fixture
def worker() -> Iterator[Any]:
    """A real Dramatiq worker on the test Redis, running in this process; yields the broker."""
    import dramatiq

    from workers.registry import broker

    broker.flush_all()
    w = dramatiq.Worker(broker, worker_threads=2, worker_timeout=50)
    w.start()
    try:
        yield broker
    finally:
        w.stop()


@pytest.fixture
def admin_token(client: Any) -> str:
    """An admin created the way the first admin is: from configuration."""
    from cara.admin_console.service import ensure_first_admin
    from cara.config import get_settings
    from cara.kit.db import session_scope

    settings = get_settings()
    old = (settings.first_admin_email, settings.first_admin_password)
    settings.first_admin_email, settings.first_admin_password = "root-admin@example.com", "root-password"
    try:
        with session_scope() as session:
            assert ensure_first_admin(session) is True
    finally:
        settings.first_admin_email, settings.first_admin_password = old
    r = client.post(
        "/api/auth/login",
        json={"email": "root-admin@example.com", "password": "root-password", "role": "admin"},
    )
    assert r.status_code == 200, r.text
    token: str = r.json()["token"]
    return token


@pytest.fixture
def invitation(client: Any, admin_token: str) -> dict[str, Any]:
    r = client.post(
        "/api/admin/invitations", json={"email": "new-admin@example.com"}, headers=auth(admin_token)
    )
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    body["token"] = body["invitationUrl"].split("invitation=")[1]
    return body
