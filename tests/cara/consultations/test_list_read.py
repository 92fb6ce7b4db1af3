"""GET /api/consultations (keyset pages, search, filters), GET/PATCH one consultation, settings."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from cara.kit.db import tenant_session
from cara.models import Consultation
from tests.cara.consultations.conftest import add_lines, schema_and_account, start, subscribe
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup


def set_started(headers: dict[str, str], consultation_id: str, at: datetime) -> None:
    schema, _ = schema_and_account(headers)
    with tenant_session(schema) as s:
        c = s.get(Consultation, uuid.UUID(consultation_id))
        assert c is not None
        c.started_at = at
        s.commit()


def listing(client: Any, headers: dict[str, str], **params: Any) -> Any:
    return client.get("/api/consultations", params=params, headers=headers)


class TestList:
    def test_newest_first_in_keyset_pages(self, client: Any, doctor: dict[str, str]) -> None:
        base = datetime(2026, 3, 1, 9, tzinfo=UTC)
        ids = []
        for i in range(5):
            cid = start(client, doctor, console="generic").json()["id"]
            set_started(doctor, cid, base + timedelta(hours=i))
            ids.append(cid)
        # Two consultations at the same instant: the id breaks the tie, none is lost or repeated.
        set_started(doctor, ids[3], base + timedelta(hours=4))
        add_lines(
            doctor, ids[4], [("user", "Hello"), ("assistant", "Hi"), ("tool", "Spinal cord Dmax 50 Gy")]
        )
        seen: list[str] = []
        cursor = None
        while True:
            r = listing(client, doctor, limit=2, **({"cursor": cursor} if cursor else {}))
            assert r.status_code == 200, r.text
            page = r.json()
            seen += [item["id"] for item in page["items"]]
            cursor = page["nextCursor"]
            if cursor is None:
                break
        assert sorted(seen) == sorted(ids) and len(seen) == 5
        first = listing(client, doctor).json()["items"]
        assert {first[0]["id"], first[1]["id"]} == {ids[3], ids[4]}
        with_lines = next(i for i in first if i["id"] == ids[4])
        assert with_lines["lineCount"] == 3 and with_lines["state"] == "draft"
        assert with_lines["durationSeconds"] is not None
        assert next(i for i in first if i["id"] == ids[0])["state"] == "in_progress"

    def test_only_the_doctors_own(self, client: Any, doctor: dict[str, str]) -> None:
        mine = start(client, doctor).json()["id"]
        other = auth(signup(client, doctor_payload())["token"])  # same independent schema
        theirs = start(client, other).json()["id"]
        assert [i["id"] for i in listing(client, doctor).json()["items"]] == [mine]
        assert [i["id"] for i in listing(client, other).json()["items"]] == [theirs]

    def test_search_title_patient_and_transcript(self, client: Any, doctor: dict[str, str]) -> None:
        a = start(client, doctor, patientReference={"recordNumber": "KB-20931", "name": "Ama Owusu"}).json()[
            "id"
        ]
        b = start(client, doctor).json()["id"]
        c = start(client, doctor).json()["id"]
        add_lines(doctor, b, [("user", "Mammogram shows a spiculated mass in the left breast")])
        assert (
            client.patch(
                f"/api/consultations/{c}", json={"title": "Lung nodule follow-up"}, headers=doctor
            ).status_code
            == 200
        )

        def found(q: str) -> set[str]:
            r = listing(client, doctor, q=q)
            assert r.status_code == 200, r.text
            return {i["id"] for i in r.json()["items"]}

        assert found("owusu") == {a}
        assert found("KB-20931") == {a}
        assert found("kb-209") == {a}
        assert found("spiculated LEFT") == {b}
        assert found("nodule") == {c}
        assert found("spiculated nodule") == set()
        assert found("  ;:!  ") == {a, b, c}  # no words: no search
        # Lines stored after a search are found by the next one (the document is gathered again).
        add_lines(doctor, c, [("assistant", "Lung-RADS 4A: low-dose CT in three months")])
        assert found("lung-rads") == {c}
        # A changed patient reference too.
        client.patch(
            f"/api/consultations/{a}", json={"patientReference": {"name": "Kofi Mensah"}}, headers=doctor
        )
        assert found("owusu") == set() and found("kofi") == {a}

    def test_a_search_pages_alike_from_the_newest_consultations_and_from_the_index(
        self, client: Any, doctor: dict[str, str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # A word in most consultations fills its page from the newest ones (repository.EARLY_WINDOW);
        # with a window too small for a page the index's matches give it. Same pages either way.
        from cara.consultations import repository

        base = datetime(2026, 5, 1, 9, tzinfo=UTC)
        ids = []
        for i in range(8):
            cid = start(client, doctor).json()["id"]
            set_started(doctor, cid, base + timedelta(hours=i // 2))  # pairs share an instant
            add_lines(doctor, cid, [("user", "chest pain" if i != 5 else "a sprained ankle")])
            ids.append(cid)
        add_lines(doctor, ids[0], [("assistant", "pheochromocytoma is unlikely")])

        def pages(q: str, **params: Any) -> list[list[str]]:
            found, cursor = [], None
            while True:
                r = listing(client, doctor, q=q, limit=2, **params, **({"cursor": cursor} if cursor else {}))
                assert r.status_code == 200, r.text
                found.append([item["id"] for item in r.json()["items"]])
                cursor = r.json()["nextCursor"]
                if cursor is None:
                    return found

        common, rare = pages("pain"), pages("pheochromocytoma")
        newest_first = sorted((n for n in range(8) if n != 5), key=lambda n: (n // 2, uuid.UUID(ids[n])))[
            ::-1
        ]
        assert [i for page in common for i in page] == [ids[n] for n in newest_first]
        assert len(common) == 4 and all(len(page) == 2 for page in common[:3])
        assert rare == [[ids[0]]]
        drafts = pages("pain", state="draft")
        assert [i for page in drafts for i in page] == [i for page in common for i in page]
        for window in (1, 3):
            monkeypatch.setattr(repository, "EARLY_WINDOW", window)
            assert pages("pain") == common and pages("pheochromocytoma") == rare
            assert pages("pain", state="draft") == drafts

    def test_filters_by_day_and_state(self, client: Any, doctor: dict[str, str]) -> None:
        march = start(client, doctor).json()["id"]
        april = start(client, doctor).json()["id"]
        set_started(doctor, march, datetime(2026, 3, 31, 23, 30, tzinfo=UTC))
        set_started(doctor, april, datetime(2026, 4, 1, 0, 10, tzinfo=UTC))
        add_lines(doctor, april, [("user", "done")])
        ids = lambda **p: [i["id"] for i in listing(client, doctor, **p).json()["items"]]  # noqa: E731
        assert ids(**{"from": "2026-04-01"}) == [april]
        assert ids(to="2026-03-31") == [march]
        assert ids(**{"from": "2026-03-31", "to": "2026-04-01"}) == [april, march]
        assert ids(state="draft") == [april]
        assert ids(state="in_progress") == [march]
        assert ids(state="signed") == []

    @pytest.mark.parametrize(
        ("params", "field"),
        [
            ({"from": "0001-01-01", "to": "9999-12-31"}, "to"),
            ({"to": "9999-12-31"}, "to"),
            ({"from": "0001-01-01"}, "from"),
            ({"from": "1999-12-31"}, "from"),
            ({"to": "2101-01-01"}, "to"),
        ],
    )
    def test_days_out_of_range_are_422(
        self, client: Any, doctor: dict[str, str], params: dict[str, str], field: str
    ) -> None:
        r = listing(client, doctor, **params)
        assert r.status_code == 422, r.text
        assert field in r.json()["fields"] and "2000" in r.json()["fields"][field]

    def test_the_widest_range_allowed_lists(self, client: Any, doctor: dict[str, str]) -> None:
        cid = start(client, doctor).json()["id"]
        r = listing(client, doctor, **{"from": "2000-01-01", "to": "2100-12-31"})
        assert r.status_code == 200 and [i["id"] for i in r.json()["items"]] == [cid]

    @pytest.mark.parametrize(
        "params",
        [
            {"cursor": "not-a-cursor"},
            {"cursor": "WyJ4IiwieSJd"},
            {"limit": 0},
            {"limit": 101},
            {"state": "finished"},
            {"from": "yesterday"},
            {"q": "x" * 201},
        ],
    )
    def test_bad_parameters_are_4xx(
        self, client: Any, doctor: dict[str, str], params: dict[str, Any]
    ) -> None:
        r = listing(client, doctor, **params)
        assert r.status_code in (400, 422), r.text
        assert "message" in r.json()

    def test_only_doctors(self, client: Any) -> None:
        hospital = auth(signup(client, hospital_payload())["token"])
        assert listing(client, hospital).status_code == 403
        assert client.get("/api/consultations").status_code == 401


class TestRead:
    def test_transcript_with_speakers(self, client: Any, doctor: dict[str, str]) -> None:
        cid = start(client, doctor, patientReference={"name": "Ama"}).json()["id"]
        add_lines(
            doctor,
            cid,
            [
                ("user", "Hey Cara, cord dose 52 Gy?"),
                ("tool", "Spinal cord Dmax 50 Gy exceeded"),
                ("assistant", "Above"),
            ],
        )
        r = client.get(f"/api/consultations/{cid}", headers=doctor)
        assert r.status_code == 200, r.text
        body = r.json()
        assert [(line["seq"], line["speaker"]) for line in body["lines"]] == [
            (0, "user"),
            (1, "tool"),
            (2, "assistant"),
        ]
        assert all(isinstance(line["id"], int) and line["spokenAt"] for line in body["lines"])
        assert body["drafts"] == [] and body["note"] is None
        assert body["patientReference"]["name"] == "Ama" and body["lineCount"] == 3

    def test_others_ids_are_404(self, client: Any, doctor: dict[str, str]) -> None:
        cid = start(client, doctor).json()["id"]
        other = auth(signup(client, doctor_payload())["token"])
        hospital_token = signup(client, hospital_payload())["token"]
        staff = auth(add_staff(client, doctor_payload(), hospital_token)["token"])
        for headers in (other, staff):
            r = client.get(f"/api/consultations/{cid}", headers=headers)
            assert r.status_code == 404 and r.json()["message"] == "Consultation not found."
            assert (
                client.patch(f"/api/consultations/{cid}", json={"title": "x"}, headers=headers).status_code
                == 404
            )
        for bad in ("nope", str(uuid.uuid4())):
            assert client.get(f"/api/consultations/{bad}", headers=doctor).status_code == 404
        assert client.get(f"/api/consultations/{cid}", headers=auth(hospital_token)).status_code == 403


class TestChange:
    def test_title_and_patient_reference(self, client: Any, doctor: dict[str, str]) -> None:
        cid = start(client, doctor).json()["id"]
        r = client.patch(
            f"/api/consultations/{cid}",
            json={
                "title": "  Chest pain  ",
                "patientReference": {"recordNumber": "A1", "age": 60, "sex": "male"},
            },
            headers=doctor,
        )
        assert r.status_code == 200, r.text
        assert r.json()["title"] == "Chest pain"
        assert r.json()["patientReference"] == {"recordNumber": "A1", "name": None, "age": 60, "sex": "male"}
        # An absent field stays; null clears.
        r = client.patch(f"/api/consultations/{cid}", json={"patientReference": None}, headers=doctor)
        assert r.json()["title"] == "Chest pain" and r.json()["patientReference"] is None

    def test_patient_reference_of_a_signed_consultation_stays(
        self, client: Any, doctor: dict[str, str]
    ) -> None:
        cid = start(client, doctor).json()["id"]
        schema, _ = schema_and_account(doctor)
        with tenant_session(schema) as s:
            s.get(Consultation, uuid.UUID(cid)).state = "signed"  # type: ignore[union-attr]
            s.commit()
        r = client.patch(
            f"/api/consultations/{cid}", json={"patientReference": {"name": "X"}}, headers=doctor
        )
        assert r.status_code == 409
        assert r.json()["message"] == "The note is signed: who it is about can no longer change."

    @pytest.mark.parametrize(
        "body", [{"title": "x" * 201}, {"patientReference": {"age": "sixty"}}, {"title": 5}]
    )
    def test_bad_input(self, client: Any, doctor: dict[str, str], body: dict[str, Any]) -> None:
        cid = start(client, doctor).json()["id"]
        assert client.patch(f"/api/consultations/{cid}", json=body, headers=doctor).status_code == 422


class TestSettings:
    def test_defaults_and_who_may_change(self, client: Any, doctor: dict[str, str]) -> None:
        r = client.get("/api/consultations/settings", headers=doctor)
        assert r.json() == {"consentMandatory": True, "retentionDays": 30, "editable": True}
        hospital_token = signup(client, hospital_payload())["token"]
        hospital = auth(hospital_token)
        staff = auth(add_staff(client, doctor_payload(), hospital_token)["token"])
        subscribe(hospital_token)
        assert client.get("/api/consultations/settings", headers=staff).json()["editable"] is False
        r = client.put("/api/consultations/settings", json={"retentionDays": 90}, headers=staff)
        assert r.status_code == 403
        r = client.put(
            "/api/consultations/settings",
            json={"retentionDays": 90, "consentMandatory": False},
            headers=hospital,
        )
        assert r.status_code == 200, r.text
        assert client.get("/api/consultations/settings", headers=staff).json() == {
            "consentMandatory": False,
            "retentionDays": 90,
            "editable": False,
        }
        # The independent doctor's own settings are untouched by the hospital's.
        assert client.get("/api/consultations/settings", headers=doctor).json()["retentionDays"] == 30
        # Not mandatory: a consultation may start without the click; its consent is the tenant's policy.
        r = start(client, staff, consent=False)
        assert r.status_code == 201, r.text
        assert r.json()["consent"]["basis"] == "tenant_policy" and r.json()["consent"]["givenBy"] is None

    @pytest.mark.parametrize(
        "body", [{"retentionDays": 0}, {"retentionDays": 4000}, {"consentMandatory": "no"}]
    )
    def test_bad_settings(self, client: Any, doctor: dict[str, str], body: dict[str, Any]) -> None:
        assert client.put("/api/consultations/settings", json=body, headers=doctor).status_code == 422

    def test_admin_has_none(self, client: Any, admin_token: str) -> None:
        assert client.get("/api/consultations/settings", headers=auth(admin_token)).status_code == 403
        assert (
            client.put("/api/consultations/settings", json={}, headers=auth(admin_token)).status_code == 403
        )
        assert client.get("/api/consultations", headers=auth(admin_token)).status_code == 403
        assert client.get("/api/consultations/settings").status_code == 401


def test_a_running_consultation_is_searchable_as_lines_arrive(client: Any, doctor: dict[str, str]) -> None:
    cid = start(client, doctor).json()["id"]

    def found(q: str) -> list[str]:
        return [i["id"] for i in listing(client, doctor, q=q).json()["items"]]

    add_lines(doctor, cid, [("user", "first words")], end=False)
    assert found("first") == [cid]
    add_lines(doctor, cid, [("user", "Hey Cara, hydronephrosis on the left")], end=False)
    assert found("hydronephrosis") == [cid]


def test_the_live_relay_gathers_search_words_as_it_stores_lines(client: Any, doctor: dict[str, str]) -> None:
    """Lines stored by the live relay, and its end of the consultation, leave the search document
    current: a search (or the hourly job) has nothing left to gather."""
    from cara.auth.principal import tenant_role
    from cara.consultations import repository, service
    from cara.live.transcript import Line, store_lines
    from cara.models.base import utcnow
    from tenants.sessions import TenantScope, TenantTransactions

    cid = start(client, doctor).json()["id"]
    schema, account = schema_and_account(doctor)
    scope = TenantScope(schema, tenant_role(schema), account)

    def behind() -> int:
        with tenant_session(schema) as s:
            count = repository.refresh_search(s, account)
            s.rollback()
            return count

    store_lines(
        scope, uuid.UUID(cid), [Line(0, "user", "Suspected pheochromocytoma, order metanephrines", utcnow())]
    )
    assert behind() == 0
    with tenant_session(schema) as s:
        consultation = s.get(Consultation, uuid.UUID(cid))
        assert consultation is not None and consultation.search is not None
        assert "pheochromocytoma" in str(consultation.search)
    store_lines(scope, uuid.UUID(cid), [Line(1, "assistant", "Noted: plasma metanephrines", utcnow())])
    TenantTransactions.of(scope).run(service.end_live, account, uuid.UUID(cid), 0)
    assert behind() == 0
    assert [i["id"] for i in listing(client, doctor, q="plasma pheochro").json()["items"]] == [cid]


def test_the_upgrade_gathers_the_documents_behind_as_the_repository_does(
    client: Any, doctor: dict[str, str]
) -> None:
    """Tenant migration t0007 writes every document that is behind (data from before the eager
    gathering), byte for byte the document the repository writes, so no first search gathers."""
    import importlib.util
    from pathlib import Path

    from sqlalchemy import text

    from cara.consultations import repository

    path = Path(__file__).resolve().parents[3] / "tenants/alembic/tenant/versions/t0007_search_documents.py"
    spec = importlib.util.spec_from_file_location("t0007", path)
    assert spec is not None and spec.loader is not None
    migration = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(migration)

    old = start(client, doctor, patientReference={"recordNumber": "KB-77"}).json()["id"]
    add_lines(doctor, old, [("user", "Suspected pheochromocytoma"), ("assistant", "Order metanephrines")])
    schema, account = schema_and_account(doctor)
    with tenant_session(schema) as s:
        s.execute(text(migration.GATHER.format(schema=schema)))
        s.commit()
        by_migration = s.scalar(
            text(f'SELECT search::text FROM "{schema}".consultations WHERE id = :c'), {"c": old}
        )
        assert repository.refresh_search(s, account) == 0, "nothing left behind for a search"
        repository.index_consultation(s, uuid.UUID(old))
        by_repository = s.scalar(
            text(f'SELECT search::text FROM "{schema}".consultations WHERE id = :c'), {"c": old}
        )
        s.rollback()
    assert by_migration == by_repository and "pheochromocytoma" in by_migration and "'kb'" in by_migration


def test_a_search_gathers_the_documents_behind_and_a_list_writes_nothing(
    client: Any, doctor: dict[str, str]
) -> None:
    """The list reads on the event loop; a search that finds documents of the doctor behind
    (lines stored without the relay's gathering) gathers them once and answers from them."""
    from cara.consultations import repository

    cid = start(client, doctor).json()["id"]
    add_lines(doctor, cid, [("user", "Suspected hydronephrosis")])
    schema, account = schema_and_account(doctor)

    def behind() -> int:
        with tenant_session(schema) as s:
            count = repository.refresh_search(s, account)
            s.rollback()
            return count

    assert [i["id"] for i in listing(client, doctor).json()["items"]] == [cid]
    assert behind() == 1, "a list without a search gathers nothing"
    assert [i["id"] for i in listing(client, doctor, q="hydroneph").json()["items"]] == [cid]
    assert behind() == 0
    assert listing(client, doctor, q="hydroneph").json()["items"][0]["id"] == cid


def test_the_list_writes_the_json_fastapi_would(client: Any, doctor: dict[str, str]) -> None:
    """The page is encoded by the service, not by FastAPI's response_model: the same bytes (the
    compact JSON of the same values, non-ASCII text as is) and content type."""
    import json

    cid = start(client, doctor, patientReference={"name": "Akosua Mensah Ñyarko", "age": 41}).json()["id"]
    assert (
        client.patch(
            f"/api/consultations/{cid}",
            json={"title": "Échographie rénale « contrôle » 超音波"},
            headers=doctor,
        ).status_code
        == 200
    )
    add_lines(doctor, cid, [("user", "Renal ultrasound")])
    answer = listing(client, doctor, limit=1)
    assert answer.headers["content-type"] == "application/json"
    body = answer.json()
    assert body["items"][0]["title"] == "Échographie rénale « contrôle » 超音波"
    assert body["items"][0]["lineCount"] == 1 and body["items"][0]["state"] == "draft"
    assert answer.content == json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    # ... and the very bytes of the page's model, built from the ORM row as every other answer is.
    from cara.consultations import service
    from cara.consultations.schemas import ConsultationPage

    schema, _ = schema_and_account(doctor)
    with tenant_session(schema) as s:
        row = s.get(Consultation, uuid.UUID(cid))
        assert row is not None
        page = ConsultationPage(items=[service.consultation_out(row, 1)], nextCursor=None)
    assert answer.content == page.model_dump_json().encode()
