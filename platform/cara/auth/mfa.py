"""Two-factor sign-in: TOTP (RFC 6238, `pyotp`) with one-time recovery codes.

- **Enrolment.** `setup` makes a secret (kept encrypted, pending) and answers it with its
  `otpauth://` URI and a QR code (SVG made here by `segno`, as a data: URI the CSP's
  `img-src` allows); `enable` checks a first code, makes the secret the account's and answers
  ten recovery codes, shown once (only their SHA-256 is stored). `disable` needs the password
  and a code, and is refused while two-factor is required of the account.
- **Sign-in.** A right password for an account with two-factor answers a challenge (a JWT
  signed with a key of its own, so it can never pass as an access token) instead of a
  session; `finish` with the challenge and a code (or a recovery code) issues what a login
  issues. An account that must have two-factor and has none gets an enrolment challenge
  instead: it can only enrol, and enrolling signs it in.
- **Who must.** Platform admins (`ADMIN_MFA_REQUIRED`), and the doctors of a hospital that
  requires it (`hospitals.require_doctor_mfa`, set on the hospital's security page).
- **Abuse.** Wrong codes are counted per account (`RATE_LIMIT_MFA_ACCOUNT`, then 429); a
  code is accepted once: its time step must be later than the last one accepted.
- **At rest.** Secrets are encrypted with Fernet under a key derived (HKDF) from
  `MFA_ENCRYPTION_KEY`, or from `JWT_SECRET` when that is unset.

Services never commit. Enrolment, disabling and each recovery code used are audited.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
import uuid
from dataclasses import dataclass
from typing import Literal

import jwt
import pyotp
import segno
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from sqlalchemy.orm import Session

from cara.audit import service as audit
from cara.auth import passwords, repository
from cara.config import get_settings
from cara.kit import throttle
from cara.kit.errors import BadRequest, Forbidden, Unauthorized, ValidationFailed
from cara.kit.validation import blank
from cara.models import Account
from cara.models.base import utcnow

ISSUER = "Cara"
RECOVERY_CODES = 10
ChallengeKind = Literal["code", "enroll"]

WRONG_CODE = "The code is not valid. Please try again."
CODE_REQUIRED = "Enter the 6-digit code from your authenticator app, or a recovery code"
CHALLENGE_INVALID = "Your sign-in has expired. Please log in again."
TOO_MANY_CODES = "Too many wrong codes. Please try again in {wait}."
ALREADY_ON = "Two-factor sign-in is already on."
NOT_ON = "Two-factor sign-in is not on."
NO_SETUP = "Start the setup again: no authenticator is being enrolled."
REQUIRED = "Two-factor sign-in is required for your account and cannot be turned off."
WRONG_PASSWORD = "Your current password is incorrect"  # noqa: S105 - a message


# ---------------------------------------------------------------- keys and secrets


def _derive(info: bytes) -> bytes:
    settings = get_settings()
    material = settings.mfa_encryption_key or settings.jwt_secret
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(material.encode())


def _fernet() -> Fernet:
    return Fernet(base64.urlsafe_b64encode(_derive(b"cara mfa secret")))


def encrypt(secret: str) -> str:
    return _fernet().encrypt(secret.encode()).decode()


def decrypt(stored: str) -> str | None:
    try:
        return _fernet().decrypt(stored.encode()).decode()
    except (InvalidToken, ValueError):
        return None


def _sha256(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


# ---------------------------------------------------------------- who must have it


def is_enabled(account: Account) -> bool:
    return account.mfa_enabled_at is not None and account.mfa_secret is not None


def is_required(session: Session, account: Account) -> bool:
    if account.role == "admin":
        return get_settings().admin_mfa_required
    if account.role == "doctor" and account.hospital_id is not None:
        hospital = repository.hospital(session, account.hospital_id)
        return bool(hospital and hospital.require_doctor_mfa)
    return False


# ---------------------------------------------------------------- challenges


@dataclass(frozen=True)
class Challenge:
    account_id: uuid.UUID
    kind: ChallengeKind


def issue_challenge(account: Account, kind: ChallengeKind) -> str:
    now = int(time.time())
    payload = {
        "sub": str(account.id),
        "typ": f"mfa-{kind}",
        "pwc": int(account.password_changed_at.timestamp()),
        "iat": now,
        "exp": now + get_settings().mfa_challenge_ttl_seconds,
    }
    return jwt.encode(payload, _derive(b"cara mfa challenge"), algorithm="HS256")


def read_challenge(session: Session, raw: str | None, kind: ChallengeKind) -> tuple[Challenge, Account]:
    """The challenge's account, locked until commit; 401 for anything not a live challenge
    of this kind (expired, forged, the password changed since, the account deactivated)."""
    if blank(raw) or len(raw or "") > 2000:
        raise Unauthorized(CHALLENGE_INVALID)
    try:
        payload = jwt.decode(
            raw or "",
            _derive(b"cara mfa challenge"),
            algorithms=["HS256"],
            options={"require": ["sub", "typ", "exp", "pwc"]},
        )
        account_id = uuid.UUID(str(payload["sub"]))
    except (jwt.PyJWTError, ValueError, TypeError) as exc:
        raise Unauthorized(CHALLENGE_INVALID) from exc
    if payload["typ"] != f"mfa-{kind}":
        raise Unauthorized(CHALLENGE_INVALID)
    account = repository.account_for_update(session, account_id)
    if (
        account is None
        or not account.is_active
        or int(account.password_changed_at.timestamp()) != int(payload["pwc"])
    ):
        raise Unauthorized(CHALLENGE_INVALID)
    return Challenge(account_id=account_id, kind=kind), account


# ---------------------------------------------------------------- codes


def _check_limit(account: Account) -> None:
    throttle.check(
        "mfa-failures", get_settings().rate_limit_mfa_account, str(account.id), message=TOO_MANY_CODES
    )


def _failed(account: Account) -> None:
    throttle.count("mfa-failures", get_settings().rate_limit_mfa_account, str(account.id))


def _normal_code(code: str | None) -> str:
    return "".join(ch for ch in (code or "").lower() if ch.isalnum())


def _totp_step(secret: str, code: str, last_step: int | None) -> int | None:
    """The time step `code` is right for (now, or one step either side for clock drift), if
    it is later than the last step accepted: a code is not accepted twice."""
    if len(code) != 6 or not code.isdigit():
        return None
    totp = pyotp.TOTP(secret)
    now_step = int(time.time()) // totp.interval
    for step in (now_step - 1, now_step, now_step + 1):
        if last_step is not None and step <= last_step:
            continue
        if secrets.compare_digest(totp.generate_otp(step), code):
            return step
    return None


def verify_code(session: Session, account: Account, code: str | None, *, recovery: bool = True) -> str:
    """Accept a TOTP code (or, with `recovery`, an unused recovery code) for an account with
    two-factor on; the account must be locked (`account_for_update`). Returns "totp" or
    "recovery"; wrong codes are counted and past the limit refused (429)."""
    code_text = _normal_code(code)
    if not code_text:
        raise ValidationFailed({"code": CODE_REQUIRED})
    _check_limit(account)
    secret = decrypt(account.mfa_secret or "")
    if secret is not None:
        step = _totp_step(secret, code_text, account.mfa_last_step)
        if step is not None:
            account.mfa_last_step = step
            return "totp"
    if recovery and len(code_text) == 10:
        row = repository.unused_recovery_code(session, account.id, _sha256(code_text))
        if row is not None:
            row.used_at = utcnow()
            audit.record_platform(
                session,
                action="account.mfa_recovery_code_used",
                actor_id=account.id,
                actor_role=account.role,
                target_type="account",
                target_id=account.id,
            )
            return "recovery"
    _failed(account)
    raise ValidationFailed({"code": WRONG_CODE})


def _new_recovery_codes(session: Session, account: Account) -> list[str]:
    """Ten fresh recovery codes (`xxxxx-xxxxx`), replacing any others; only hashes are kept."""
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
    codes = ["".join(secrets.choice(alphabet) for _ in range(10)) for _ in range(RECOVERY_CODES)]
    repository.replace_recovery_codes(session, account.id, [_sha256(code) for code in codes])
    return [f"{code[:5]}-{code[5:]}" for code in codes]


# ---------------------------------------------------------------- enrolment


@dataclass(frozen=True)
class Setup:
    secret: str
    otpauth_uri: str
    qr_code: str  # an SVG as a data: URI


def setup(account: Account) -> Setup:
    """A new secret to enrol (pending until `enable` confirms a code from it)."""
    if is_enabled(account):
        raise BadRequest(ALREADY_ON)
    secret = pyotp.random_base32()
    account.mfa_pending_secret = encrypt(secret)
    uri = pyotp.TOTP(secret).provisioning_uri(name=account.email, issuer_name=ISSUER)
    qr = segno.make(uri, error="m").svg_data_uri(scale=5, border=2)
    return Setup(secret=secret, otpauth_uri=uri, qr_code=qr)


def enable(session: Session, account: Account, code: str | None) -> list[str]:
    """The pending secret becomes the account's once a code from it is right; the account's
    new recovery codes (to show once)."""
    if is_enabled(account):
        raise BadRequest(ALREADY_ON)
    pending = decrypt(account.mfa_pending_secret or "")
    if pending is None:
        raise BadRequest(NO_SETUP)
    code_text = _normal_code(code)
    if not code_text:
        raise ValidationFailed({"code": CODE_REQUIRED})
    _check_limit(account)
    step = _totp_step(pending, code_text, None)
    if step is None:
        _failed(account)
        raise ValidationFailed({"code": WRONG_CODE})
    account.mfa_secret = account.mfa_pending_secret
    account.mfa_pending_secret = None
    account.mfa_enabled_at = utcnow()
    account.mfa_last_step = step
    codes = _new_recovery_codes(session, account)
    audit.record_platform(
        session,
        action="account.mfa_enabled",
        actor_id=account.id,
        actor_role=account.role,
        target_type="account",
        target_id=account.id,
    )
    return codes


def disable(session: Session, account: Account, password: str | None, code: str | None) -> None:
    """Two-factor off, given the password and a code; refused while it is required."""
    if not is_enabled(account):
        raise BadRequest(NOT_ON)
    if is_required(session, account):
        raise Forbidden(REQUIRED)
    if blank(password):
        raise ValidationFailed({"currentPassword": "Current password is required"})
    _check_limit(account)
    if not passwords.verify_password(account.password_hash, password or ""):
        _failed(account)
        raise ValidationFailed({"currentPassword": WRONG_PASSWORD})
    verify_code(session, account, code)
    account.mfa_secret = None
    account.mfa_pending_secret = None
    account.mfa_enabled_at = None
    account.mfa_last_step = None
    repository.replace_recovery_codes(session, account.id, [])
    audit.record_platform(
        session,
        action="account.mfa_disabled",
        actor_id=account.id,
        actor_role=account.role,
        target_type="account",
        target_id=account.id,
    )


@dataclass(frozen=True)
class Status:
    enabled: bool
    required: bool
    recovery_codes_left: int


def status(session: Session, account: Account) -> Status:
    enabled = is_enabled(account)
    left = repository.unused_recovery_code_count(session, account.id) if enabled else 0
    return Status(enabled=enabled, required=is_required(session, account), recovery_codes_left=left)
