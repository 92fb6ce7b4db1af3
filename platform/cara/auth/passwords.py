"""Password hashing with argon2id.

Parameters follow OWASP's password storage guidance for argon2id (19 MiB of
memory, 2 iterations, 1 lane): about 25 ms per hash on one core here, which
keeps sign-up and sign-in fast on small servers while remaining memory-hard.
Hashes made with other parameters still verify and are upgraded at the next
successful login (`needs_rehash`).
"""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

# The shortest password each role's account may have (spec §9): registration, Manage
# Doctors and password reset all read it from here.
MIN_LENGTH = {"doctor": 6, "hospital": 8, "admin": 8}

_hasher = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)

# Verifying against this when an email is unknown keeps the response time of
# "no such account" equal to "wrong password", so timing does not reveal
# which emails are registered.
_DUMMY_HASH = _hasher.hash("not-a-real-password")


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    try:
        return _hasher.check_needs_rehash(password_hash)
    except InvalidHashError:
        return True
