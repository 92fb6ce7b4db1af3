"""Property-based fuzzing of the whole API: bad input gets a clear 4xx, never a 500.

Schemathesis reads the API's OpenAPI document (/api/openapi.json) and, for every
operation, sends generated requests in-process through the ASGI app: valid ones
and deliberately invalid ones (wrong types, missing and extra fields, boundary
values, malformed bodies, unexpected HTTP methods). Every response must be

- never a 5xx, and
- for a 4xx, the one error shape of docs/architecture.md:
  {"message": <non-empty str>, "fields": {<str>: <non-empty str>}}.

What the fuzzer gets on top of the plain document, so that it goes past the
first check:

- Edge values as examples. Before Schemathesis reads the document,
  `with_examples` adds `examples`: text with a NUL byte for every string field,
  32/64-bit boundaries for every integer field, odd but well-formed emails, JSON
  for the react-admin `sort` / `range` / `filter` parameters, and real or
  near-real ids for path parameters. The examples and coverage phases try each one on each field, so
  they are found on every run, not by luck.
- Valid neighbours. The request models accept almost anything at the type level
  (the services check the fields), so a generated body mostly stops at the first
  "is required". Each generated body of an operation in VALID_BODIES is sent
  twice: as generated, and laid over a valid body (`over_valid_body`), which
  carries the fuzzed fields down to the database.
- Tokens. Every operation that reads a bearer token is fuzzed with a valid token
  of each role and without one: in full (examples, coverage and MAX_EXAMPLES
  random requests) for the roles that reach its code (FULL_RUN_ROLES), randomly
  for the others (LIGHT_RUN_EXAMPLES per operation), where an admin operation
  must refuse with a clean 4xx.

Bounded and deterministic: a fixed seed, derandomized generation, no example
database. A 500 is reported with the request and the app frames of the
exception the app logged; Hypothesis reports each distinct one.

For the length of each test, argon2 runs with cheap parameters
(`cheap_password_hashing`) and the access and error logs are muted (`quiet_logs`).
"""

from __future__ import annotations

import copy
import json
import logging
import traceback
import uuid
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cara.admin_console.repository import AUDIT_SORT, DOCTOR_SORT, HOSPITAL_SORT, PAYMENT_SORT
from cara.auth.principal import Authenticator, authenticate, optional_principal
from cara.main import app as cara_app
from tests.factories import add_staff, admin_payload, auth, doctor_payload, hospital_payload, signup

REPO = Path(__file__).resolve().parents[2]
MAX_EXAMPLES = 30
SEED = 20260501
ROLES = ["anonymous", "doctor", "hospital", "admin"]

# ---------------------------------------------------------------- known data

# Accounts the fixtures create, with known credentials for generated logins.
# A Radiotherapist: the radiotherapy chat is theirs alone, so every assistant operation is reachable.
DOCTOR = doctor_payload(
    email="fuzz.doctor@example.com", name="Dr Fuzz", licenseNumber="GMC-FUZZ", specialty="Radiotherapist"
)
HOSPITAL = hospital_payload(
    email="fuzz.hospital@example.com", name="Fuzz Hospital", registrationNumber="R-FUZZ"
)
ADMIN_EMAIL, ADMIN_PASSWORD = "root-admin@example.com", "root-password"  # the admin_token fixture
KNOWN_EMAILS = (DOCTOR["email"], HOSPITAL["email"], ADMIN_EMAIL)

# A hospital and one of its doctors, created on first use, for the path parameters.
TARGET_HOSPITAL = hospital_payload(email="target.hospital@example.com", registrationNumber="R-TARGET")
TARGET_DOCTOR = doctor_payload(
    email="target.doctor@example.com", licenseNumber="GMC-TARGET", isHospitalCreated=True
)
HOSPITAL_ID, DOCTOR_ID = "fuzz-target-hospital", "fuzz-target-doctor"  # placeholders, swapped for real ids

# Valid bodies per operation: generated fields are also sent laid over one of these.
VALID_BODIES: dict[str, list[dict[str, Any]]] = {
    "POST /api/auth/signup": [
        doctor_payload(email="new.doctor@example.com", licenseNumber="GMC-NEW"),
        doctor_payload(email="staff.doctor@example.com", licenseNumber="GMC-STAFF", isHospitalCreated=True),
        hospital_payload(email="new.hospital@example.com", registrationNumber="R-NEW"),
        admin_payload(email="new.admin@example.com", invitationToken="not-a-real-invitation"),
    ],
    "POST /api/auth/login": [
        {"email": DOCTOR["email"], "password": DOCTOR["password"], "role": "doctor"},
        {"email": HOSPITAL["email"], "password": HOSPITAL["password"], "role": "hospital"},
        {"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "role": "admin"},
    ],
    "POST /api/auth/forgot-password": [{"email": DOCTOR["email"]}],
    "POST /api/auth/reset-password": [{"token": "x" * 43, "password": "a-new-password"}],
    "POST /api/admin/invitations": [{"email": "invited.admin@example.com"}],
    "POST /api/summarize": [
        {"transcript": "Clinician: Hey Cara, chest pain since noon.\nCara: An ECG now.", "kind": "summary"},
        {"transcript": [{"speaker": "user", "text": "BP 150/95"}], "kind": "report", "focus": "hypertension"},
    ],
    "POST /api/radiotherapy-chat/messages": [{"message": "Cord tolerance for 8 Gy in one fraction?"}],
    "POST /api/doctors/new-doctor": [
        {
            "name": "Dr Kofi Annan",
            "email": "kofi.fuzz@example.com",
            "password": "secret12",
            "phoneNumber": "0244123456",
            "specialty": "Nurse",
            "licenseNumber": "GH-1",
            "experience": 3,
            "country": "Ghana",
            "state": "Ashanti",
        },
    ],
    "PUT /api/doctors/{doctor_id}": [{"isActive": False}, {"name": "Dr Renamed", "experience": 4}],
    "PUT /api/auth/doctor/profile": [
        {
            "name": "Dr Ama Mensah",
            "phoneNumber": "0244123456",
            "experience": 5,
            "certifications": [{"name": "FWACS", "issuer": "WACS", "date": "2019-06-01"}],
            "workHistory": [{"hospital": "Ridge", "position": "Registrar", "startDate": "2015-01-01"}],
            "availability": [
                {"day": "Monday", "startTime": "08:00", "endTime": "16:00", "isAvailable": True}
            ],
        },
    ],
}
# Sign-up fields that only one kind of account uses: they decide which valid body to lay them on.
SIGNUP_FIELDS_OF = {
    "hospital": {"address", "type", "registrationNumber", "capacity", "website"},
    "admin": {"invitationToken"},
    "doctor": {"specialty", "licenseNumber", "experience", "education", "certifications", "workHistory",
               "availability", "isHospitalCreated", "hospitalId"},
}  # fmt: skip

# ---------------------------------------------------------------- edge values

NUL_TEXT = "nul\x00byte"
INT_EDGES = [-1, 0, 2**31 - 1, 2**31, 2**63 - 1, 2**63, 10**20]
EMAILS = [*KNOWN_EMAILS, "  Fuzz.Doctor@EXAMPLE.com ", "nul\x00byte@example.com", "ünïcødé@exämple.com",
          "a" * 240 + "@example.com", "quote'%_\\@example.com"]  # fmt: skip
SORT_FIELDS = sorted({*HOSPITAL_SORT, *DOCTOR_SORT, *PAYMENT_SORT, *AUDIT_SORT})
SORTS = [json.dumps([f, "ASC"]) for f in SORT_FIELDS] + [
    '["name","desc"]',
    '["nope","ASC"]',
    '["name"]',
    "[1,2]",
]
RANGES = [
    json.dumps(pair)
    for pair in (
        [0, 24], [0, 0], [5, 2], [-1, 3], [0, 10**6], [0.5, 2], [True, False],
        [2**31, 2**31 + 24], [2**63 - 1, 2**63 - 1], [2**63, 2**63], [10**20, 10**20],
    )
]  # fmt: skip
FILTERS = [
    json.dumps({key: value})
    for key in ("q", "status", "specialization", "action", "isVerified")
    for value in ("accra", NUL_TEXT, "%_\\", True, 1, None, "suspended")
]
PATH_IDS = {
    "hospital_id": [HOSPITAL_ID, str(uuid.UUID(int=0)), "not-a-uuid", f"{{{uuid.UUID(int=1)}}}", NUL_TEXT],
    "doctor_id": [DOCTOR_ID, str(uuid.UUID(int=0)), "not-a-uuid", uuid.UUID(int=2).hex, NUL_TEXT],
}
QUERY_EXAMPLES = {  # the first of each is neutral: the examples phase fills the other parameters with it
    "sort": ["", *SORTS],
    "range": ["", *RANGES],
    "filter": ["", *FILTERS],
    "timeRange": ["weekly", "monthly", "yearly", "Weekly", "", NUL_TEXT],
}


def with_examples(document: dict[str, Any]) -> dict[str, Any]:
    """A copy of the OpenAPI document with the edge values above as `examples`.

    Schemathesis' examples phase sends each parameter example, and its coverage
    phase each body-property example, so every edge value is tried on every field.
    A body property's first example is what the coverage phase fills the other
    properties with, so it is a blank one, which `over_valid_body` replaces.
    """
    doc = copy.deepcopy(document)
    schemas = doc["components"]["schemas"]
    for model in schemas.values():
        for name, prop in model.get("properties", {}).items():
            branches = prop.get("anyOf", [prop])
            types = {branch.get("type") for branch in branches}
            if name == "email":
                prop["examples"] = ["", *EMAILS]
            elif "string" in types:
                prop["examples"] = ["", NUL_TEXT]
            elif "integer" in types and "null" in types:
                prop["examples"] = [None, *INT_EDGES]
            elif "array" in types:
                items = next(b.get("items", {}) for b in branches if b.get("type") == "array")
                item = schemas[items["$ref"].split("/")[-1]] if "$ref" in items else items
                strings = [k for k, v in item.get("properties", {}).items() if "string" in json.dumps(v)]
                prop["examples"] = [[], [{k: NUL_TEXT for k in strings} if strings else NUL_TEXT]]
    for item in doc["paths"].values():
        for operation in item.values():
            for param in operation.get("parameters", []):
                values = QUERY_EXAMPLES.get(param["name"]) or PATH_IDS.get(param["name"])
                if values:
                    param["examples"] = {f"edge{i}": {"value": v} for i, v in enumerate(values)}
    return doc


# ---------------------------------------------------------------- the schema


def _api_routes(routes: Any) -> Iterator[APIRoute]:
    """Every APIRoute, including those of included routers (nested, not flattened, in FastAPI)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
            continue
        inner = getattr(route, "original_router", route)
        yield from _api_routes(getattr(inner, "routes", []))


def _access(route: APIRoute) -> str:
    """'public', 'optional' (a token is read when sent), 'signed-in' (any role) or 'admin'."""
    found = "public"
    stack = [route.dependant]
    while stack:
        dep = stack.pop()
        if isinstance(dep.call, Authenticator):
            return "admin" if dep.call.roles == {"admin"} else "signed-in"
        if dep.call in (authenticate, optional_principal):
            found = "optional"
        stack.extend(dep.dependencies)
    return found


ACCESS = {str(r.operation_id): _access(r) for r in _api_routes(cara_app.routes) if r.include_in_schema}
# Who gets the full run (examples, coverage and MAX_EXAMPLES random requests) of each kind
# of operation. A sign-up reads the token only to let a hospital register its own doctors
# (cara.registration.service.plan_signup); admin operations refuse everyone but admins. The other
# pairs of operation and role get a lighter, random-only run (test_operation_as_other_role).
FULL_RUN_ROLES = {
    "public": ["anonymous"],
    "optional": ["anonymous", "hospital"],
    "signed-in": ROLES,
    "admin": ["admin"],
}
OPERATIONS = {kind: sorted(op for op, access in ACCESS.items() if access == kind) for kind in FULL_RUN_ROLES}
LIGHT_RUN_OPERATIONS = {
    role: sorted(
        op for op, access in ACCESS.items() if access != "public" and role not in FULL_RUN_ROLES[access]
    )
    for role in ROLES
}
LIGHT_RUN_EXAMPLES = 10  # per operation and role

CONFIG = schemathesis.Config.from_dict(
    {
        "seed": SEED,
        "generation": {
            "mode": "all",  # positive and negative data
            "max-examples": MAX_EXAMPLES,
            "deterministic": True,
            "database": "none",  # nothing written to .hypothesis/, the same run every time
        },
    }
)
with TestClient(cara_app) as _client:
    DOCUMENT = _client.get("/api/openapi.json").json()
OPERATION_IDS = {
    f"{method.upper()} {path}": op["operationId"]
    for path, item in DOCUMENT["paths"].items()
    for method, op in item.items()
}
schema = schemathesis.openapi.from_dict(with_examples(DOCUMENT), config=CONFIG)
schema.app, schema.location = cara_app, "/api/openapi.json"  # as schemathesis.openapi.from_asgi does

# The client and the per-role token are shared by every example of one test (the
# database is reset between test functions, not examples), and requests through
# the real stack are slower than Hypothesis expects.
SUPPRESSED = [
    HealthCheck.function_scoped_fixture,
    HealthCheck.too_slow,
    HealthCheck.filter_too_much,
    HealthCheck.data_too_large,
]
FUZZ_SETTINGS = settings(suppress_health_check=SUPPRESSED)


# ---------------------------------------------------------------- fixtures


@pytest.fixture(autouse=True)
def cheap_password_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2id at its real cost (cara.auth.passwords) takes ~25 ms a hash or check, and
    these tests sign up and log in hundreds of times: same code, cheaper parameters."""
    from argon2 import PasswordHasher

    from cara.auth import passwords

    cheap = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    monkeypatch.setattr(passwords, "_hasher", cheap)
    monkeypatch.setattr(passwords, "_DUMMY_HASH", cheap.hash("not-a-real-password"))


@pytest.fixture(autouse=True)
def quiet_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thousands of access-log lines would bury a failure report, and each 500 is
    reported by the test itself with the app frames of the exception the app logs."""
    for name in ("cara.access", "cara.errors", "httpx"):
        monkeypatch.setattr(logging.getLogger(name), "disabled", True)


@pytest.fixture(autouse=True)
def assistant_ready(request: pytest.FixtureRequest, gemini: Any) -> None:
    """The AI operations run for real: against the Gemini double (tests/cara/conftest.py), and
    the summaries through a Dramatiq worker (which the other operations do not need)."""
    if "summarize" in request.node.name:
        request.getfixturevalue("worker")


class Targets:
    """Real ids for the path-parameter placeholders, created on first use within a test."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.ids: dict[str, str] = {}

    def resolve(self, value: Any) -> Any:
        if value not in (HOSPITAL_ID, DOCTOR_ID):
            return value
        if not self.ids:
            hospital = signup(self.client, dict(TARGET_HOSPITAL))
            doctor = add_staff(self.client, dict(TARGET_DOCTOR), hospital["token"])
            self.ids = {HOSPITAL_ID: hospital["user"]["hospitalId"], DOCTOR_ID: doctor["user"]["_id"]}
        return self.ids[value]


@pytest.fixture
def targets(client: Any) -> Targets:
    return Targets(client)


@pytest.fixture
def doctor_account(client: Any) -> dict[str, Any]:
    return signup(client, dict(DOCTOR))


@pytest.fixture
def bearer(request: pytest.FixtureRequest, client: Any, role: str) -> dict[str, str]:
    """Authorization header of a fresh account of `role` (none for anonymous)."""
    if role == "anonymous":
        return {}
    if role == "admin":
        token: str = request.getfixturevalue("admin_token")
    elif role == "hospital":
        token = signup(client, dict(HOSPITAL))["token"]
    else:
        token = signup(client, dict(DOCTOR))["token"]
    return auth(token)


# ---------------------------------------------------------------- the property


def check_case(case: Any, headers: dict[str, str], targets: Targets) -> list[Any]:
    """Send `case`, and its body laid over a valid one if it has one: no 5xx, and
    every 4xx in the one error shape."""
    if case.path_parameters:
        case.path_parameters = {k: targets.resolve(v) for k, v in case.path_parameters.items()}
    generated = case.body
    laid = over_valid_body(case.operation.label, generated)
    responses = []
    for body in [generated] if laid is generated else [generated, laid]:
        case.body = body
        responses.append(check_response(case, headers))
    return responses


class ServerError(AssertionError):
    """A request was answered with a 5xx."""


class NotTheErrorShape(AssertionError):
    """A 4xx whose body is not {"message": str, "fields": {str: str}}."""


_SERVER_ERRORS: dict[str, type[ServerError]] = {}


def server_error(exc: BaseException) -> type[ServerError]:
    """A ServerError subclass per root exception type and app line it went through, so
    that Hypothesis, which tells failures apart by type and place, reports each one."""
    root = exc
    while root.__cause__ is not None:
        root = root.__cause__
    frames = app_frames(exc)
    key = f"{type(root).__name__} at {frames[-1][0] if frames else '?'}"
    return _SERVER_ERRORS.setdefault(key, type(f"ServerError({key})", (ServerError,), {}))


def check_response(case: Any, headers: dict[str, str]) -> Any:
    """Send `case` as it is; no 5xx, and a 4xx in the one error shape. Returns the response."""
    failure: AssertionError | None = None
    try:
        response = case.call(headers=headers)
    except Exception as exc:
        # Unhandled: the app logged it and answered 500 (cara.kit.handlers), then
        # Starlette re-raised it, as it always does after a 500.
        failure = server_error(exc)(f"500 for {describe(case, headers)}\n{server_traceback(exc)}")
    if failure is not None:
        raise failure  # outside the except block: the report is ours, not the whole chain
    status = response.status_code
    if status >= 500:
        raise ServerError(f"{status} for {describe(case, headers)}\nresponse: {response.text[:300]}")
    problem = error_shape_problem(response.text) if 400 <= status < 500 else None
    if problem:
        raise NotTheErrorShape(
            f"{status} without the error shape ({problem}) for {describe(case, headers)}\n"
            f"response: {response.text[:300]}"
        )
    return response


def error_shape_problem(text: str) -> str | None:
    """What is wrong with an error body; None if it is {"message": str, "fields": {str: str}}."""
    try:
        body = json.loads(text)
    except ValueError:
        return "body is not JSON"
    if not isinstance(body, dict):
        return "body is not a JSON object"
    if set(body) != {"message", "fields"}:
        return f"keys are {sorted(body)}, expected ['fields', 'message']"
    message, fields = body["message"], body["fields"]
    if not isinstance(message, str) or not message.strip():
        return "message is not a non-empty string"
    if not isinstance(fields, dict):
        return "fields is not an object"
    for key, value in fields.items():
        if not isinstance(value, str) or not value.strip():
            return f"fields[{key!r}] is not a non-empty string"
    return None


def _blank(value: Any) -> bool:
    return value is None or value is False or (isinstance(value, str | list) and not value)


def over_valid_body(label: str, body: Any) -> Any:
    """The generated JSON object laid over a valid body of its operation (VALID_BODIES),
    or `body` itself when there is nothing to lay it on.

    Generated values win, except blank ones ("", null, false, []): the coverage
    phase fills every property with a blank value and varies one, and it is that
    one value which should travel, with valid neighbours, to the database. A
    sign-up is laid on a body of the kind its generated fields belong to (a valid
    generated role does not override that kind). Each body gets an email of its
    own, so one success does not turn the next ones into 409s. Deterministic per
    generated body, as Hypothesis needs.
    """
    bases = VALID_BODIES.get(label)
    if not bases or not isinstance(body, dict):
        return body
    digest = zlib.crc32(json.dumps(body, sort_keys=True, default=repr).encode())
    fields = {k: v for k, v in body.items() if not _blank(v)}
    base = bases[digest % len(bases)]
    if label == "POST /api/auth/signup":
        # The kind of account whose fields were generated, else the generated role. A
        # hospital sign-up creates a whole schema, so only hospital fields get one.
        role = fields.get("role")
        valid_role = role if isinstance(role, str) and role in SIGNUP_FIELDS_OF else None
        kinds = [kind for kind, names in SIGNUP_FIELDS_OF.items() if names & set(fields)]
        kind = kinds[0] if kinds else valid_role
        of_kind = [b for b in bases if b["role"] == kind] or [b for b in bases if b["role"] != "hospital"]
        base = of_kind[digest % len(of_kind)]
        if valid_role:
            del fields["role"]
    base = dict(base)
    if "email" in base and base["email"] not in KNOWN_EMAILS:
        base["email"] = f"fuzz-{digest:08x}@example.com"
    return {**base, **fields}


def describe(case: Any, headers: dict[str, str]) -> str:
    """The request in one line: long strings abbreviated, NUL and friends escaped."""

    def short(value: Any) -> Any:
        if isinstance(value, str) and len(value) > 64:
            return f"{value[:12]}...<{len(value)} chars>"
        if isinstance(value, dict):
            return {k: short(v) for k, v in value.items()}
        if isinstance(value, list):
            return [short(v) for v in value]
        return value

    parts = [case.method, case.formatted_path]
    if case.query:
        parts.append(f"query={json.dumps(short(case.query))}")
    if isinstance(case.body, dict | list | str | int | float | bool):
        parts.append(f"body={json.dumps(short(case.body), default=repr)}")
    elif isinstance(case.body, bytes):
        parts.append(f"body={case.body[:80]!r}")
    parts.append("with a bearer token" if headers else "anonymously")
    return " ".join(parts)


def app_frames(exc: BaseException) -> list[tuple[str, str]]:
    """(place, source line) of each frame of this repository's code the exception went
    through, innermost last."""
    frames = []
    for frame in traceback.extract_tb(exc.__traceback__):
        path = Path(frame.filename).resolve()
        if any(path.is_relative_to(REPO / part) for part in ("platform", "tenants", "workers")):
            frames.append((f"{path.relative_to(REPO)}:{frame.lineno} in {frame.name}", frame.line or ""))
    return frames


def server_traceback(exc: BaseException) -> str:
    """The exception, and the app frames it went through."""
    first_line = (str(exc).splitlines() or [""])[0]
    return "\n".join(
        [
            "server traceback (app frames, innermost last):",
            *(f"  {place}: {line}" for place, line in app_frames(exc)),
            f"{type(exc).__module__}.{type(exc).__name__}: {first_line}",
        ]
    )


# ---------------------------------------------------------------- tests


def test_every_operation_is_fuzzed() -> None:
    """Each operation of the document is in exactly one group, each group has operations."""
    in_document = {op["operationId"] for item in DOCUMENT["paths"].values() for op in item.values()}
    assert in_document == set(ACCESS)
    assert sorted(op for ops in OPERATIONS.values() for op in ops) == sorted(ACCESS)
    assert all(OPERATIONS.values())


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ('{"message": "Not found.", "fields": {}}', None),
        ('{"message": "Please fix", "fields": {"email": "Is required"}}', None),
        ('{"detail": "Not Found"}', "keys are ['detail'], expected ['fields', 'message']"),
        ('{"message": "", "fields": {}}', "message is not a non-empty string"),
        (
            '{"message": "x", "fields": {"email": ["Is required"]}}',
            "fields['email'] is not a non-empty string",
        ),
        ('{"message": "x", "fields": []}', "fields is not an object"),
        ("Internal Server Error", "body is not JSON"),
    ],
)
def test_error_shape_check(body: str, problem: str | None) -> None:
    """The check the fuzzing below relies on tells the one error shape from others."""
    assert error_shape_problem(body) == problem


@schema.include(operation_id=OPERATIONS["public"]).parametrize()
@pytest.mark.parametrize("role", FULL_RUN_ROLES["public"])
@FUZZ_SETTINGS
def test_public_operation(
    case: Any, role: str, bearer: dict[str, str], doctor_account: dict[str, Any], targets: Targets
) -> None:
    check_case(case, bearer, targets)


@schema.include(operation_id=OPERATIONS["optional"]).parametrize()
@pytest.mark.parametrize("role", FULL_RUN_ROLES["optional"])
@FUZZ_SETTINGS
def test_optional_auth_operation(case: Any, role: str, bearer: dict[str, str], targets: Targets) -> None:
    check_case(case, bearer, targets)


@schema.include(operation_id=OPERATIONS["signed-in"]).parametrize()
@pytest.mark.parametrize("role", FULL_RUN_ROLES["signed-in"])
@FUZZ_SETTINGS
def test_signed_in_operation(case: Any, role: str, bearer: dict[str, str], targets: Targets) -> None:
    check_case(case, bearer, targets)


@schema.include(operation_id=OPERATIONS["admin"]).parametrize()
@pytest.mark.parametrize("role", FULL_RUN_ROLES["admin"])
@FUZZ_SETTINGS
def test_admin_operation(case: Any, role: str, bearer: dict[str, str], targets: Targets) -> None:
    check_case(case, bearer, targets)


def _request_to(operation_id: str) -> st.SearchStrategy[Any]:
    operation = schema.include(operation_id=[operation_id])
    modes = (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE)
    return st.one_of(*(operation.as_strategy(mode) for mode in modes))


REQUEST_TO = {
    op: _request_to(op) for op in sorted({op for ops in LIGHT_RUN_OPERATIONS.values() for op in ops})
}


@pytest.mark.parametrize("role", [role for role in ROLES if LIGHT_RUN_OPERATIONS[role]])
def test_operation_as_other_role(role: str, bearer: dict[str, str], targets: Targets) -> None:
    """Random requests, valid or not, to the operations `role` is not fully fuzzed on
    (LIGHT_RUN_EXAMPLES per operation). An admin operation refuses anyone else with a
    clean 4xx (401 / 403, or an earlier 400 / 422 for a malformed request)."""
    operations = LIGHT_RUN_OPERATIONS[role]

    @settings(
        max_examples=LIGHT_RUN_EXAMPLES * len(operations),
        derandomize=True,
        database=None,
        suppress_health_check=SUPPRESSED,
        deadline=None,
    )
    @given(case=st.one_of(*(REQUEST_TO[op] for op in operations)))
    def requests_as_role(case: Any) -> None:
        for response in check_case(case, bearer, targets):
            if ACCESS[OPERATION_IDS[case.operation.label]] == "admin":
                assert 400 <= response.status_code < 500, (
                    f"{response.status_code} for {describe(case, bearer)}"
                )

    requests_as_role()
