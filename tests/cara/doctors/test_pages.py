"""GET /api/doctors/page: the hospital's doctors a page at a time (keyset), searched, filtered
and ordered on the server; GET /api/doctors without it still answers the whole list."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.cara.doctors.conftest import HospitalAccount, doctor_form, new_hospital
from tests.factories import auth

NAMES = [
    "Dr Zainab Bello",
    "Dr ama Owusu",
    "Dr Kwame Asante",
    "Dr Efua Mensah",
    "Dr Kofi Addo",
    "Dr Yaa 100%",
]
SPECIALTY = {0: "Radiologist", 3: "Radiologist"}
STATE = {1: "Volta", 4: "volta"}


@pytest.fixture
def seven(client: Any) -> HospitalAccount:
    """A hospital with seven doctors: six named above plus a namesake of the first."""
    hospital = new_hospital(client, plan="hospital-gold")
    for n, name in enumerate([*NAMES, NAMES[0]]):
        body = doctor_form(
            n=n,
            name=name,
            hospitalId=hospital.hospital_id,
            specialty=SPECIALTY.get(n, "Cardiologist"),
            state=STATE.get(n, "Ashanti"),
        )
        r = client.post("/api/doctors/new-doctor", json=body, headers=hospital.headers)
        assert r.status_code == 201, r.text
    return hospital


def page(client: Any, hospital: HospitalAccount, **params: Any) -> httpx.Response:
    return client.get("/api/doctors/page", params=params, headers=hospital.headers)


def walk(
    client: Any, hospital: HospitalAccount, cursor: str | None = None, **params: Any
) -> list[dict[str, Any]]:
    """Every page in turn from `cursor` (the first page without), following nextCursor."""
    items: list[dict[str, Any]] = []
    for _ in range(50):
        r = page(client, hospital, **params, **({"cursor": cursor} if cursor else {}))
        assert r.status_code == 200, r.text
        body = r.json()
        assert len(body["items"]) <= params.get("limit", 50)
        items += body["items"]
        cursor = body["nextCursor"]
        if cursor is None:
            return items
    raise AssertionError("the pages never ended")


class TestPaging:
    def test_pages_join_into_the_whole_list_in_name_order(self, client: Any, seven: HospitalAccount) -> None:
        whole = client.get("/api/doctors", headers=seven.headers).json()
        paged = walk(client, seven, limit=3)
        assert [d["_id"] for d in paged] == [d["_id"] for d in whole]
        assert len({d["_id"] for d in paged}) == 7
        # Namesakes are told apart by id, so neither is skipped nor repeated at a page edge.
        assert [d["name"] for d in paged].count("Dr Zainab Bello") == 2

    def test_every_order_both_ways(self, client: Any, seven: HospitalAccount) -> None:
        by_name = walk(client, seven, limit=2, sort="name")
        assert [d["_id"] for d in walk(client, seven, limit=2, sort="-name")] == [d["_id"] for d in by_name][
            ::-1
        ]
        by_date = walk(client, seven, limit=4, sort="createdAt")
        created = [d["createdAt"] for d in by_date]
        assert created == sorted(created) and len(by_date) == 7
        newest = walk(client, seven, limit=4, sort="-createdAt")
        assert [d["_id"] for d in newest] == [d["_id"] for d in by_date][::-1]

    def test_default_page_and_row_shape(self, client: Any, seven: HospitalAccount) -> None:
        body = page(client, seven).json()
        assert body["nextCursor"] is None and len(body["items"]) == 7
        row = body["items"][0]
        assert set(row) == {
            "_id", "name", "email", "phoneNumber", "specialty", "licenseNumber", "experience", "hospitalId",
            "isActive", "isHospitalCreated", "country", "state", "role", "createdAt",
        }  # fmt: skip
        assert row["hospitalId"] == seven.hospital_id and row["role"] == "doctor"

    def test_the_whole_list_answers_as_before(self, client: Any, seven: HospitalAccount) -> None:
        whole = client.get("/api/doctors", headers=seven.headers).json()
        assert isinstance(whole, list) and len(whole) == 7
        assert {"education", "certifications", "workHistory", "availability"} <= set(whole[0])
        # A row says what the whole list says of the doctor, in the same formats.
        rows = page(client, seven).json()["items"]
        for row, doctor in zip(rows, whole, strict=True):
            assert row == {key: doctor[key] for key in row}

    def test_a_change_between_pages_neither_repeats_nor_skips_the_others(
        self, client: Any, seven: HospitalAccount
    ) -> None:
        first = page(client, seven, limit=3).json()
        # A doctor added before the cursor's position; the next page goes on from where it was.
        body = doctor_form(n=20, name="Dr Aaron Early", hospitalId=seven.hospital_id)
        assert client.post("/api/doctors/new-doctor", json=body, headers=seven.headers).status_code == 201
        rest = walk(client, seven, first["nextCursor"], limit=3)
        seen = [d["_id"] for d in first["items"]] + [d["_id"] for d in rest]
        assert len(seen) == len(set(seen)) == 7


class TestSearchAndFilters:
    def names(self, client: Any, hospital: HospitalAccount, **params: Any) -> list[str]:
        """The names found, sorted here (the database's collation orders the pages)."""
        return sorted(d["name"] for d in walk(client, hospital, limit=2, **params))

    def test_search_by_part_of_name_email_or_licence_any_case(
        self, client: Any, seven: HospitalAccount
    ) -> None:
        assert self.names(client, seven, q="AMA") == ["Dr ama Owusu"]
        assert self.names(client, seven, q="kofi.boateng.2@") == ["Dr Kwame Asante"]
        assert self.names(client, seven, q="GMDC-0004") == ["Dr Kofi Addo"]
        # The user's % is a character, not a wildcard.
        assert self.names(client, seven, q="100%") == ["Dr Yaa 100%"]
        assert self.names(client, seven, q="0%") == ["Dr Yaa 100%"]
        assert self.names(client, seven, q="nobody") == []
        assert len(self.names(client, seven, q="   ")) == 7

    def test_filters_combine(self, client: Any, seven: HospitalAccount) -> None:
        assert self.names(client, seven, specialty="Radiologist") == ["Dr Efua Mensah", "Dr Zainab Bello"]
        assert self.names(client, seven, state="VOLTA") == ["Dr Kofi Addo", "Dr ama Owusu"]
        assert self.names(client, seven, state="volta", q="kofi addo") == ["Dr Kofi Addo"]
        assert self.names(client, seven, specialty="Radiologist", state="Volta") == []

    def test_status_filter(self, client: Any, seven: HospitalAccount) -> None:
        some = page(client, seven, q="Kwame").json()["items"][0]
        r = client.put(f"/api/doctors/{some['_id']}", json={"isActive": False}, headers=seven.headers)
        assert r.status_code == 200
        assert self.names(client, seven, isActive="false") == ["Dr Kwame Asante"]
        assert "Dr Kwame Asante" not in self.names(client, seven, isActive="true")


class TestRefusals:
    def test_a_cursor_that_is_not_ours_is_a_clear_400(self, client: Any, seven: HospitalAccount) -> None:
        for bad in ["garbage!", "bm90IGpzb24", "WyJuYW1lIl0", "WyJuYW1lIiwiYSIsIm5vdC1hLXV1aWQiXQ"]:
            r = page(client, seven, cursor=bad)
            assert r.status_code == 400, (bad, r.text)
            assert "cursor" in r.json()["message"]
        # A cursor of another order.
        cursor = page(client, seven, limit=2, sort="name").json()["nextCursor"]
        r = page(client, seven, limit=2, sort="createdAt", cursor=cursor)
        assert r.status_code == 400 and "cursor" in r.json()["message"]

    @pytest.mark.parametrize(
        "params", [{"limit": 0}, {"limit": 101}, {"sort": "email"}, {"isActive": "maybe"}, {"q": "x" * 201}]
    )
    def test_bad_parameters_are_422(
        self, client: Any, seven: HospitalAccount, params: dict[str, Any]
    ) -> None:
        assert page(client, seven, **params).status_code == 422

    def test_another_hospitals_doctors_stay_out(self, client: Any, seven: HospitalAccount) -> None:
        other = new_hospital(client)
        body = doctor_form(n=30, name="Dr Other Hospital", hospitalId=other.hospital_id)
        assert client.post("/api/doctors/new-doctor", json=body, headers=other.headers).status_code == 201
        assert [d["name"] for d in page(client, other).json()["items"]] == ["Dr Other Hospital"]
        assert "Dr Other Hospital" not in [d["name"] for d in walk(client, seven, limit=3)]
        # Naming the other hospital is 404, as for the whole list.
        r = page(client, seven, hospitalId=other.hospital_id)
        assert r.status_code == 404 and r.json()["message"] == "Hospital not found."
        # A cursor taken from one hospital's list shows the other nothing of the first.
        cursor = page(client, seven, limit=1).json()["nextCursor"]
        assert [d["name"] for d in page(client, other, cursor=cursor).json()["items"]] == [
            "Dr Other Hospital"
        ]

    @pytest.mark.parametrize("params", [{"q": "a\x00b"}, {"specialty": "\x00"}, {"state": "Accra\x00"}])
    def test_nul_in_search_or_filters_is_a_clear_400(
        self, client: Any, seven: HospitalAccount, params: dict[str, Any]
    ) -> None:
        r = page(client, seven, **params)
        assert r.status_code == 400 and "NUL" in r.json()["message"]

    def test_the_page_is_read_under_the_tenants_own_role(self, client: Any, seven: HospitalAccount) -> None:
        """The page's one round trip sets the tenant's role: under another tenant's role the same
        read of this tenant's schema is refused by PostgreSQL itself."""
        import asyncio
        import uuid

        import psycopg

        from cara.auth.principal import tenant_role
        from cara.doctors import repository
        from cara.kit.db import close_async_pool

        own, foreign = tokens_schema(seven.token), tokens_schema(new_hospital(client).token)
        where = repository.PageFilter(hospital_id=uuid.UUID(seven.hospital_id))

        async def read(role_of: str) -> list[Any]:
            try:
                return await repository.page_for_hospital_async(
                    own, tenant_role(role_of), where, sort="name", descending=False, after=None, limit=3
                )
            finally:
                await close_async_pool()

        assert len(asyncio.run(read(own))) == 3
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            asyncio.run(read(foreign))

    def test_only_hospitals(self, client: Any, seven: HospitalAccount) -> None:
        assert client.get("/api/doctors/page").status_code == 401
        login = client.post(
            "/api/auth/login",
            json={"email": "kofi.boateng.0@example.com", "password": "kofi-secret", "role": "doctor"},
        )
        assert client.get("/api/doctors/page", headers=auth(login.json()["token"])).status_code == 403


def test_pages_are_compressed_for_clients_that_accept_it(client: Any, seven: HospitalAccount) -> None:
    raw = client.get("/api/doctors/page", headers={**seven.headers, "Accept-Encoding": "identity"})
    assert "content-encoding" not in raw.headers
    packed = client.get("/api/doctors/page", headers={**seven.headers, "Accept-Encoding": "gzip, br"})
    assert packed.headers["content-encoding"] == "gzip" and "Accept-Encoding" in packed.headers["vary"]
    assert packed.json() == raw.json()
    assert packed.headers["cache-control"] == "private, no-cache"


def tokens_schema(token: str) -> str:
    from cara.auth import tokens

    claims = tokens.decode(token)
    assert claims is not None and claims.tenant_schema is not None
    return claims.tenant_schema
