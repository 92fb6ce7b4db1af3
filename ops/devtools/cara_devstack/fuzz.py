"""``python -m cara_devstack.fuzz`` (``./ops/fuzz``): Schemathesis over the whole OpenAPI document,
once per role, against a running Cara.

For each role (anonymous, an independent doctor, a hospital, one of that hospital's doctors, a
platform admin) a fresh account is made on the server (the admin signs in with the given
credentials), and ``schemathesis run`` fuzzes every operation of ``/api/openapi.json`` with that
account's bearer token: examples, coverage, fuzzing and stateful phases, seeded. The checks are
the ones that compare the API with its document, plus "no 5xx":

- ST101 server error (any 5xx),
- undocumented status code, content type or header, a body that is not the documented schema,
- a method the path does not take answered with anything but 405 + ``Allow``.

Sign-out is left out for the signed-in roles (it would end the token the run uses). The
summary line per role prints server errors and schema mismatches; the exit status is 0 only
when both are 0 for every role. JUnit reports go to ``--report-dir`` (one file per role).

The server needs the Stripe double or real Stripe keys (``./ops/dev`` has the double): without
payments configured, the billing routes answer 503 on purpose, which counts as a server error.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from cara_devstack.signup_link import sign_up

ROLES = ("anonymous", "doctor", "hospital", "hospital-doctor", "admin")
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "unsupported_method",
    "allow_header_conformance",
)
SERVER_ERROR = "ST101"
PHASES = "examples,coverage,fuzzing,stateful"
PASSWORD = "fuzz-password-1"  # noqa: S105 - the fuzz accounts' own, on a dev server
_FAILURE_LINE = re.compile(r"^- (ST\d+|\w[^\n]*?)\s*$", re.MULTILINE)


@dataclass
class RoleResult:
    role: str
    operations: int = 0
    server_errors: int = 0
    mismatches: int = 0
    failures: list[str] = field(default_factory=list)
    tool_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    returncode: int = 0

    @property
    def clean(self) -> bool:
        return self.server_errors == 0 and self.mismatches == 0 and self.returncode in (0, 1)


def _token(response: httpx.Response) -> str:
    if response.status_code >= 400:
        raise SystemExit(
            f"{response.request.method} {response.request.url.path}: {response.status_code} {response.text}"
        )
    body = response.json()
    return str(body["token"] if "token" in body else body["data"]["token"])  # login or sign-up


def _admin_token(http: httpx.Client, login: dict[str, object], totp_secret: str | None) -> str:
    """The admin's bearer token through two-factor sign-in when the server asks for it: an admin
    without it enrols (ADMIN_MFA_REQUIRED), one with it needs its key (--admin-totp-secret)."""
    import pyotp

    answer = http.post("/api/auth/login", json=login)
    body = answer.json() if answer.status_code < 400 else {}
    if body.get("mfaRequired") == "enroll":
        setup = http.post("/api/auth/login/mfa/setup", json={"challenge": body["challenge"]})
        code = pyotp.TOTP(setup.json()["secret"]).now() if setup.status_code == 200 else ""
        enabled = http.post("/api/auth/login/mfa/enable", json={"challenge": body["challenge"], "code": code})
        print(f"the admin enrolled in two-factor sign-in; its key: {setup.json().get('secret')}", flush=True)
        return _token(enabled)
    if body.get("mfaRequired") == "code":
        if not totp_secret:
            raise SystemExit("the admin has two-factor sign-in: pass --admin-totp-secret (its key)")
        code = pyotp.TOTP(totp_secret).now()
        return _token(http.post("/api/auth/login/mfa", json={"challenge": body["challenge"], "code": code}))
    return _token(answer)


def make_accounts(
    base_url: str,
    admin_email: str | None,
    admin_password: str | None,
    roles: tuple[str, ...] = ROLES,
    admin_totp_secret: str | None = None,
    database_url: str | None = None,
) -> dict[str, dict[str, str]]:
    """Authorization headers per role, from fresh accounts (unique emails) on the server.

    Self sign-ups are finished by their mailed link; the fuzzer follows it through the server's
    database (`database_url`, by default the one cara's settings name: DATABASE_URL)."""
    tag = secrets.token_hex(4)
    headers: dict[str, dict[str, str]] = {}
    with httpx.Client(base_url=base_url, timeout=30) as http:
        if "anonymous" in roles:
            headers["anonymous"] = {}
        if "doctor" in roles:
            doctor = {
                "role": "doctor",
                "name": "Dr Fuzz Independent",
                "email": f"fuzz-doctor-{tag}@example.com",
                "password": PASSWORD,
                "phoneNumber": "0244123456",
                "specialty": "Radiotherapist",
                "licenseNumber": f"GMC-FUZZ-{tag}",
                "experience": 5,
                "country": "Ghana",
                "state": "Greater Accra",
                "privacyPolicyAccepted": True,
            }
            headers["doctor"] = _bearer(_token(sign_up(http, doctor, database_url=database_url)))
        if {"hospital", "hospital-doctor"} & set(roles):
            hospital = {
                "role": "hospital",
                "name": f"Fuzz Hospital {tag}",
                "email": f"fuzz-hospital-{tag}@example.com",
                "password": PASSWORD,
                "phoneNumber": "0302123456",
                "address": "1 Fuzz Road",
                "type": "public",
                "registrationNumber": f"R-FUZZ-{tag}",
                "capacity": 100,
                "country": "Ghana",
                "state": "Greater Accra",
                "privacyPolicyAccepted": True,
            }
            signed_up = sign_up(http, hospital, database_url=database_url)
            headers["hospital"] = _bearer(_token(signed_up))
            if "hospital-doctor" in roles:
                # The staff doctor belongs to a second hospital: fuzzing the first one's
                # settings (a two-factor rule, a plan change) may rightly sign its doctors out,
                # which would leave the hospital-doctor role fuzzing nothing but 401s.
                employer = {
                    **hospital,
                    "name": f"Fuzz Employer {tag}",
                    "email": f"fuzz-employer-{tag}@example.com",
                    "registrationNumber": f"R-FUZZ-E-{tag}",
                }
                employer_up = sign_up(http, employer, database_url=database_url)
                hospital_headers = _bearer(_token(employer_up))
                _subscribe(http, hospital_headers, employer_up.json()["data"]["user"]["_id"])
                staff = {
                    "name": "Dr Fuzz Staff",
                    "email": f"fuzz-staff-{tag}@example.com",
                    "password": PASSWORD,
                    "phoneNumber": "0244123457",
                    "specialty": "Nurse",
                    "licenseNumber": f"GH-FUZZ-{tag}",
                    "experience": 2,
                    "country": "Ghana",
                    "state": "Ashanti",
                }
                added = http.post("/api/doctors/new-doctor", json=staff, headers=hospital_headers)
                if added.status_code >= 400:
                    raise SystemExit(
                        f"adding the hospital's doctor: {added.status_code} {added.text} "
                        "(run the server with HOSPITAL_EMAIL_VERIFICATION=false)"
                    )
                login = {"email": staff["email"], "password": PASSWORD, "role": "doctor"}
                headers["hospital-doctor"] = _bearer(_token(http.post("/api/auth/login", json=login)))
        if "admin" in roles:
            if not admin_email or not admin_password:
                raise SystemExit("the admin role needs --admin-email and --admin-password")
            login = {"email": admin_email, "password": admin_password, "role": "admin"}
            headers["admin"] = _bearer(_admin_token(http, login, admin_totp_secret))
    return {role: headers[role] for role in roles}


def _subscribe(http: httpx.Client, headers: dict[str, str], user_id: str) -> None:
    """A hospital needs a plan to add a doctor: checkout, paid with the test card on the hosted
    page of the Stripe double (the server's STRIPE_API_BASE), then confirmed."""
    body = {"planName": "Gold", "billingCycle": "monthly", "userId": user_id}
    checkout = http.post("/api/subscription/create-checkout-session", json=body, headers=headers)
    if checkout.status_code != 200:
        raise SystemExit(f"a plan for the fuzz hospital: {checkout.status_code} {checkout.text}")
    session = checkout.json()
    paid = httpx.post(session["url"], data={"card": "4242424242424242"}, timeout=30)
    if paid.status_code >= 400:
        raise SystemExit(
            f"paying on {session['url']}: {paid.status_code} (is the server on the Stripe double?)"
        )
    confirmed = http.post(
        "/api/subscription/confirm-session", json={"sessionId": session["sessionId"]}, headers=headers
    )
    if confirmed.status_code != 200:
        raise SystemExit(f"confirming the fuzz hospital's plan: {confirmed.status_code} {confirmed.text}")


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def schemathesis_command(
    base_url: str,
    headers: dict[str, str],
    *,
    seed: int,
    max_examples: int,
    junit: Path,
    workers: int,
    phases: str = PHASES,
) -> list[str]:
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "run",
        f"{base_url}/api/openapi.json",
        "--checks",
        ",".join(CHECKS),
        "--seed",
        str(seed),
        "--max-examples",
        str(max_examples),
        "--generation-deterministic",
        "--phases",
        phases,
        "--suppress-health-check",
        "all",
        "--workers",
        str(workers),
        "--no-color",
        "--report",
        "junit",
        "--report-junit-path",
        str(junit),
    ]
    if headers:
        # Signing out would end the token the rest of the run uses.
        command += ["--exclude-path", "/api/auth/logout"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    return command


def read_junit(role: str, junit: Path, returncode: int) -> RoleResult:
    """Server errors and mismatches (every other failed check) from a JUnit report."""
    result = RoleResult(role=role, returncode=returncode)
    if not junit.exists():
        result.failures.append(f"no report (schemathesis exited {returncode})")
        result.mismatches += 1
        return result
    for case in ET.parse(junit).getroot().iter("testcase"):  # noqa: S314 - our own run's report
        result.operations += 1
        for error in case.iter("error"):
            # The fuzzer's own trouble (e.g. Hypothesis internals), not an answer of the API.
            result.tool_errors.append(f"{case.get('name')}: {(error.text or '').strip()[:500]}")
        for failure in case.iter("failure"):
            text = failure.text or ""
            kinds = _FAILURE_LINE.findall(text) or [failure.get("message") or "error"]
            for kind in kinds:
                if kind.startswith(SERVER_ERROR):
                    result.server_errors += 1
                else:
                    result.mismatches += 1
            result.failures.append(f"{case.get('name')}: {text.strip()}")
    return result


def fuzz_role(
    base_url: str,
    role: str,
    headers: dict[str, str],
    *,
    seed: int,
    max_examples: int,
    report_dir: Path,
    workers: int = 1,
    phases: str = PHASES,
    echo: bool = True,
) -> RoleResult:
    junit = report_dir / f"{role}.xml"
    junit.unlink(missing_ok=True)
    command = schemathesis_command(
        base_url, headers, seed=seed, max_examples=max_examples, junit=junit, workers=workers, phases=phases
    )
    # Schemathesis writes its own cache next to where it runs.
    started = time.monotonic()
    run = subprocess.run(command, cwd=report_dir, capture_output=not echo, text=True, check=False)
    result = read_junit(role, junit, run.returncode)
    result.seconds = time.monotonic() - started
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ops/fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="a running Cara (./ops/dev)")
    parser.add_argument("--admin-email", default=os.environ.get("FIRST_ADMIN_EMAIL"))
    parser.add_argument("--admin-password", default=os.environ.get("FIRST_ADMIN_PASSWORD"))
    parser.add_argument("--admin-totp-secret", help="the admin's two-factor key, when it has enrolled")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL"),
        help="the server's database, to follow the fuzz accounts' sign-up links (default DATABASE_URL)",
    )
    parser.add_argument("--roles", default=",".join(ROLES), help="comma-separated, of: " + ", ".join(ROLES))
    parser.add_argument("--max-examples", type=int, default=100, help="test cases per operation and phase")
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--phases", default=PHASES, help="schemathesis phases, comma-separated")
    parser.add_argument("--report-dir", type=Path, default=Path("artifacts/fuzz"))
    args = parser.parse_args(argv)
    roles = tuple(r.strip() for r in args.roles.split(",") if r.strip())
    unknown = set(roles) - set(ROLES)
    if unknown:
        parser.error(f"unknown roles: {', '.join(sorted(unknown))}")
    base_url = args.base_url.rstrip("/")
    report_dir = args.report_dir.resolve()
    report_dir.mkdir(parents=True, exist_ok=True)
    accounts = make_accounts(
        base_url, args.admin_email, args.admin_password, roles, args.admin_totp_secret, args.database_url
    )
    results = []
    for role in roles:
        print(f"==> fuzzing as {role}", flush=True)
        results.append(
            fuzz_role(
                base_url,
                role,
                accounts[role],
                seed=args.seed,
                max_examples=args.max_examples,
                report_dir=report_dir,
                workers=args.workers,
                phases=args.phases,
            )
        )
    print()
    for r in results:
        print(
            f"{r.role:16} {r.operations:3} operations  {r.server_errors} server errors  "
            f"{r.mismatches} schema mismatches  ({len(r.tool_errors)} fuzzer errors, {r.seconds:.0f} s)"
        )
    print(f"seed {args.seed}, {args.max_examples} examples per operation; reports in {report_dir}")
    return 0 if all(r.clean for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
