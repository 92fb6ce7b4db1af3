"""PACS passwords at rest: Fernet under a key derived (HKDF) from PACS_CREDENTIALS_KEY, or from
JWT_SECRET when that is unset. Decrypted only to call the PACS, never returned to a client."""

from __future__ import annotations

import base64

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from cara.config import get_settings


def _fernet() -> Fernet:
    settings = get_settings()
    material = settings.pacs_credentials_key or settings.jwt_secret
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"cara pacs credentials").derive(
        material.encode()
    )
    return Fernet(base64.urlsafe_b64encode(key))


def encrypt(secret: str) -> str:
    return _fernet().encrypt(secret.encode()).decode()


def decrypt(stored: str) -> str | None:
    try:
        return _fernet().decrypt(stored.encode()).decode()
    except (InvalidToken, ValueError):
        return None
