"""Shared fixtures: fast hashing, a fresh quarantine key, three named users.

Following healthchecks' base test case: ``alice`` owns data, ``bob`` is another
user who must be refused, ``admin`` is staff.
"""

import datetime as dt

import pytest
from cryptography.fernet import Fernet


@pytest.fixture(autouse=True)
def _fast_settings(settings, tmp_path):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.QUARANTINE_KEY = Fernet.generate_key().decode()
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.BIZMEMORY = dict(settings.BIZMEMORY, SENSITIVE_WORDS=["绝密", "internal price"])
    yield


@pytest.fixture
def t0():
    return dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def alice(db):
    from profiles.services import user_ensure

    return user_ensure(external_id="alice")


@pytest.fixture
def bob(db):
    from profiles.services import user_ensure

    return user_ensure(external_id="bob")


@pytest.fixture
def api_keys(db):
    """``{"ingest": key, "read": key}`` plain-text keys for the two scopes."""
    from profiles.models import PlatformAPIKey

    out = {}
    for scope in ("ingest", "read"):
        _, key = PlatformAPIKey.objects.create_key(name=f"test-{scope}", scope=scope)
        out[scope] = key
    return out
