"""Encryption at rest of quarantined originals (Fernet from ``cryptography``).

The key comes from ``BIZMEMORY_QUARANTINE_KEY`` or the file named by
``BIZMEMORY_QUARANTINE_KEY_FILE`` (default ``var/quarantine.key``).
"""

from __future__ import annotations

import functools
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings


def _raw_key() -> str:
    if settings.QUARANTINE_KEY:
        return settings.QUARANTINE_KEY
    path = Path(settings.QUARANTINE_KEY_FILE)
    if path.exists():
        return path.read_text().strip()
    return ""


def quarantine_key_problem() -> str | None:
    """Return a message naming the setting when no usable key is configured, else None."""
    raw = _raw_key()
    if not raw:
        return (
            "No quarantine encryption key: set BIZMEMORY_QUARANTINE_KEY or create "
            f"BIZMEMORY_QUARANTINE_KEY_FILE ({settings.QUARANTINE_KEY_FILE}); "
            "`python manage.py generate_quarantine_key` writes one."
        )
    try:
        Fernet(raw.encode())
    except (ValueError, TypeError):
        return "BIZMEMORY_QUARANTINE_KEY is not a Fernet key (32 url-safe base64-encoded bytes)."
    return None


@functools.lru_cache(maxsize=4)
def _fernet(raw: str) -> Fernet:
    return Fernet(raw.encode())


def encrypt(text: str) -> bytes:
    """Encrypt ``text`` (UTF-8) to a Fernet token (bytes). Raises ValueError without a key."""
    raw = _raw_key()
    if not raw:
        raise ValueError(quarantine_key_problem())
    return _fernet(raw).encrypt(text.encode("utf-8"))


def decrypt(token: bytes) -> str:
    """Decrypt a token made by :func:`encrypt`. Raises ``cryptography.fernet.InvalidToken`` on a wrong key."""
    return _fernet(_raw_key()).decrypt(bytes(token)).decode("utf-8")


__all__ = ["encrypt", "decrypt", "quarantine_key_problem", "InvalidToken"]
