"""The async reads' transaction start (cara.kit.db.read_only_preamble), and the three per-tenant
query heads built on it: a read only transaction, the tenant's role set first, the role quoted."""

from __future__ import annotations

from cara.auth import repository as auth_repository
from cara.consultations import repository as consultations_repository
from cara.doctors import repository as doctors_repository
from cara.kit.db import read_only_preamble

ROLE_PREAMBLE = b'BEGIN READ ONLY; SET LOCAL ROLE "cara_x_h_one"; '


def test_the_preamble_sets_the_role_inside_a_read_only_transaction() -> None:
    assert read_only_preamble("cara_x_h_one").as_bytes(None) == ROLE_PREAMBLE


def test_without_a_role_the_preamble_is_the_transaction_alone() -> None:
    assert read_only_preamble(None).as_bytes(None) == b"BEGIN READ ONLY; "


def test_the_role_is_quoted_as_an_identifier() -> None:
    assert read_only_preamble('we"ird').as_bytes(None) == b'BEGIN READ ONLY; SET LOCAL ROLE "we""ird"; '


def test_the_signed_in_user_read_starts_with_the_preamble() -> None:
    head = auth_repository._user_query_head("h_one", "cara_x_h_one")
    assert head.startswith(ROLE_PREAMBLE + b"SELECT ")
    assert b' LEFT JOIN "h_one".doctors p ' in head
    platform = auth_repository._user_query_head(None, None)
    assert platform.startswith(b"BEGIN READ ONLY; SELECT ")
    assert b"SET LOCAL ROLE" not in platform


def test_the_doctor_page_starts_with_the_preamble() -> None:
    head = doctors_repository._page_head("h_one", "cara_x_h_one")
    assert head.startswith(ROLE_PREAMBLE + b"SELECT a.id::text, ")
    assert head.endswith(
        b" JOIN \"h_one\".doctors p ON p.account_id = a.id WHERE a.role = 'doctor' AND a.hospital_id = "
    )


def test_the_consultation_list_starts_with_the_preamble() -> None:
    fixed = consultations_repository._list_sql("h_one", "cara_x_h_one")
    assert fixed.head == ROLE_PREAMBLE
    assert fixed.plain.startswith(b"SELECT ")
