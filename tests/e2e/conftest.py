"""End-to-end fixtures: real processes (gunicorn, django-q2 qcluster) on the test database.

Two topologies, chosen by ``E2E_TOPOLOGY``:
- ``embedded`` (default): the test database as configured (SQLite by default),
  ORM broker, one qcluster worker, gunicorn with one worker;
- ``production``: meant for PostgreSQL + pgvector; Redis broker, two qcluster
  workers, gunicorn with three workers.
The processes are started by the fixtures, stopped at the end, and the tests
wait on observable state, never on sleeps alone.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import requests
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
TOPOLOGY = os.environ.get("E2E_TOPOLOGY", "embedded")


def database_url_of_test_db() -> str:
    """DATABASE_URL pointing a subprocess at the database this test run created."""
    s = connection.settings_dict
    vendor = connection.vendor
    if vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    scheme = {"postgresql": "postgres", "mysql": "mysql"}[vendor]
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"{scheme}://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or ''}/{s['NAME']}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, *, timeout=90.0, interval=0.3, what="condition"):
    """Poll ``predicate`` until it returns truthy (returned) or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout}s waiting for {what}")


def stack_env(settings, cluster: str, **extra) -> dict:
    """Environment for a server/worker process sharing this test's database, keys and queue.

    ``cluster`` names the django-q2 cluster, which is also the broker queue: the web
    processes (producers) and the workers must share it.
    """
    env = {
        **os.environ,
        "DATABASE_URL": database_url_of_test_db(),
        "BIZMEMORY_QUARANTINE_KEY": settings.QUARANTINE_KEY,
        "BIZMEMORY_SENSITIVE_WORDS": ",".join(settings.BIZMEMORY["SENSITIVE_WORDS"]),
        "Q_CLUSTER_NAME": cluster,
        "PYTHONUNBUFFERED": "1",
    }
    if TOPOLOGY == "production":
        env.update(Q_BROKER="redis", Q_WORKERS="2", REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    else:
        env.update(Q_BROKER="orm", Q_WORKERS="1")
    env.update(extra)
    return env


class Proc:
    """A child process with its log file; ``stop()`` terminates it (kill after 20 s)."""

    def __init__(self, name: str, argv: list[str], env: dict):
        self.log_path = ROOT / "var" / f"e2e-{name}.log"
        self.log_path.parent.mkdir(exist_ok=True)
        self._log = open(self.log_path, "w")
        self.popen = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT)

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        self._log.close()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def start_qcluster(env: dict, name: str = "qcluster") -> Proc:
    return Proc(name, [sys.executable, "manage.py", "qcluster"], env)


@pytest.fixture
def cluster_name():
    """A fresh django-q2 cluster (= queue) name per test, so stale tasks never leak between tests."""
    return f"e2e-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def qcluster(transactional_db, settings, cluster_name):
    """A real ``manage.py qcluster`` process sharing the test database; stopped after the test."""
    proc = start_qcluster(stack_env(settings, cluster_name))
    yield proc
    proc.stop()


@pytest.fixture
def live_server_url(transactional_db, settings, cluster_name):
    """gunicorn serving the project on a free loopback port; yields its base URL."""
    port = _free_port()
    workers = "3" if TOPOLOGY == "production" else "1"
    proc = Proc(
        "gunicorn",
        [sys.executable, "-m", "gunicorn", "bizmemory.wsgi", "-b", f"127.0.0.1:{port}", "-w", workers, "--timeout", "60"],
        stack_env(settings, cluster_name),
    )
    url = f"http://127.0.0.1:{port}"

    def up():
        if proc.popen.poll() is not None:
            pytest.fail(f"gunicorn exited:\n{proc.log()[-3000:]}")
        try:
            return requests.get(url + "/api/v1/", timeout=10).status_code == 200
        except requests.RequestException:
            return False

    wait_for(up, timeout=60, what="gunicorn to answer")
    yield url
    proc.stop()


@pytest.fixture
def stack(live_server_url, qcluster):
    """The running stack: ``(base_url, qcluster_proc)``."""
    return live_server_url, qcluster
