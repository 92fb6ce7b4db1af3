"""The principal check from remembered account states (cara.auth.account_state): a change of an
account or its tenant is announced after its commit and reaches every API process within a
second; a process whose subscriber is not current reads the database, as before."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text, update

from cara.auth import account_state, tokens
from cara.kit import account_events
from cara.kit.db import session_scope
from cara.models import Account, Tenant
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup

REPO = Path(__file__).resolve().parents[3]


def _within(seconds: float, condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def _staff(client: Any) -> tuple[str, str, str]:
    """A hospital's token, and one of its doctors' id and token."""
    hospital = signup(client, hospital_payload())
    payload = doctor_payload()
    doctor = add_staff(client, payload, hospital["token"])
    login = client.post(
        "/api/auth/login", json={"email": payload["email"], "password": payload["password"], "role": "doctor"}
    )
    assert login.status_code == 200, login.text
    return hospital["token"], doctor["user"]["_id"], login.json()["token"]


def test_the_state_is_remembered_after_the_first_request(client: Any) -> None:
    _, doctor_id, token = _staff(client)
    account_state.STATES.handle("@all *")
    assert client.get("/api/auth/user", headers=auth(token)).status_code == 200
    state = account_state.STATES.get(uuid.UUID(doctor_id))
    assert state is not None and state.role == "doctor" and state.is_active
    assert state.tenant_schema is not None and state.tenant_schema != "independent"


def test_a_change_announced_meanwhile_is_not_remembered() -> None:
    states = account_state.AccountStates()
    state = account_state.AccountState("doctor", None, "independent", "independent", "active", True, 0, None)
    account_id = uuid.uuid4()
    generation = states.generation
    states.handle(f"@account {uuid.uuid4()}")  # announced while the row was being read
    states.remember(account_id, state, generation)
    assert states.get(account_id) is None
    states.remember(account_id, state, states.generation)
    assert states.get(account_id) == state
    states.handle(f"@account {account_id}")
    assert states.get(account_id) is None


def test_a_bulk_update_is_announced_on_commit(client: Any) -> None:
    _, doctor_id, token = _staff(client)
    assert client.get("/api/auth/user", headers=auth(token)).status_code == 200
    with session_scope() as s:
        s.execute(update(Account).where(Account.id == uuid.UUID(doctor_id)).values(is_active=False))
    assert account_state.STATES.get(uuid.UUID(doctor_id)) is None
    assert client.get("/api/auth/user", headers=auth(token)).status_code == 403


def test_a_suspended_tenant_is_refused_at_once(client: Any) -> None:
    _, doctor_id, token = _staff(client)
    assert client.get("/api/auth/user", headers=auth(token)).status_code == 200
    with session_scope() as s:
        account = s.get(Account, uuid.UUID(doctor_id))
        assert account is not None
        tenant = s.get(Tenant, account.tenant_id)
        assert tenant is not None
        tenant.status = "suspended"
    assert client.get("/api/auth/user", headers=auth(token)).status_code == 403


def test_without_a_current_subscriber_the_database_is_read(client: Any, monkeypatch: Any) -> None:
    _, doctor_id, token = _staff(client)
    assert client.get("/api/auth/user", headers=auth(token)).status_code == 200
    assert account_state.STATES.get(uuid.UUID(doctor_id)) is not None
    stopped = tokens.RevocationList()  # never started: not current
    monkeypatch.setattr(tokens, "_list", lambda: stopped)
    # Changed behind the ORM's back (raw SQL announces nothing): only the database knows.
    with session_scope() as s:
        s.execute(text("UPDATE platform.accounts SET is_active = false WHERE id = :a"), {"a": doctor_id})
    assert client.get("/api/auth/user", headers=auth(token)).status_code == 403


def test_a_resubscription_forgets_every_state() -> None:
    account_state.STATES.remember(
        uuid.uuid4(),
        account_state.AccountState("doctor", None, None, None, None, True, 0, None),
        account_state.STATES.generation,
    )
    account_events.dispatch(account_events.PREFIX + "all *")
    assert len(account_state.STATES) == 0


# ---------------------------------------------------------------- two API processes


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def two_replicas(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Two `python -m cara.serve` processes on the test database and Redis; their base URLs."""
    env = {**os.environ, "OTEL_TRACES_EXPORTER": "none"}
    started: list[tuple[subprocess.Popen[bytes], int, Path]] = []
    for name in ("a", "b"):
        port, log = _free_port(), tmp_path / f"replica-{name}.log"
        with log.open("wb") as out:
            argv = [sys.executable, "-m", "cara.serve", "--host", "127.0.0.1", "--port", str(port)]
            process = subprocess.Popen(
                [*argv, "--workers", "1"], cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        started.append((process, port, log))
    try:
        for process, port, log in started:
            deadline = time.monotonic() + 90
            while True:
                assert process.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/api/health/ready", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.2)
        yield f"http://127.0.0.1:{started[0][1]}", f"http://127.0.0.1:{started[1][1]}"
    finally:
        for process, _, _ in started:
            process.send_signal(signal.SIGTERM)
        for process, _, _ in started:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def test_a_deactivation_on_one_replica_is_refused_by_the_other_within_a_second(
    client: Any, two_replicas: tuple[str, str]
) -> None:
    a, b = two_replicas
    hospital_token, doctor_id, token = _staff(client)
    with httpx.Client(timeout=10) as http:
        # B remembers the doctor's state (the second request reads no account).
        assert http.get(f"{b}/api/auth/user", headers=auth(token)).status_code == 200
        assert http.get(f"{b}/api/auth/user", headers=auth(token)).status_code == 200

        r = http.put(f"{a}/api/doctors/{doctor_id}", json={"isActive": False}, headers=auth(hospital_token))
        assert r.status_code == 200, r.text
        done = time.monotonic()
        assert _within(1.0, lambda: http.get(f"{b}/api/auth/user", headers=auth(token)).status_code == 403)
        assert time.monotonic() - done < 1.0

        r = http.put(f"{a}/api/doctors/{doctor_id}", json={"isActive": True}, headers=auth(hospital_token))
        assert r.status_code == 200, r.text
        assert _within(1.0, lambda: http.get(f"{b}/api/auth/user", headers=auth(token)).status_code == 200)
