"""The form rules of spec §5: each field rule once, read through the forms that use it.

The endpoints' tests (registration, doctors, profiles) show the same texts over HTTP; here
each rule and each per-form difference is pinned once, without a request.
"""

from __future__ import annotations

from typing import Any

import pytest

from cara.doctors.schemas import DOCTOR_FORMS, DoctorCreate, DoctorUpdate
from cara.kit.validation import FIELD_RULES, TEXTS, FormRules
from cara.registration.schemas import SIGNUP_FORMS

FORMS: dict[str, FormRules] = {
    "doctor registration": DOCTOR_FORMS["registration"],
    "manage add": DOCTOR_FORMS["manage_add"],
    "manage edit": DOCTOR_FORMS["manage_edit"],
    "profile": DOCTOR_FORMS["profile"],
    "hospital registration": SIGNUP_FORMS["hospital"],
    "admin registration": SIGNUP_FORMS["admin"],
}

# (form, field, value, text): one case per text of TEXTS, then each per-form difference.
CASES: list[tuple[str, str, Any, str]] = [
    ("doctor registration", "name", " ", "Name is required"),
    (
        "hospital registration",
        "name",
        "Clinic \u202eevil",
        "Name must not contain text-direction control characters",
    ),
    ("doctor registration", "email", "", "Email is required"),
    ("doctor registration", "email", "a b@example.com", "Invalid email format"),
    ("doctor registration", "password", "", "Password is required"),
    ("doctor registration", "password", "12345", "Password must be at least 6 characters"),
    ("doctor registration", "password", "x" * 201, "Password is too long"),
    ("doctor registration", "phoneNumber", "  ", "Phone number is required"),
    ("manage add", "phoneNumber", "call me", "Invalid phone number format"),
    ("doctor registration", "specialty", "", "Specialty is required"),
    ("doctor registration", "specialty", "Astrologer", "Invalid specialty"),
    ("doctor registration", "licenseNumber", "", "License number is required"),
    ("doctor registration", "experience", -1, "Experience cannot be negative"),
    ("doctor registration", "experience", 81, "Experience must be 80 years or less"),
    ("doctor registration", "country", "", "Country is required"),
    ("doctor registration", "state", "", "State is required"),
    ("doctor registration", "privacyPolicyAccepted", False, "You must accept the privacy policy"),
    ("hospital registration", "address", "", "Address is required"),
    ("hospital registration", "registrationNumber", "", "Registration number is required"),
    ("hospital registration", "type", "military", "Type must be private or public"),
    ("hospital registration", "capacity", -5, "Capacity cannot be negative"),
    ("hospital registration", "capacity", 1_000_001, "Capacity must be 1,000,000 beds or fewer"),
    ("hospital registration", "website", "not a url", "Website must be a valid URL"),
    # The forms' own minimums and wording.
    ("manage add", "state", "", "State/Province is required"),
    ("manage edit", "state", " ", "State/Province is required"),
    ("hospital registration", "privacyPolicyAccepted", False, "You must accept the privacy policy."),
    ("hospital registration", "password", "1234567", "Password must be at least 8 characters"),
    ("admin registration", "password", "1234567", "Password must be at least 8 characters"),
    ("admin registration", "phoneNumber", "+233241234567", "Invalid phone number format"),
    ("profile", "experience", None, "Experience cannot be negative"),
]

# Values each form accepts, per field (phone numbers differ: digits only for admins).
GOOD: dict[str, Any] = {
    "name": "Ama Mensah",
    "email": "ama@example.com",
    "password": "long-enough",
    "phoneNumber": "0244123456",
    "specialty": "Nurse",
    "licenseNumber": "GMDC-1",
    "experience": 3,
    "country": "Ghana",
    "state": "Ashanti",
    "privacyPolicyAccepted": True,
    "address": "1 Ridge Road",
    "registrationNumber": "R-1",
    "type": "public",
    "capacity": 40,
    "website": "https://ridge.example.org",
}


def good_values(form: FormRules) -> dict[str, Any]:
    return {name: GOOD[name] for name in form.fields}


class TestRules:
    @pytest.mark.parametrize(("form", "field", "value", "text"), CASES)
    def test_each_rule_in_its_forms_words(self, form: str, field: str, value: Any, text: str) -> None:
        rules = FORMS[form]
        values = {**good_values(rules), field: value}
        assert rules.check(values, sent=values) == {field: text}

    def test_every_text_is_pinned(self) -> None:
        pinned = {text for _, _, _, text in CASES}
        # Read through the doctor registration's minimums (6 characters, 80 years).
        shared = {FORMS["doctor registration"].text(key) for key in TEXTS}
        assert shared - pinned == set()

    @pytest.mark.parametrize("form", list(FORMS))
    def test_good_values_pass(self, form: str) -> None:
        assert FORMS[form].check(good_values(FORMS[form]), sent=FORMS[form].fields) == {}

    def test_a_form_names_only_known_fields(self) -> None:
        assert set(GOOD) == set(FIELD_RULES)
        with pytest.raises(ValueError, match="no field rule"):
            FormRules(fields=("name", "favouriteColour"))


class TestWhichFieldsAreChecked:
    def test_a_whole_form_reports_in_its_own_order(self) -> None:
        errors = DOCTOR_FORMS["manage_add"].check({})
        assert list(errors) == [
            "name",
            "email",
            "phoneNumber",
            "licenseNumber",
            "country",
            "state",
            "password",
        ]
        assert list(DOCTOR_FORMS["registration"].check({}))[:4] == [
            "name",
            "email",
            "password",
            "phoneNumber",
        ]

    def test_optional_fields_may_be_left_out(self) -> None:
        values = {k: v for k, v in good_values(DOCTOR_FORMS["manage_add"]).items() if k != "specialty"}
        values["experience"] = None
        assert DOCTOR_FORMS["manage_add"].check(values) == {}
        assert DOCTOR_FORMS["registration"].check(
            {**good_values(DOCTOR_FORMS["registration"]), "specialty": None}
        ) == {"specialty": "Specialty is required"}

    def test_an_edit_checks_the_fields_with_a_value(self) -> None:
        assert DOCTOR_FORMS["manage_edit"].check({"name": None, "state": ""}) == {
            "state": "State/Province is required"
        }

    def test_the_profile_checks_what_was_sent_even_null(self) -> None:
        form = DOCTOR_FORMS["profile"]
        assert form.check({"name": None, "email": None}, sent={"name"}) == {"name": "Name is required"}


class TestPayloads:
    def test_manage_doctors_older_phone_name_counts_only_without_phone_number(self) -> None:
        assert DoctorCreate(phone="0244 123 456").form_values()["phoneNumber"] == "0244 123 456"
        both = DoctorUpdate(phone="call me", phoneNumber="0244123456")
        assert both.phone_number == "0244123456"
        assert DOCTOR_FORMS["manage_edit"].check(both.form_values()) == {}
