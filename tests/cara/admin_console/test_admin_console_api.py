"""/api/admin: every call, for every role; react-admin list conventions; actions."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import select

from cara.admin_console import service
from cara.analytics import rollups
from cara.kit.db import session_scope
from cara.models import AuditEvent
from tests.cara.admin_console.seed import pay, subscribe
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup

NOW = datetime.now(UTC)
READS = [
    "/api/admin/stats",
    "/api/admin/subscription-analytics",
    "/api/admin/hospitals",
    "/api/admin/doctors",
    "/api/admin/payment-history",
    "/api/admin/audit-events",
]


def record_reads(monkeypatch: Any) -> list[str]:
    """The statements the console's async reads send (they bypass the SQLAlchemy engine), as text."""
    from cara.admin_console import repository

    sent: list[str] = []
    original = repository.fetch_sets

    async def recording(query: bytes) -> Any:
        sent.append(query.decode())
        return await original(query)

    monkeypatch.setattr(repository, "fetch_sets", recording)
    return sent


@pytest.fixture
def platform(client: Any) -> dict[str, Any]:
    hospitals = [
        signup(client, hospital_payload(name=f"{n} Hospital", state=city))
        for n, city in [("Korle Bu", "Accra"), ("Aga Khan", "Nairobi"), ("Lagos Island", "Lagos")]
    ]
    doctors = [
        add_staff(
            client, doctor_payload(isHospitalCreated=True, specialty="Cardiologist"), hospitals[0]["token"]
        )
    ]
    doctors.append(signup(client, doctor_payload(specialty="Nurse")))
    subscribe(hospitals[0]["user"]["email"], "hospital-silver")
    pay(hospitals[0]["user"]["email"], "hospital-silver", 24_900, NOW)
    pay(hospitals[1]["user"]["email"], "hospital-bronze", 9_900, NOW, status="failed")
    with session_scope() as s:
        rollups.refresh_all(s)
    return {"hospitals": hospitals, "doctors": doctors}


def get(client: Any, path: str, token: str, **params: Any) -> Any:
    query = {k: json.dumps(v) if not isinstance(v, str) else v for k, v in params.items()}
    return client.get(path, params=query, headers=auth(token))


class TestAccess:
    @pytest.mark.parametrize("path", READS)
    def test_anonymous_is_401(self, client: Any, path: str) -> None:
        assert client.get(path).status_code == 401

    @pytest.mark.parametrize("path", READS)
    def test_doctor_and_hospital_are_403(self, client: Any, path: str) -> None:
        for payload in (doctor_payload(), hospital_payload()):
            token = signup(client, payload)["token"]
            r = client.get(path, headers=auth(token))
            assert r.status_code == 403
            assert r.json()["message"] == "You do not have permission to access this resource."

    def test_actions_refuse_non_admins(self, client: Any, platform: dict[str, Any]) -> None:
        hospital = platform["hospitals"][0]
        hid = hospital["user"]["hospitalId"]
        for action in ("verify", "suspend", "reinstate"):
            r = client.post(f"/api/admin/hospitals/{hid}/{action}", headers=auth(hospital["token"]))
            assert r.status_code == 403


class TestStats:
    def test_cards_and_charts(self, client: Any, admin_token: str, platform: dict[str, Any]) -> None:
        r = get(client, "/api/admin/stats", admin_token, timeRange="monthly")
        assert r.status_code == 200
        body = r.json()
        assert body["totalHospitals"] == 3
        assert body["totalDoctors"] == 2
        assert body["activeSubscriptions"] == 1
        assert body["monthlyRevenue"] == 249.0
        assert len(body["revenueData"]["labels"]) == 12
        assert body["revenueData"]["datasets"][0]["data"][-1] == 249.0
        assert body["subscriptionDetails"]["byPlan"] == {"hospital-silver": 1}
        assert body["subscriptionDetails"]["byType"] == {"hospital": 1, "doctor": 0}
        # as of the rollup the figures come from
        assert body["computedAt"] is not None
        age = NOW - datetime.fromisoformat(body["computedAt"])
        assert abs(age.total_seconds()) < 300

    def test_figures_are_the_rollups_not_live_counts(
        self, client: Any, admin_token: str, platform: dict[str, Any]
    ) -> None:
        before = get(client, "/api/admin/stats", admin_token).json()
        signup(client, hospital_payload(name="Not Rolled Up Yet"))
        after = get(client, "/api/admin/stats", admin_token).json()
        assert after["totalHospitals"] == before["totalHospitals"] == 3
        assert after["computedAt"] == before["computedAt"]
        with session_scope() as s:
            rollups.refresh_all(s)
        # this process keeps an answer a few seconds (STATS_CACHE_SECONDS)
        assert get(client, "/api/admin/stats", admin_token).json() == before
        service.forget_cached_stats()
        refreshed = get(client, "/api/admin/stats", admin_token).json()
        assert refreshed["totalHospitals"] == 4
        assert refreshed["computedAt"] > before["computedAt"]

    def test_an_answer_is_kept_a_few_seconds_per_range(
        self, client: Any, admin_token: str, platform: dict[str, Any], monkeypatch: Any
    ) -> None:
        statements = record_reads(monkeypatch)
        first = get(client, "/api/admin/stats", admin_token, timeRange="weekly")
        again = get(client, "/api/admin/stats", admin_token, timeRange="WEEKLY")
        monthly = get(client, "/api/admin/stats", admin_token, timeRange="monthly")
        reads = [q for q in statements if "period_rollups" in q]
        assert len(reads) == 2  # weekly once, monthly once
        monkeypatch.setattr(service, "STATS_CACHE_SECONDS", 0.0)  # as if the seconds had passed
        get(client, "/api/admin/stats", admin_token, timeRange="weekly")
        assert len([q for q in statements if "period_rollups" in q]) == 3
        assert first.content == again.content
        assert first.headers["content-type"] == "application/json"
        assert first.json()["totalHospitals"] == 3
        assert len(monthly.json()["revenueData"]["labels"]) == 12
        # a bad range is refused every time, never cached
        for _ in range(2):
            assert get(client, "/api/admin/stats", admin_token, timeRange="hourly").status_code == 422

    def test_stats_read_no_tenant_schema_and_few_queries(
        self, client: Any, admin_token: str, platform: dict[str, Any], monkeypatch: Any
    ) -> None:
        from sqlalchemy import event

        from cara.kit.db import get_engine

        statements = record_reads(monkeypatch)

        def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            statements.append(statement)

        event.listen(get_engine(), "before_cursor_execute", record)
        try:
            for time_range in ("weekly", "monthly", "yearly"):
                assert get(client, "/api/admin/stats", admin_token, timeRange=time_range).status_code == 200
        finally:
            event.remove(get_engine(), "before_cursor_execute", record)
        rollup_reads = [q for q in statements if "period_rollups" in q]
        assert len(rollup_reads) == 3  # one query per answer
        assert not [q for q in statements if re.search(r"\b(hospital_\w+|independent)\.", q)]
        assert not [q for q in statements if "platform.payments" in q or "platform.subscriptions" in q]

    def test_monthly_revenue_is_mrr_with_annual_plans_over_12(self, client: Any, admin_token: str) -> None:
        monthly = signup(client, hospital_payload(name="Monthly"))
        annual = signup(client, hospital_payload(name="Annual"))
        m_sub = subscribe(monthly["user"]["email"], "hospital-silver")
        a_sub = subscribe(annual["user"]["email"], "hospital-gold", cycle="annual")
        pay(monthly["user"]["email"], "hospital-silver", 24_900, NOW, subscription=m_sub)
        pay(annual["user"]["email"], "hospital-gold", 479_000, NOW, subscription=a_sub)
        with session_scope() as s:
            rollups.refresh_all(s)
        body = get(client, "/api/admin/stats", admin_token, timeRange="monthly").json()
        # 249.00 + 4,790.00 / 12 = 249.00 + 399.17
        assert body["monthlyRevenue"] == 648.17
        # the chart spreads the annual payment too: this month has 1/12 of it
        assert body["revenueData"]["datasets"][0]["data"][-1] == 648.17
        # the cash still adds up to the payments
        analytics = client.get("/api/admin/subscription-analytics", headers=auth(admin_token)).json()
        assert analytics["totalRevenue"] == 249.0 + 4_790.0

    def test_trials_are_a_plan_of_their_own_never_unknown(
        self, client: Any, admin_token: str, monkeypatch: Any
    ) -> None:
        from cara.config import get_settings

        monkeypatch.setattr(get_settings(), "trial_days", 14)
        signup(client, doctor_payload())  # the signup trial, without a plan
        paying = signup(client, doctor_payload())
        with session_scope() as s:
            from sqlalchemy import update

            from cara.models import Account, Subscription

            account_id = s.scalar(select(Account.id).where(Account.email == paying["user"]["email"]))
            s.execute(
                update(Subscription).where(Subscription.account_id == account_id).values(status="canceled")
            )
        subscribe(paying["user"]["email"], "doctor-basic")
        with session_scope() as s:
            rollups.refresh_all(s)
        body = get(client, "/api/admin/stats", admin_token).json()
        assert body["subscriptionDetails"]["byPlan"] == {"trial": 1, "doctor-basic": 1}
        assert body["subscriptionDetails"]["byType"] == {"hospital": 0, "doctor": 2}
        assert "Unknown" not in json.dumps(body)
        assert body["monthlyRevenue"] == 19.0  # the trial pays nothing

    def test_default_range_is_weekly(self, client: Any, admin_token: str, platform: dict[str, Any]) -> None:
        body = client.get("/api/admin/stats", headers=auth(admin_token)).json()
        assert len(body["revenueData"]["labels"]) == 12
        assert body["revenueData"]["datasets"][0]["data"][-1] == 249.0

    def test_bad_range(self, client: Any, admin_token: str) -> None:
        r = get(client, "/api/admin/stats", admin_token, timeRange="hourly")
        assert r.status_code == 422
        assert "timeRange" in r.json()["fields"]

    def test_zeros_before_any_rollup(self, client: Any, admin_token: str) -> None:
        body = client.get("/api/admin/stats", headers=auth(admin_token)).json()
        assert (body["totalHospitals"], body["totalDoctors"], body["monthlyRevenue"]) == (0, 0, 0.0)

    def test_subscription_analytics(self, client: Any, admin_token: str, platform: dict[str, Any]) -> None:
        body = client.get("/api/admin/subscription-analytics", headers=auth(admin_token)).json()
        assert body["totalRevenue"] == 249.0
        assert body["activeSubscriptions"] == 1
        assert body["revenueByPlan"] == {"labels": ["hospital-silver"], "data": [249.0]}
        assert len(body["subscriptionTrends"]["data"]) == 12

    def test_subscription_analytics_answer_is_kept_a_few_seconds(
        self, client: Any, admin_token: str, platform: dict[str, Any], monkeypatch: Any
    ) -> None:
        statements = record_reads(monkeypatch)
        first = client.get("/api/admin/subscription-analytics", headers=auth(admin_token))
        again = client.get("/api/admin/subscription-analytics", headers=auth(admin_token))
        assert first.content == again.content and first.json()["totalRevenue"] == 249.0
        assert first.headers["content-type"] == "application/json"
        assert len([q for q in statements if "period_rollups" in q]) == 1
        monkeypatch.setattr(service, "STATS_CACHE_SECONDS", 0.0)  # as if the seconds had passed
        client.get("/api/admin/subscription-analytics", headers=auth(admin_token))
        assert len([q for q in statements if "period_rollups" in q]) == 2

    def test_subscription_analytics_failure_gives_zeros(
        self, client: Any, admin_token: str, monkeypatch: Any
    ) -> None:
        from cara.admin_console import repository

        def boom(*a: Any) -> Any:
            raise RuntimeError("rollup table unavailable")

        monkeypatch.setattr(repository, "month_rollups_async", boom)
        r = client.get("/api/admin/subscription-analytics", headers=auth(admin_token))
        assert r.status_code == 200
        assert r.json() == {
            "totalRevenue": 0,
            "activeSubscriptions": 0,
            "subscriptionTrends": {"labels": [], "data": []},
            "revenueByPlan": {"labels": [], "data": []},
        }
        # the zeros are not kept: the next answer is computed again
        monkeypatch.undo()
        assert client.get("/api/admin/subscription-analytics", headers=auth(admin_token)).json() != r.json()


class TestLists:
    def test_hospitals_page_sort_and_content_range(
        self, client: Any, admin_token: str, platform: dict[str, Any]
    ) -> None:
        r = get(client, "/api/admin/hospitals", admin_token, sort=["name", "ASC"], range=[0, 1])
        assert r.status_code == 200
        assert r.headers["content-range"] == "hospitals 0-1/3"
        assert [h["name"] for h in r.json()] == ["Aga Khan Hospital", "Korle Bu Hospital"]
        first = r.json()[1]
        assert first["city"] == "Accra" and first["doctorsCount"] == 1
        assert first["isVerified"] is False and first["status"] == "active"
        r = get(client, "/api/admin/hospitals", admin_token, sort=["name", "ASC"], range=[2, 3])
        assert r.headers["content-range"] == "hospitals 2-2/3"

    def test_hospitals_search_and_filters(
        self, client: Any, admin_token: str, platform: dict[str, Any]
    ) -> None:
        r = get(client, "/api/admin/hospitals", admin_token, filter={"q": "nairobi"})
        assert [h["name"] for h in r.json()] == ["Aga Khan Hospital"]
        r = get(client, "/api/admin/hospitals", admin_token, filter={"q": "100%_"})
        assert r.json() == [] and r.headers["content-range"] == "hospitals */0"
        r = get(client, "/api/admin/hospitals", admin_token, filter={"isVerified": True})
        assert r.json() == []

    def test_doctors(self, client: Any, admin_token: str, platform: dict[str, Any]) -> None:
        r = get(client, "/api/admin/doctors", admin_token, sort=["specialization", "ASC"])
        assert r.headers["content-range"] == "doctors 0-1/2"
        rows = r.json()
        assert [d["specialization"] for d in rows] == ["Cardiologist", "Nurse"]
        assert rows[0]["hospitalName"] == "Korle Bu Hospital"
        assert rows[1]["hospitalName"] is None
        r = get(client, "/api/admin/doctors", admin_token, filter={"specialization": "Nurse"})
        assert len(r.json()) == 1

    def test_payments(self, client: Any, admin_token: str, platform: dict[str, Any]) -> None:
        r = get(client, "/api/admin/payment-history", admin_token, sort=["amount", "DESC"])
        rows = r.json()
        assert [(p["plan"], p["amount"], p["status"]) for p in rows] == [
            ("Silver", 249.0, "succeeded"),
            ("Bronze", 99.0, "failed"),
        ]
        assert rows[0]["userName"] == "Korle Bu Hospital"
        r = get(client, "/api/admin/payment-history", admin_token, filter={"status": "failed"})
        assert len(r.json()) == 1

    @pytest.mark.parametrize(
        "params",
        [
            {"sort": "not json"},
            {"sort": json.dumps(["password_hash", "ASC"])},
            {"sort": json.dumps(["name", "SIDEWAYS"])},
            {"range": json.dumps([5, 1])},
            {"range": json.dumps(["a", "b"])},
            {"filter": json.dumps(["x"])},
            {"filter": json.dumps({"isVerified": "yes"})},
        ],
    )
    def test_malformed_list_parameters_are_400(
        self, client: Any, admin_token: str, params: dict[str, str]
    ) -> None:
        r = client.get("/api/admin/hospitals", params=params, headers=auth(admin_token))
        assert r.status_code == 400
        assert r.json()["message"]

    def test_no_per_row_queries(self, client: Any, admin_token: str, platform: dict[str, Any]) -> None:
        from sqlalchemy import event

        from cara.kit.db import get_engine

        counts = []
        # Once first: the admin's account state is then remembered (cara.auth.account_state), so
        # only the list's own statements are counted.
        get(client, "/api/admin/hospitals", admin_token, range=[0, 49])
        for extra in (0, 5):
            for _ in range(extra):
                signup(client, hospital_payload())
            statements: list[str] = []

            def capture(conn: Any, cur: Any, statement: str, *a: Any, seen: list[str] = statements) -> None:
                seen.append(statement)

            event.listen(get_engine(), "before_cursor_execute", capture)
            try:
                get(client, "/api/admin/hospitals", admin_token, range=[0, 49])
            finally:
                event.remove(get_engine(), "before_cursor_execute", capture)
            counts.append(len(statements))
        assert counts[0] == counts[1], (counts, statements)


class TestActions:
    def test_verify_hospital_and_audit(self, client: Any, admin_token: str, platform: dict[str, Any]) -> None:
        hid = platform["hospitals"][0]["user"]["hospitalId"]
        r = client.post(f"/api/admin/hospitals/{hid}/verify", headers=auth(admin_token))
        assert r.status_code == 200 and r.json()["isVerified"] is True
        events = get(
            client, "/api/admin/audit-events", admin_token, filter={"action": "hospital.verified"}
        ).json()
        assert len(events) == 1
        assert events[0]["actorEmail"] == "root-admin@example.com"
        assert events[0]["targetId"] == hid

    def test_suspend_refuses_its_users_until_reinstated(
        self, client: Any, admin_token: str, platform: dict[str, Any]
    ) -> None:
        hospital = platform["hospitals"][0]
        doctor = platform["doctors"][0]
        hid = hospital["user"]["hospitalId"]
        r = client.post(f"/api/admin/hospitals/{hid}/suspend", headers=auth(admin_token))
        assert r.status_code == 200 and r.json()["status"] == "suspended"
        assert client.get("/api/auth/user", headers=auth(hospital["token"])).status_code == 403
        assert client.get("/api/auth/user", headers=auth(doctor["token"])).status_code == 403
        other = platform["hospitals"][1]
        assert client.get("/api/auth/user", headers=auth(other["token"])).status_code == 200
        assert (
            client.post(f"/api/admin/hospitals/{hid}/suspend", headers=auth(admin_token)).status_code == 409
        )
        r = client.post(f"/api/admin/hospitals/{hid}/reinstate", headers=auth(admin_token))
        assert r.status_code == 200 and r.json()["status"] == "active"
        assert client.get("/api/auth/user", headers=auth(doctor["token"])).status_code == 200
        with session_scope() as s:
            actions = list(s.scalars(select(AuditEvent.action).where(AuditEvent.target_id == hid)))
        assert actions.count("hospital.suspended") == 1 and actions.count("hospital.reinstated") == 1

    def test_verify_doctor(self, client: Any, admin_token: str, platform: dict[str, Any]) -> None:
        did = platform["doctors"][1]["user"]["_id"]
        r = client.post(f"/api/admin/doctors/{did}/verify", headers=auth(admin_token))
        assert r.status_code == 200 and r.json()["isVerified"] is True
        me = client.get("/api/auth/user", headers=auth(platform["doctors"][1]["token"])).json()
        assert me["isVerified"] is True

    @pytest.mark.parametrize("bad", ["not-a-uuid", "00000000-0000-0000-0000-000000000000"])
    def test_unknown_ids_are_404(self, client: Any, admin_token: str, bad: str) -> None:
        assert client.post(f"/api/admin/hospitals/{bad}/verify", headers=auth(admin_token)).status_code == 404
        assert client.post(f"/api/admin/doctors/{bad}/verify", headers=auth(admin_token)).status_code == 404
        assert client.get(f"/api/admin/hospitals/{bad}", headers=auth(admin_token)).status_code == 404

    def test_a_hospital_id_is_not_a_doctor_id(
        self, client: Any, admin_token: str, platform: dict[str, Any]
    ) -> None:
        hospital_account = platform["hospitals"][0]["user"]["_id"]
        r = client.post(f"/api/admin/doctors/{hospital_account}/verify", headers=auth(admin_token))
        assert r.status_code == 404
