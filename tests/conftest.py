"""Shared fixtures: fast hashing, a fresh quarantine key, three named users.

Following healthchecks' base test case: ``alice`` owns data, ``bob`` is another
user who must be refused, ``admin`` is staff.
"""

import datetime as dt
import os
import re

import pytest
from cryptography.fernet import Fernet


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """The settings name the SQLite test database after the process that imported them; a
    process forked after that import (mutmut's workers, bin/mutate) names its own, so two of
    them never share one file. A no-op in a plain pytest run."""
    from django.conf import settings

    test = settings.DATABASES["default"].get("TEST") or {}
    name = test.get("NAME") or ""
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3") and re.search(r"-\d+\.sqlite3$", name):
        test["NAME"] = re.sub(r"-\d+\.sqlite3$", f"-{os.getpid()}.sqlite3", name)


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
