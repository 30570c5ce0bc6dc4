"""Fixtures that run real processes (a django-q2 qcluster) against the test database."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def database_url_of_test_db() -> str:
    """DATABASE_URL pointing a subprocess at the database this test run created."""
    s = connection.settings_dict
    vendor = connection.vendor
    if vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    scheme = {"postgresql": "postgres", "mysql": "mysql"}[vendor]
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"{scheme}://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or ''}/{s['NAME']}"


@pytest.fixture
def qcluster(transactional_db, settings):
    """A real ``manage.py qcluster`` process sharing the test database; stopped after the test."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url_of_test_db(),
        "Q_BROKER": "orm",
        "Q_WORKERS": "1",
        "BIZMEMORY_QUARANTINE_KEY": settings.QUARANTINE_KEY,
        "BIZMEMORY_SENSITIVE_WORDS": ",".join(settings.BIZMEMORY["SENSITIVE_WORDS"]),
    }
    log = open(ROOT / "var" / "e2e-qcluster.log", "w")
    proc = subprocess.Popen([sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def wait_for(predicate, *, timeout=90.0, interval=0.3, what="condition"):
    """Poll ``predicate`` until it returns truthy (returned) or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout}s waiting for {what}")
