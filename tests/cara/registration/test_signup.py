"""POST /api/auth/signup for the three roles, with every validation message of spec §5."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, text, update

from cara.config import get_settings
from cara.kit.db import session_scope
from cara.models import Account, AdminInvitation, Hospital, Tenant
from tests.factories import add_staff, admin_payload, auth, doctor_payload, hospital_payload, signup


def account_count() -> int:
    with session_scope() as s:
        return int(s.scalar(select(func.count()).select_from(Account)) or 0)


class TestDoctorSignup:
    def test_creates_account_in_independent_tenant(self, client: Any) -> None:
        data = signup(
            client, doctor_payload(email="Ama.Mensah@Example.com", specialty="General Practitioner")
        )
        user = data["user"]
        assert user["role"] == "doctor"
        assert user["email"] == "ama.mensah@example.com"
        assert user["specialty"] == "General Practitioner"
        assert user["isHospitalCreated"] is False
        assert user["hospitalId"] is None
        # default availability: Monday-Friday 09:00-17:00 available, weekend not
        days = {d["day"]: d for d in user["availability"]}
        assert days["Monday"] == {
            "day": "Monday",
            "startTime": "09:00",
            "endTime": "17:00",
            "isAvailable": True,
        }
        assert days["Sunday"]["isAvailable"] is False
        with session_scope("independent") as s:
            count = s.execute(text("SELECT count(*) FROM independent.doctors")).scalar_one()
            assert count == 1

    @pytest.mark.parametrize(
        ("field", "value", "message"),
        [
            ("name", "", "Name is required"),
            ("email", "", "Email is required"),
            ("email", "not-an-email", "Invalid email format"),
            ("email", "a b@example.com", "Invalid email format"),
            ("password", "", "Password is required"),
            ("password", "12345", "Password must be at least 6 characters"),
            ("phoneNumber", "  ", "Phone number is required"),
            ("licenseNumber", "", "License number is required"),
            ("country", "", "Country is required"),
            ("state", "", "State is required"),
            ("privacyPolicyAccepted", False, "You must accept the privacy policy"),
            ("specialty", "", "Specialty is required"),
            ("specialty", "Astrologer", "Invalid specialty"),
            ("experience", -1, "Experience cannot be negative"),
        ],
    )
    def test_validation_messages(self, client: Any, field: str, value: Any, message: str) -> None:
        r = client.post("/api/auth/signup", json=doctor_payload(**{field: value}))
        assert r.status_code == 422
        body = r.json()
        assert body["message"] == "Please fix the errors in the form"
        assert body["fields"][field] == message
        assert account_count() == 0

    def test_six_character_password_is_enough_for_doctors(self, client: Any) -> None:
        signup(client, doctor_payload(password="abcdef"))

    def test_a_taken_email_in_any_case_makes_nothing(self, client: Any) -> None:
        signup(client, doctor_payload(email="dup@example.com"))
        r = client.post("/api/auth/signup", json=doctor_payload(email="DUP@example.com"))
        # Answered as a new address would be (tests/cara/registration/test_signup_by_mail.py).
        assert r.status_code == 202
        assert account_count() == 1

    def test_public_signup_cannot_join_a_hospital(self, client: Any) -> None:
        hospital = signup(client, hospital_payload())
        r = client.post(
            "/api/auth/signup",
            json=doctor_payload(isHospitalCreated=True, hospitalId=hospital["user"]["hospitalId"]),
        )
        assert r.status_code == 403
        assert account_count() == 1

    def test_hospital_registers_its_own_doctor(self, client: Any) -> None:
        hospital = signup(client, hospital_payload())
        data = add_staff(
            client,
            doctor_payload(isHospitalCreated=True, hospitalId=hospital["user"]["hospitalId"]),
            hospital["token"],
        )
        assert data["user"]["isHospitalCreated"] is True
        assert data["user"]["hospitalId"] == hospital["user"]["hospitalId"]
        me = client.get("/api/auth/user", headers=auth(data["token"]))
        assert me.status_code == 200
        assert me.json()["hospitalName"] == hospital["user"]["name"]

    def test_hospital_cannot_register_doctor_into_another_hospital(self, client: Any) -> None:
        a = signup(client, hospital_payload())
        b = signup(client, hospital_payload())
        r = client.post(
            "/api/auth/signup",
            json=doctor_payload(isHospitalCreated=True, hospitalId=b["user"]["hospitalId"]),
            headers=auth(a["token"]),
        )
        assert r.status_code == 403
        assert account_count() == 2


class TestHospitalSignup:
    def test_provisions_a_schema_at_tenant_head(self, client: Any) -> None:
        data = signup(client, hospital_payload(name="Komfo Anokye"))
        assert data["user"]["role"] == "hospital"
        assert data["user"]["hospitalName"] == "Komfo Anokye"
        with session_scope() as s:
            hospital = s.scalar(select(Hospital).where(Hospital.name == "Komfo Anokye"))
            assert hospital is not None
            tenant = s.get(Tenant, hospital.tenant_id)
            assert tenant is not None and tenant.kind == "hospital"
            schema = tenant.schema_name
            tables = set(
                s.execute(
                    text("SELECT tablename FROM pg_tables WHERE schemaname = :s"), {"s": schema}
                ).scalars()
            )
            assert {"doctors", "audit_events", "alembic_version"} <= tables

    @pytest.mark.parametrize(
        ("field", "value", "message"),
        [
            ("name", "", "Name is required"),
            ("email", "x@", "Invalid email format"),
            ("password", "short", "Password must be at least 8 characters"),
            ("phoneNumber", "", "Phone number is required"),
            ("address", "", "Address is required"),
            ("registrationNumber", "", "Registration number is required"),
            ("country", "", "Country is required"),
            ("state", "", "State is required"),
            ("type", "military", "Type must be private or public"),
            ("capacity", -5, "Capacity cannot be negative"),
            ("website", "not a url", "Website must be a valid URL"),
            ("privacyPolicyAccepted", False, "You must accept the privacy policy."),
        ],
    )
    def test_validation_messages(self, client: Any, field: str, value: Any, message: str) -> None:
        r = client.post("/api/auth/signup", json=hospital_payload(**{field: value}))
        assert r.status_code == 422
        assert r.json()["fields"][field] == message
        with session_scope() as s:
            assert s.scalar(select(func.count()).select_from(Tenant).where(Tenant.kind == "hospital")) == 0

    def test_website_is_optional(self, client: Any) -> None:
        signup(client, hospital_payload(website=None))

    def test_failed_signup_leaves_no_schema(self, client: Any) -> None:
        signup(client, hospital_payload(email="taken@example.com"))
        r = client.post("/api/auth/signup", json=hospital_payload(email="taken@example.com"))
        assert r.status_code == 202
        with session_scope() as s:
            n = s.execute(
                text("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'hospital\\_%'")
            ).scalar_one()
            assert n == 1


class TestAdminSignup:
    def test_refused_without_invitation(self, client: Any) -> None:
        r = client.post("/api/auth/signup", json=admin_payload())
        assert r.status_code == 403
        assert "invitation" in r.json()["message"]
        assert account_count() == 0

    def test_with_invitation(self, client: Any, invitation: dict[str, Any]) -> None:
        data = signup(
            client, admin_payload(email="new-admin@example.com", invitationToken=invitation["token"])
        )
        assert data["user"]["role"] == "admin"

    def test_an_invited_admin_is_made_at_once_and_signed_in_from_the_browser(
        self, client: Any, invitation: dict[str, Any]
    ) -> None:
        """The invitation was mailed to that address, so no sign-up link is needed; from the
        browser app the answer carries the session cookie, as a sign-in does."""
        r = client.post(
            "/api/auth/signup",
            json=admin_payload(email="new-admin@example.com", invitationToken=invitation["token"]),
            headers={"X-Requested-With": "XMLHttpRequest"},
        )
        assert r.status_code == 201, r.text
        assert r.headers.get("set-cookie", "").startswith("cara_admin_session=")

    def test_invitation_is_single_use(self, client: Any, invitation: dict[str, Any]) -> None:
        signup(client, admin_payload(email="new-admin@example.com", invitationToken=invitation["token"]))
        # Free the email again (the first admin's address changed), so that only the used
        # invitation stands between a second signup and a second admin account.
        with session_scope() as s:
            s.execute(
                update(Account)
                .where(Account.email == "new-admin@example.com")
                .values(email="renamed-admin@example.com")
            )
        r = client.post(
            "/api/auth/signup",
            json=admin_payload(email="new-admin@example.com", invitationToken=invitation["token"]),
        )
        assert r.status_code == 403
        assert r.json()["fields"] == {"invitationToken": "A valid invitation is required"}
        assert account_count() == 2  # the inviting admin and the first signup only

    def test_invitation_lasts_the_configured_hours(self, client: Any, admin_token: str) -> None:
        before = datetime.now(UTC)
        r = client.post(
            "/api/admin/invitations", json={"email": "later-admin@example.com"}, headers=auth(admin_token)
        )
        assert r.status_code == 201
        expires = datetime.fromisoformat(r.json()["expiresAt"])
        ttl = timedelta(hours=get_settings().admin_invitation_ttl_hours)
        assert ttl == timedelta(hours=72)
        assert before + ttl <= expires <= datetime.now(UTC) + ttl

    def test_expired_invitation_is_refused(self, client: Any, invitation: dict[str, Any]) -> None:
        with session_scope() as s:
            s.execute(
                update(AdminInvitation)
                .where(AdminInvitation.email == "new-admin@example.com")
                .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
            )
        before = account_count()
        r = client.post(
            "/api/auth/signup",
            json=admin_payload(email="new-admin@example.com", invitationToken=invitation["token"]),
        )
        assert r.status_code == 403
        assert r.json()["fields"] == {"invitationToken": "A valid invitation is required"}
        assert account_count() == before

    def test_invitation_is_bound_to_its_email(self, client: Any, invitation: dict[str, Any]) -> None:
        r = client.post(
            "/api/auth/signup",
            json=admin_payload(email="someone-else@example.com", invitationToken=invitation["token"]),
        )
        assert r.status_code == 403

    @pytest.mark.parametrize(
        ("field", "value", "message"),
        [
            ("name", "", "Name is required"),
            ("email", "", "Email is required"),
            ("email", "admin.example.com", "Invalid email format"),
            ("password", "", "Password is required"),
            ("password", "1234567", "Password must be at least 8 characters"),
            ("phoneNumber", "", "Phone number is required"),
            ("phoneNumber", "123456789", "Invalid phone number format"),
            ("phoneNumber", "1234567890123456", "Invalid phone number format"),
            ("phoneNumber", "+233241234567", "Invalid phone number format"),
        ],
    )
    def test_validation_messages(self, client: Any, field: str, value: Any, message: str) -> None:
        r = client.post("/api/auth/signup", json=admin_payload(**{field: value}))
        assert r.status_code == 422
        assert r.json()["fields"][field] == message

    def test_only_admins_invite(self, client: Any) -> None:
        hospital = signup(client, hospital_payload())
        r = client.post(
            "/api/admin/invitations", json={"email": "x@example.com"}, headers=auth(hospital["token"])
        )
        assert r.status_code == 403
        r = client.post("/api/admin/invitations", json={"email": "x@example.com"})
        assert r.status_code == 401


class TestBadInput:
    def test_unknown_role(self, client: Any) -> None:
        r = client.post("/api/auth/signup", json=doctor_payload(role="superuser"))
        assert r.status_code == 422
        assert r.json()["fields"]["role"] == "Invalid role"

    def test_malformed_json(self, client: Any) -> None:
        r = client.post(
            "/api/auth/signup", content=b'{"role": "doctor",', headers={"content-type": "application/json"}
        )
        assert r.status_code == 400
        assert r.json() == {"message": "Malformed JSON in request body.", "fields": {}}

    def test_body_not_an_object(self, client: Any) -> None:
        r = client.post("/api/auth/signup", json=["doctor"])
        assert r.status_code == 400
        assert r.json()["message"] == "Request body must be a JSON object."

    @pytest.mark.parametrize(
        ("field", "value"),
        [("experience", "many"), ("privacyPolicyAccepted", "maybe"), ("name", 42), ("certifications", "x")],
    )
    def test_wrong_types(self, client: Any, field: str, value: Any) -> None:
        r = client.post("/api/auth/signup", json=doctor_payload(**{field: value}))
        assert r.status_code == 422
        assert field in r.json()["fields"]
        assert account_count() == 0

    def test_oversized_body(self, client: Any) -> None:
        r = client.post("/api/auth/signup", json=doctor_payload(name="x" * 2_000_000))
        assert r.status_code == 413
        assert r.json()["message"].startswith("Request body is too large")
        assert account_count() == 0

    def test_oversized_chunked_body(self, client: Any) -> None:
        def chunks() -> Any:
            yield b'{"name": "'
            for _ in range(300):
                yield b"x" * 8192
            yield b'"}'

        r = client.post("/api/auth/signup", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413
        assert account_count() == 0

    def test_unknown_route_uses_error_shape(self, client: Any) -> None:
        r = client.get("/api/nope")
        assert r.status_code == 404
        assert r.json() == {"message": "Not found.", "fields": {}}
