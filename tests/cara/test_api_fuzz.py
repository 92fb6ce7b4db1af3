"""Property-based fuzzing of the whole API: bad input gets a clear 4xx, never a 500.

Schemathesis reads the app's own OpenAPI schema (/api/openapi.json) and, for
every operation, sends generated requests in-process through the ASGI app:
schema-valid ones and deliberately invalid ones (wrong types, missing or extra
fields, boundary values, malformed bodies, unexpected HTTP methods). Every
response must be

- never a 5xx, and
- for a 4xx, the one error shape of docs/architecture.md:
  {"message": <non-empty str>, "fields": {<str>: <non-empty str>}}.

Operations that read a bearer token run without one and with a valid token of
each role (doctor, hospital, admin), so the generated data reaches the code
behind the role checks. Because the request models accept almost anything at
the type level (the services check the fields), purely random bodies would
stop at the first validation error; half of the generated bodies are therefore
laid over a valid payload, so that one to three fuzzed fields travel with
otherwise correct ones down to the database. Fuzzing dictionaries add values
random generation rarely hits (real ids, NUL bytes, overlong text, JSON for the
list parameters, integers past 32 bits).

Bounded and deterministic: a fixed seed, derandomized generation, no example
database and MAX_EXAMPLES generated requests per operation and role, on top of
Schemathesis' deterministic coverage cases.
"""

from __future__ import annotations

import json
import logging
import traceback
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi.routing import APIRoute
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from cara.auth.principal import authenticate, optional_principal
from cara.main import app as cara_app
from tests.factories import admin_payload, auth, doctor_payload, hospital_payload, signup

MAX_EXAMPLES = 30
SEED = 20260501
ROLES = ["anonymous", "doctor", "hospital", "admin"]

# ---------------------------------------------------------------- known data

# Accounts created for a test (by the `bearer` / `targets` fixtures), with known
# credentials so generated logins and resets can name them.
DOCTOR = doctor_payload(email="fuzz.doctor@example.com", name="Dr Fuzz", licenseNumber="GMC-FUZZ")
HOSPITAL = hospital_payload(email="fuzz.hospital@example.com", name="Fuzz Hospital", registrationNumber="R-FUZZ")
TARGET_HOSPITAL = hospital_payload(email="target.hospital@example.com", registrationNumber="R-TARGET")
TARGET_DOCTOR = doctor_payload(email="target.doctor@example.com", licenseNumber="GMC-TARGET")
ADMIN_EMAIL, ADMIN_PASSWORD = "root-admin@example.com", "root-password"  # tests/conftest.py admin_token

# Placeholders a generated request may carry; the test swaps in the real id.
HOSPITAL_ID, DOCTOR_ID = "fuzz-target-hospital", "fuzz-target-doctor"

# Valid bodies per operation; generated fields are laid over one of them.
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
}

_EMAILS = [
    DOCTOR["email"],
    HOSPITAL["email"],
    ADMIN_EMAIL,
    "  Fuzz.Doctor@EXAMPLE.com ",
    "someone.new@example.org",
    "nul\x00byte@example.com",
    "ünïcødé@exämple.com",
    "a" * 240 + "@example.com",
    "quote'\"@example.com",
    "percent%_\\@example.com",
]
_NASTY_TEXT = ["\x00", "a\x00b", "x" * 1000, "%", "_", "\\", "' OR 1=1 --", "\u202egnp.exe", "😀", " ", "null"]
_SORTS = ['["name","ASC"]', '["createdAt","DESC"]', '["date","desc"]', '["action","ASC"]', '["nope","ASC"]',
          '["name","SIDEWAYS"]', '["name"]', "[1,2]", '{"a":1}', "[", '"name"']  # fmt: skip
_RANGES = ["[0,24]", "[0,0]", "[5,2]", "[-1,3]", "[0,100000]", "[0.5,2]", "[true,false]", "[0]", "[", "{}",
           "[100000000000000000000,100000000000000000001]", "[9223372036854775807,9223372036854775807]"]  # fmt: skip
_FILTERS = ['{"q":"accra"}', '{"q":"%_\\\\"}', '{"q":"a\\u0000b"}', '{"q":1}', '{"isVerified":true}',
            '{"isVerified":"yes"}', '{"status":"suspended"}', '{"status":"gone"}', '{"specialization":"Nurse"}',
            '{"action":"hospital."}', "[]", "{", '{"q":null}']  # fmt: skip

CONFIG = schemathesis.Config.from_dict(
    {
        "seed": SEED,
        "generation": {
            "mode": "all",  # positive and negative data
            "max-examples": MAX_EXAMPLES,
            "deterministic": True,
            "database": "none",  # nothing written to .hypothesis/, the same run every time
            "dictionaries": {
                "string": {"dictionary": "nasty-text", "probability": 0.1},
                "integer": {"dictionary": "big-integers", "probability": 0.2},
            },
        },
        "dictionaries": {
            "emails": {"values": _EMAILS},
            "nasty-text": {"values": _NASTY_TEXT},
            "big-integers": {"values": [0, -1, 2**31 - 1, 2**31, 2**63, 10**30]},
            "sorts": {"values": _SORTS},
            "ranges": {"values": _RANGES},
            "filters": {"values": _FILTERS},
            "time-ranges": {"values": ["weekly", "monthly", "yearly", "Weekly", "daily", ""]},
            "hospital-ids": {"values": [HOSPITAL_ID, str(uuid.UUID(int=0)), "not-a-uuid", "{%s}" % uuid.UUID(int=1)]},
            "doctor-ids": {"values": [DOCTOR_ID, str(uuid.UUID(int=0)), "not-a-uuid", uuid.UUID(int=2).hex]},
        },
        "parameters": {
            "body.email": {"dictionary": "emails", "probability": 0.5},
            "query.sort": {"dictionary": "sorts", "probability": 0.6},
            "query.range": {"dictionary": "ranges", "probability": 0.6},
            "query.filter": {"dictionary": "filters", "probability": 0.6},
            "query.timeRange": {"dictionary": "time-ranges", "probability": 0.6},
            "path.hospital_id": {"dictionary": "hospital-ids", "probability": 0.7},
            "path.doctor_id": {"dictionary": "doctor-ids", "probability": 0.7},
        },
    }
)

# The client and the per-role token are shared by every example of one test
# (the database is reset between test functions, not examples), and requests
# through the real stack are slower than Hypothesis expects.
FUZZ_SETTINGS = settings(
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ]
)


# ---------------------------------------------------------------- the schema


def _api_routes(routes: Any) -> Iterator[APIRoute]:
    """Every APIRoute, including those of included routers (nested, not flattened, in FastAPI)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
            continue
        inner = getattr(route, "original_router", route)
        yield from _api_routes(getattr(inner, "routes", []))


def _reads_token(route: APIRoute) -> bool:
    """Whether the route's dependency tree looks at the bearer token."""
    stack = [route.dependant]
    while stack:
        dep = stack.pop()
        if dep.call in (authenticate, optional_principal):
            return True
        stack.extend(dep.dependencies)
    return False


_ROUTES = [r for r in _api_routes(cara_app.routes) if r.include_in_schema]
TOKEN_OPERATIONS = sorted(str(r.operation_id) for r in _ROUTES if _reads_token(r))
PUBLIC_OPERATIONS = sorted(str(r.operation_id) for r in _ROUTES if not _reads_token(r))

schema = schemathesis.openapi.from_asgi("/api/openapi.json", cara_app, config=CONFIG)


@schema.hook("flatmap_body")
def _over_valid_body(context: Any, body: Any) -> st.SearchStrategy[Any]:
    """The generated body as is, or one to three of its fields laid over a valid body."""
    bases = VALID_BODIES.get(context.operation.label)
    if not bases or not isinstance(body, dict) or not body:
        return st.just(body)
    keys = st.lists(st.sampled_from(sorted(body)), min_size=1, max_size=3, unique=True)
    merged = st.tuples(st.sampled_from(bases), keys).map(lambda t: {**t[0], **{k: body[k] for k in t[1]}})
    return st.just(body) | merged


public_schema = schema.include(operation_id=PUBLIC_OPERATIONS)
token_schema = schema.include(operation_id=TOKEN_OPERATIONS)


# ---------------------------------------------------------------- fixtures


class ServerLog(logging.Handler):
    """Keeps what the app's 500 handler logs (cara.kit.handlers._unexpected)."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def last_traceback(self) -> str:
        for record in reversed(self.records):
            if record.exc_info:
                return "".join(traceback.format_exception(*record.exc_info))
        return "(no traceback logged by cara.errors)"


@pytest.fixture
def server_log() -> Iterator[ServerLog]:
    handler = ServerLog()
    logger = logging.getLogger("cara.errors")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


class Targets:
    """Real ids for the placeholders, created on first use within a test."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.ids: dict[str, str] = {}

    def resolve(self, value: Any) -> Any:
        if value not in (HOSPITAL_ID, DOCTOR_ID):
            return value
        if not self.ids:
            hospital = signup(self.client, dict(TARGET_HOSPITAL))
            doctor = signup(self.client, dict(TARGET_DOCTOR, isHospitalCreated=True), token=hospital["token"])
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


def check_response(case: Any, headers: dict[str, str], targets: Targets, log: ServerLog) -> None:
    """Send `case`; no 5xx, and every 4xx in the one error shape."""
    if case.path_parameters:
        case.path_parameters = {k: targets.resolve(v) for k, v in case.path_parameters.items()}
    try:
        response = case.call(headers=headers)
    except Exception as exc:
        # Starlette re-raises an unhandled error after its 500 has been sent.
        pytest.fail(
            f"unhandled server error for:\n{case.as_curl_command(headers=headers)}\n\n"
            + "".join(traceback.format_exception(exc)),
            pytrace=False,
        )
    status = response.status_code
    _STATS.append((case.operation.label, bool(headers), case.method, status, response.text[:200], case.as_curl_command()[:600]))  # DEBUG
    if status >= 500:
        pytest.fail(
            f"{status} for:\n{case.as_curl_command(headers=headers)}\n\nbody: {response.text[:500]}\n\n"
            f"server log:\n{log.last_traceback()}",
            pytrace=False,
        )
    if 400 <= status < 500:
        problem = error_shape_problem(response.text)
        if problem:
            pytest.fail(
                f"{status} without the error shape ({problem}) for:\n"
                f"{case.as_curl_command(headers=headers)}\n\nbody: {response.text[:500]}",
                pytrace=False,
            )


def error_shape_problem(text: str) -> str | None:
    """What is wrong with an error body, or None if it is {"message": str, "fields": {str: str}}."""
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


import atexit  # DEBUG
_STATS: list = []  # DEBUG
atexit.register(lambda: json.dump(_STATS, open("/tmp/fuzzstats.json", "w")))  # DEBUG

# ---------------------------------------------------------------- tests


def test_every_operation_is_fuzzed() -> None:
    """Every operation of the schema lands in exactly one of the two groups below."""
    in_schema = {op["operationId"] for item in schema.raw_schema["paths"].values() for op in item.values()}
    assert in_schema == set(PUBLIC_OPERATIONS) | set(TOKEN_OPERATIONS)
    assert not set(PUBLIC_OPERATIONS) & set(TOKEN_OPERATIONS)
    assert len(list(public_schema.get_all_operations())) == len(PUBLIC_OPERATIONS)
    assert len(list(token_schema.get_all_operations())) == len(TOKEN_OPERATIONS)


@public_schema.parametrize()
@FUZZ_SETTINGS
def test_public_operation(
    case: Any, doctor_account: dict[str, Any], targets: Targets, server_log: ServerLog
) -> None:
    check_response(case, {}, targets, server_log)


@token_schema.parametrize()
@pytest.mark.parametrize("role", ROLES)
@FUZZ_SETTINGS
def test_operation_per_role(
    case: Any, role: str, bearer: dict[str, str], targets: Targets, server_log: ServerLog
) -> None:
    check_response(case, bearer, targets, server_log)
