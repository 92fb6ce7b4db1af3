"""Tenant isolation: through the API and at the database level."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import ProgrammingError

from cara.kit.db import platform_session, tenant_session
from cara.models import DoctorProfile, Tenant
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup


@pytest.fixture
def two_hospitals(client: Any) -> dict[str, Any]:
    """Hospitals A and B, each with two doctors of its own."""
    out: dict[str, Any] = {}
    for name in ("A", "B"):
        h = signup(client, hospital_payload(name=f"Hospital {name}"))
        doctors = [add_staff(client, doctor_payload(isHospitalCreated=True), h["token"]) for _ in range(2)]
        with platform_session() as s:
            schema = s.scalar(
                select(Tenant.schema_name).where(Tenant.kind == "hospital").order_by(Tenant.created_at.desc())
            )
        out[name] = {"hospital": h, "doctors": doctors, "schema": schema}
    return out


class TestDatabaseLevel:
    def test_a_session_bound_to_a_tenant_sees_only_its_rows(self, two_hospitals: dict[str, Any]) -> None:
        a, b = two_hospitals["A"], two_hospitals["B"]
        with tenant_session(a["schema"]) as s:
            ids = {str(d.account_id) for d in s.scalars(select(DoctorProfile))}
        assert ids == {d["user"]["_id"] for d in a["doctors"]}
        assert not ids & {d["user"]["_id"] for d in b["doctors"]}

    def test_every_statement_names_the_bound_schema(self, two_hospitals: dict[str, Any]) -> None:
        a = two_hospitals["A"]
        statements: list[str] = []
        from sqlalchemy import event

        with tenant_session(a["schema"]) as s:
            conn = s.connection()

            @event.listens_for(conn, "before_cursor_execute")
            def capture(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
                statements.append(statement)

            s.scalar(select(func.count()).select_from(DoctorProfile))
        assert statements and all(f"{a['schema']}.doctors" in st for st in statements)
        assert not any(two_hospitals["B"]["schema"] in st for st in statements)

    def test_unqualified_sql_fails_closed(self, two_hospitals: dict[str, Any]) -> None:
        # The connection search_path is an empty schema: forgetting the schema is an error,
        # never a silent read of whichever tenant a pooled connection last served.
        with tenant_session(two_hospitals["A"]["schema"]) as s, pytest.raises(ProgrammingError):
            s.execute(text("SELECT count(*) FROM doctors"))


class TestApiLevel:
    def test_current_user_reads_from_own_tenant(self, client: Any, two_hospitals: dict[str, Any]) -> None:
        for name in ("A", "B"):
            for d in two_hospitals[name]["doctors"]:
                me = client.get("/api/auth/user", headers=auth(d["token"])).json()
                assert me["hospitalName"] == f"Hospital {name}"
                assert me["licenseNumber"]  # profile came from the doctor's own tenant schema

    def test_token_cannot_be_pointed_at_another_tenant(
        self, client: Any, two_hospitals: dict[str, Any]
    ) -> None:
        import jwt

        from cara.config import get_settings

        doctor = two_hospitals["A"]["doctors"][0]
        claims = jwt.decode(doctor["token"], options={"verify_signature": False})
        claims["tnt"] = two_hospitals["B"]["schema"]
        forged = jwt.encode(claims, get_settings().jwt_secret, algorithm="HS256")
        assert client.get("/api/auth/user", headers=auth(forged)).status_code == 401


class TestDatabaseRoles:
    """Per-tenant roles: PostgreSQL itself refuses cross-tenant reads."""

    def test_tenant_role_cannot_read_another_tenant(self, two_hospitals: dict[str, Any]) -> None:
        from cara.auth.principal import tenant_role
        from cara.kit.db import restrict_to_tenant_role

        a, b = two_hospitals["A"], two_hospitals["B"]
        with tenant_session(a["schema"]) as s:
            restrict_to_tenant_role(s, tenant_role(a["schema"]))
            own = s.execute(text(f'SELECT count(*) FROM "{a["schema"]}".doctors')).scalar_one()
            assert own == 2
            with pytest.raises(ProgrammingError, match="permission denied"):
                s.execute(text(f'SELECT count(*) FROM "{b["schema"]}".doctors'))

    def test_role_survives_commit(self, two_hospitals: dict[str, Any]) -> None:
        from cara.auth.principal import tenant_role
        from cara.kit.db import restrict_to_tenant_role

        a, b = two_hospitals["A"], two_hospitals["B"]
        with tenant_session(a["schema"]) as s:
            restrict_to_tenant_role(s, tenant_role(a["schema"]))
            s.commit()
            assert s.execute(text("SELECT current_user")).scalar_one() == tenant_role(a["schema"])
            with pytest.raises(ProgrammingError, match="permission denied"):
                s.execute(text(f'SELECT 1 FROM "{b["schema"]}".audit_events LIMIT 1'))

    def test_requests_run_under_the_tenant_role(
        self, client: Any, two_hospitals: dict[str, Any], monkeypatch: Any
    ) -> None:
        from cara.auth import repository
        from cara.auth.principal import tenant_role

        seen: list[str] = []
        real = repository.user_row

        async def spy(*args: Any) -> Any:
            row = await real(*args)
            seen.append(row[13])  # current_user: the role the read ran under
            return row

        monkeypatch.setattr(repository, "user_row", spy)
        doctor = two_hospitals["B"]["doctors"][0]
        assert client.get("/api/auth/user", headers=auth(doctor["token"])).status_code == 200
        assert seen == [tenant_role(two_hospitals["B"]["schema"])]

    @pytest.mark.parametrize("params", [{}, {"q": "chest pain"}], ids=["list", "search"])
    def test_the_consultation_list_runs_under_the_tenant_role(
        self, client: Any, two_hospitals: dict[str, Any], monkeypatch: Any, params: dict[str, str]
    ) -> None:
        """GET /api/consultations reads on the event loop with SQL of its own: the role it ran
        under, asked in the same transaction."""
        from cara.auth.principal import tenant_role
        from cara.consultations import repository

        seen: list[str] = []
        real = repository.fetch_sets

        async def spy(query: bytes) -> Any:
            sets = await real(query.replace(b"; COMMIT", b"; SELECT current_user; COMMIT"))
            seen.append(sets.pop()[0][0])
            return sets

        monkeypatch.setattr(repository, "fetch_sets", spy)
        doctor = two_hospitals["B"]["doctors"][0]
        answer = client.get("/api/consultations", params=params, headers=auth(doctor["token"]))
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"items": [], "nextCursor": None}
        assert seen == [tenant_role(two_hospitals["B"]["schema"])]
