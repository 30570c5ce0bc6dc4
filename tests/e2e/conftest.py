"""End-to-end fixtures: real processes (gunicorn, django-q2 qcluster) on the test database.

Two topologies, chosen by ``E2E_TOPOLOGY``:
- ``embedded`` (default): the test database as configured (SQLite by default),
  ORM broker, one qcluster worker, gunicorn with one worker;
- ``production``: meant for PostgreSQL + pgvector; Redis broker, two qcluster
  workers, gunicorn with three workers.
The processes are started by the fixtures, stopped at the end, and the tests
wait on observable state, never on sleeps alone. ``stack_factory`` starts a stack with
extra environment (small budgets, a fake upstream, a proxied database URL); a
``Stack`` can SIGKILL its worker and start a fresh one (fault tests).
``E2E_RELIABILITY=0`` skips the slow reliability files.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import uuid
from itertools import count
from pathlib import Path

import pytest
import requests
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
TOPOLOGY = os.environ.get("E2E_TOPOLOGY", "embedded")
# The reliability files (test_reliability_*.py: concurrency, faults, bad input) take minutes;
# E2E_RELIABILITY=0 skips them (CI runs them in dedicated steps, see .ci/run).
RELIABILITY = os.environ.get("E2E_RELIABILITY", "1") != "0"
SECRET_KEY = secrets.token_urlsafe(50)  # the servers' signing key in this run (DEBUG is off there)


def pytest_collection_modifyitems(config, items):
    if RELIABILITY:
        return
    skip = pytest.mark.skip(reason="E2E_RELIABILITY=0: reliability e2e tests run in their own CI step")
    for item in items:
        if item.path.name.startswith("test_reliability_") and item.path.parent == Path(__file__).parent:
            item.add_marker(skip)


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
    """Poll ``predicate`` until it returns truthy (returned) or fail after ``timeout`` seconds.

    ``what`` names what was awaited; pass a callable (e.g. ``lambda: f"...{st.logs()}"``) to
    have process logs read at the time of the failure rather than before the wait."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout}s waiting for {what() if callable(what) else what}")


def stack_env(settings, cluster: str, **extra) -> dict:
    """Environment for a server/worker process sharing this test's database, keys and queue.

    ``cluster`` names the django-q2 cluster, which is also the broker queue: the web
    processes (producers) and the workers must share it.
    """
    env = {
        **os.environ,
        "DATABASE_URL": database_url_of_test_db(),
        "SECRET_KEY": os.environ.get("SECRET_KEY") or SECRET_KEY,  # gunicorn refuses the development key
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
        # One directory per test process: concurrent runs (other databases) keep their own logs.
        self.log_path = ROOT / "var" / "e2e-logs" / str(os.getpid()) / f"{name}.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "w")
        # Own process group: kill() reaches qcluster's worker processes too.
        self.popen = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        self._reap_group()
        self._log.close()

    def kill(self) -> None:
        """SIGKILL the whole process group (a crash: no clean-up runs) and reap the leader."""
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.popen.wait()

    def _reap_group(self) -> None:
        # Children a terminated qcluster left behind would keep consuming this test's queue.
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


_seq = count(1)


def start_qcluster(env: dict, name: str = "qcluster") -> Proc:
    """Start ``manage.py qcluster`` with ``env``; its log is var/e2e-logs/<pytest pid>/<name>-<n>.log."""
    return Proc(f"{name}-{next(_seq)}", [sys.executable, "manage.py", "qcluster"], env)


def start_gunicorn(env: dict, *, workers: int | None = None) -> tuple[Proc, str]:
    """Start gunicorn on a free loopback port and wait until ``/api/v1/`` answers 200.

    Returns ``(proc, base_url)``. Workers: 3 in the production topology, else 1."""
    port = _free_port()
    workers = workers or (3 if TOPOLOGY == "production" else 1)
    proc = Proc(
        f"gunicorn-{next(_seq)}",
        [sys.executable, "-m", "gunicorn", "bizmemory.wsgi", "-b", f"127.0.0.1:{port}", "-w", str(workers),
         "--timeout", "60"],
        env,
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
    return proc, url


class Stack:
    """A running gunicorn + qcluster pair sharing the test database and one queue.

    ``url`` is the server's base URL, ``web`` / ``worker`` the processes, ``env`` the
    environment both were started with. ``kill_worker()`` SIGKILLs the qcluster and its
    children (a crash); ``start_worker()`` starts a fresh qcluster on the same queue."""

    def __init__(self, env: dict, web_env: dict | None = None, workers: int | None = None, worker: bool = True):
        self.env = env
        self.web, self.url = start_gunicorn(web_env or env, workers=workers)
        self.worker = start_qcluster(env) if worker else None
        self._procs = [self.web] + ([self.worker] if worker else [])

    def kill_worker(self) -> None:
        self.worker.kill()

    def start_worker(self, **extra) -> Proc:
        self.worker = start_qcluster({**self.env, **extra})
        self._procs.append(self.worker)
        return self.worker

    def logs(self, tail: int = 2000) -> str:
        return "\n".join(f"--- {p.log_path.name}\n{p.log()[-tail:]}" for p in self._procs)

    def stop(self) -> None:
        for p in self._procs:
            p.stop()


@pytest.fixture
def cluster_name():
    """A fresh django-q2 cluster (= queue) name per test, so stale tasks never leak between tests."""
    return f"e2e-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def stack_factory(transactional_db, settings, cluster_name):
    """``make(web_env=None, workers=None, worker=True, **env) -> Stack``: start gunicorn + qcluster
    with extra environment variables (e.g. ``BIZMEMORY_CONSOLIDATION_BATCH_TOKENS="40"``);
    every stack is stopped after the test."""
    stacks = []

    def make(*, web_env: dict | None = None, workers: int | None = None, worker: bool = True, **extra) -> Stack:
        env = stack_env(settings, cluster_name, **extra)
        st = Stack(env, {**env, **web_env} if web_env else None, workers=workers, worker=worker)
        stacks.append(st)
        return st

    yield make
    for st in stacks:
        st.stop()


@pytest.fixture
def qcluster(transactional_db, settings, cluster_name):
    """A real ``manage.py qcluster`` process sharing the test database; stopped after the test."""
    proc = start_qcluster(stack_env(settings, cluster_name))
    yield proc
    proc.stop()


@pytest.fixture
def live_server_url(transactional_db, settings, cluster_name):
    """gunicorn serving the project on a free loopback port; yields its base URL."""
    proc, url = start_gunicorn(stack_env(settings, cluster_name))
    yield url
    proc.stop()


@pytest.fixture
def stack(live_server_url, qcluster):
    """The running stack: ``(base_url, qcluster_proc)``."""
    return live_server_url, qcluster

