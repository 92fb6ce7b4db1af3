"""Sign-up with an email that already has an account answers as for a new one: no 409, no
working token for whoever tried, the account unchanged, and its owner told by mail."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select, text

from cara.kit.db import session_scope
from cara.kit.jobs import install_sender
from cara.models import Account, AuditEvent
from tests.factories import auth, doctor_payload, hospital_payload, signup

BROWSER = {"X-Requested-With": "XMLHttpRequest"}


@pytest.fixture
def sent() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """The jobs sent after commit, held here instead of reaching Redis."""
    from workers import sender as job_sender

    held: list[tuple[str, dict[str, Any]]] = []

    class Held:
        def queue_name(self, actor_name: str) -> str:
            return "mail"

        def send(self, actor_name: str, kwargs: dict[str, Any], options: dict[str, Any]) -> None:
            held.append((actor_name, kwargs))

    install_sender(Held())
    try:
        yield held
    finally:
        job_sender.install()


def in_use_mails(sent: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [kwargs for name, kwargs in sent if name == "mail.signup_email_in_use"]


def account_of(email: str) -> Account:
    with session_scope() as s:
        account = s.scalar(select(Account).where(Account.email == email))
        assert account is not None
        s.expunge(account)
        return account


def login(client: Any, email: str, password: str, role: str) -> Any:
    return client.post("/api/auth/login", json={"email": email, "password": password, "role": role})


def test_a_doctor_sign_up_with_a_taken_email_looks_like_a_new_one(
    client: Any, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    owner = doctor_payload()
    signup(client, owner)
    before = account_of(owner["email"])
    fresh = client.post("/api/auth/signup", json=doctor_payload(), headers=BROWSER)
    sent.clear()

    stranger = doctor_payload(email=owner["email"].upper(), password="another1", name="Someone Else")
    r = client.post("/api/auth/signup", json=stranger, headers=BROWSER)

    assert (r.status_code, fresh.status_code) == (201, 201), r.text
    assert r.json()["message"] == fresh.json()["message"]
    assert set(r.json()["data"]) == set(fresh.json()["data"])
    assert set(r.json()["data"]["user"]) == set(fresh.json()["data"]["user"])
    assert r.json()["data"]["user"]["email"] == owner["email"]
    assert r.json()["data"]["user"]["_id"] != str(before.id)
    # A refresh cookie of the same name, as a new browser sign-up gets.
    assert set(r.cookies.keys()) == set(fresh.cookies.keys()) == {"cara_session"}
    # Neither the token nor the cookie opens anything.
    token = r.json()["data"]["token"]
    assert client.get("/api/auth/user", headers=auth(token)).status_code == 401
    client.cookies.clear()
    client.cookies.set("cara_session", r.cookies["cara_session"])
    refreshed = client.post("/api/auth/refresh", headers=BROWSER)
    assert refreshed.status_code == 401
    # The owner is told, by account id: the job carries no address.
    assert in_use_mails(sent) == [{"account_id": str(before.id)}]
    # The existing account is unchanged and its own password still signs in.
    after = account_of(owner["email"])
    assert (after.password_hash, after.name, after.password_changed_at) == (
        before.password_hash,
        before.name,
        before.password_changed_at,
    )
    assert login(client, owner["email"], owner["password"], "doctor").status_code == 200
    assert login(client, owner["email"], stranger["password"], "doctor").status_code == 401
    with session_scope() as s:
        assert s.scalar(select(func.count()).select_from(Account).where(Account.email == owner["email"])) == 1
        actions = s.scalars(select(AuditEvent.action).where(AuditEvent.target_id == str(before.id))).all()
        assert "doctor.signup_refused_address_in_use" in actions


def test_a_hospital_sign_up_with_a_taken_email_looks_like_a_new_one_and_makes_no_schema(
    client: Any, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    owner = doctor_payload()
    signup(client, owner)
    fresh = client.post("/api/auth/signup", json=hospital_payload())
    sent.clear()

    r = client.post("/api/auth/signup", json=hospital_payload(email=owner["email"]))

    assert (r.status_code, fresh.status_code) == (201, 201), r.text
    assert set(r.json()["data"]["user"]) == set(fresh.json()["data"]["user"])
    assert r.json()["data"]["user"]["role"] == "hospital"
    assert client.get("/api/auth/user", headers=auth(r.json()["data"]["token"])).status_code == 401
    assert in_use_mails(sent) == [{"account_id": str(account_of(owner["email"]).id)}]
    with session_scope() as s:
        schemas = s.execute(text("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'hospital\\_%'"))
        assert schemas.scalar_one() == 1  # the fresh hospital's only
    assert login(client, owner["email"], owner["password"], "doctor").status_code == 200


def test_the_owner_gets_the_mail(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from cara.notifications import mailer
    from workers.actors import mail

    owner = doctor_payload()
    signup(client, owner)
    mails: list[dict[str, str]] = []
    monkeypatch.setattr(mailer, "send", lambda **message: mails.append(message))
    mail.signup_email_in_use.fn(account_id=str(account_of(owner["email"]).id))
    assert [m["to"] for m in mails] == [owner["email"]]
    assert "no new account was made and yours is unchanged" in mails[0]["body"]


def test_a_hospital_registering_its_own_doctor_still_gets_409(client: Any) -> None:
    """Signed in, its seats counted, the new doctor's token its to use: that flow keeps the 409."""
    hospital = signup(client, hospital_payload())
    owner = doctor_payload()
    signup(client, owner)
    body = doctor_payload(
        email=owner["email"], isHospitalCreated=True, hospitalId=hospital["user"]["hospitalId"]
    )
    r = client.post("/api/auth/signup", json=body, headers=auth(hospital["token"]))
    assert r.status_code == 409
    assert r.json()["fields"]["email"] == "An account with this email already exists."
