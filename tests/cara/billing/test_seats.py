"""The signup trial and the hospital doctor limit."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from cara.billing.seats import can_add_doctor, expire_trials
from cara.kit.db import session_scope
from cara.models import Account, Subscription
from cara.subscriptions.service import grants_clinical_access
from tests.cara.admin_console.seed import subscribe
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup


def _account(email: str) -> Account:
    with session_scope() as s:
        account = s.scalar(select(Account).where(Account.email == email))
        assert account is not None
        s.expunge(account)
        return account


def _access(email: str) -> bool:
    with session_scope() as s:
        account = s.scalar(select(Account).where(Account.email == email))
        assert account is not None
        return grants_clinical_access(s, account)


class TestTrial:
    @pytest.mark.usefixtures("trial_on")
    def test_an_independent_doctor_starts_trialing(self, client: Any) -> None:
        body = doctor_payload()
        doctor = signup(client, body)
        current = client.get("/api/subscription/current", headers=auth(doctor["token"])).json()
        assert current["status"] == "trialing"
        assert current["planId"] is None
        ends = datetime.fromisoformat(current["trialEndDate"])
        assert abs(ends - (datetime.now(UTC) + timedelta(days=14))) < timedelta(minutes=1)
        assert current["endDate"] == current["trialEndDate"]
        assert current["nextPaymentDate"] is None  # nothing will be charged
        assert _access(body["email"])

    @pytest.mark.usefixtures("trial_on")
    def test_hospitals_and_their_doctors_get_no_trial(self, client: Any) -> None:
        hospital = signup(client, hospital_payload())
        staff = add_staff(client, doctor_payload(isHospitalCreated=True), hospital["token"])
        for token in (hospital["token"], staff["token"]):
            assert client.get("/api/subscription/current", headers=auth(token)).json()["status"] == "inactive"
        assert not _access(staff["user"]["email"])

    def test_no_trial_with_trial_days_zero(self, client: Any) -> None:
        doctor = signup(client, doctor_payload())  # the suite runs with TRIAL_DAYS=0
        assert (
            client.get("/api/subscription/current", headers=auth(doctor["token"])).json()["status"]
            == "inactive"
        )

    @pytest.mark.usefixtures("trial_on")
    def test_an_ended_trial_no_longer_grants_access(self, client: Any) -> None:
        body = doctor_payload()
        doctor = signup(client, body)
        with session_scope() as s:
            s.execute(update(Subscription).values(trial_end=datetime.now(UTC) - timedelta(seconds=1)))
        # readers see it ended at once...
        assert (
            client.get("/api/subscription/current", headers=auth(doctor["token"])).json()["status"]
            == "canceled"
        )
        assert not _access(body["email"])
        # ...and the hourly job writes it down
        with session_scope() as s:
            assert expire_trials(s) == 1
        with session_scope() as s:
            assert s.scalars(select(Subscription.status)).one() == "canceled"
            assert expire_trials(s) == 0


class TestDoctorLimit:
    def _limit(self, client: Any, hospital: dict[str, Any]) -> Any:
        return client.get(
            f"/api/subscription/check-doctor-limit/{hospital['user']['hospitalId']}",
            headers=auth(hospital["token"]),
        )

    def test_without_a_subscription_no_doctor_can_be_added(self, client: Any) -> None:
        hospital = signup(client, hospital_payload())
        r = self._limit(client, hospital)
        assert r.status_code == 200
        assert r.json() == {
            "canAdd": False,
            "maxDoctors": None,
            "doctorCount": 0,
            "message": "An active subscription is required to add doctors. Please choose a plan.",
        }

    def test_the_limit_follows_the_plan(self, client: Any) -> None:
        body = hospital_payload()
        hospital = signup(client, body)
        subscribe(body["email"], "hospital-bronze")  # 5 doctors
        for n in range(4):
            add_staff(client, doctor_payload(isHospitalCreated=True), hospital["token"])
            assert self._limit(client, hospital).json()["canAdd"] is True, n
        add_staff(client, doctor_payload(isHospitalCreated=True), hospital["token"])
        full = self._limit(client, hospital).json()
        assert full == {
            "canAdd": False,
            "maxDoctors": 5,
            "doctorCount": 5,
            "message": "Doctor limit reached for your current plan. Upgrade to add more.",
        }
        with session_scope() as s:
            owner = s.scalar(select(Account).where(Account.email == body["email"]))
            assert owner is not None
            assert can_add_doctor(s, owner) is False
        # a bigger plan makes room
        with session_scope() as s:
            s.execute(update(Subscription).values(status="canceled"))
        subscribe(body["email"], "hospital-silver")
        assert self._limit(client, hospital).json()["canAdd"] is True
        with session_scope() as s:
            owner = s.scalar(select(Account).where(Account.email == body["email"]))
            assert owner is not None and can_add_doctor(s, owner) is True

    def test_only_the_hospital_itself_may_ask(self, client: Any) -> None:
        hospital = signup(client, hospital_payload())
        other = signup(client, hospital_payload())
        r = client.get(
            f"/api/subscription/check-doctor-limit/{other['user']['hospitalId']}",
            headers=auth(hospital["token"]),
        )
        assert r.status_code == 403
        assert r.json()["message"] == "You can only check the doctor limit of your own hospital."
        doctor = signup(client, doctor_payload())
        r = client.get(
            f"/api/subscription/check-doctor-limit/{hospital['user']['hospitalId']}",
            headers=auth(doctor["token"]),
        )
        assert r.status_code == 403
        assert client.get("/api/subscription/check-doctor-limit/x").status_code == 401
