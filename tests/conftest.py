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


@pytest.fixture(autouse=True)
def _default_language():
    """Every test starts in the project's default language: a page request through LocaleMiddleware
    (a zh page, a language switch) leaves its language active in the thread, which made text
    assertions of later tests depend on the order they ran in."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


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
def officer(db):
    """A staff account in the "memory officers" group: holds the reveal, delete-now, release,
    restore and audit-log permissions the services check (``audit.permissions``)."""
    from .helpers import officer_make

    return officer_make("officer")


@pytest.fixture
def api_keys(db):
    """``{"ingest": key, "read": key}`` plain-text keys for the two scopes."""
    from profiles.models import PlatformAPIKey

    out = {}
    for scope in ("ingest", "read"):
        _, key = PlatformAPIKey.objects.create_key(name=f"test-{scope}", scope=scope)
        out[scope] = key
    return out


class _AfterCommit:
    """A callback queued through ``profiles.derived.after_commit`` (so the fixture below runs only those)."""

    def __init__(self, func):
        self.func = func

    def __call__(self):
        self.func()


@pytest.fixture(autouse=True)
def _after_commit_in_test_transactions(monkeypatch):
    """Derived state (search index, context pack, session index) is queued with
    ``profiles.derived.after_commit``, i.e. ``transaction.on_commit``. Tests that use the ``db``
    fixture run inside a transaction that never commits, so there the test case's own atomic
    blocks stand in for the commit: such a callback runs when the outermost atomic block the
    code itself opened exits without error (at once when none is open), as it would after a real
    commit; a rolled-back block discards it, as Django does. Other on_commit callbacks (queued
    tasks) are left alone. ``transaction=True`` tests and the e2e runs see the real thing."""
    from django.db import connection, transaction
    from django.db.transaction import Atomic

    import profiles.derived

    def only_test_blocks(conn) -> bool:
        return conn.in_atomic_block and all(getattr(a, "_from_testcase", False) for a in conn.atomic_blocks)

    def after_commit(func):
        if only_test_blocks(connection):
            func()
        else:
            transaction.on_commit(_AfterCommit(func))

    original_exit = Atomic.__exit__

    def atomic_exit(self, exc_type, exc_value, traceback):
        result = original_exit(self, exc_type, exc_value, traceback)
        conn = transaction.get_connection(self.using)
        if exc_type is None and only_test_blocks(conn):
            due = [f for _, f, _ in conn.run_on_commit if isinstance(f, _AfterCommit)]
            conn.run_on_commit = [e for e in conn.run_on_commit if not isinstance(e[1], _AfterCommit)]
            for func in due:
                func()
        return result

    monkeypatch.setattr(profiles.derived, "after_commit", after_commit)
    monkeypatch.setattr(Atomic, "__exit__", atomic_exit)
