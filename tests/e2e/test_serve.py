"""bin/serve, the production start (issue 17): with a safe environment (the README's production
block; PostgreSQL and Redis in the production topology) it checks, migrates and serves the API
through gunicorn with a qcluster beside it, and a SIGTERM stops all of it cleanly. Its refusals are
tests/test_bin_serve.py. Once the cluster runs, the health endpoint reports database, broker and
worker ok (its failures are tests/test_health.py)."""

import os
import re
import signal
import socket
import subprocess
import sys

import pytest
import requests

from tests.test_production_settings import production_env

from .conftest import ROOT, TOPOLOGY, _free_port, wait_for

pytestmark = pytest.mark.e2e


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _serve_env(tmp_path, port: int, cluster: str) -> dict:
    env = production_env(tmp_path, ALLOWED_HOSTS="127.0.0.1", SERVE_BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY="2",
                         Q_CLUSTER_NAME=cluster, PYTHON=sys.executable, PYTHONUNBUFFERED="1")
    if TOPOLOGY == "production":
        env.update(Q_BROKER="redis", Q_WORKERS="2", REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    else:
        env.update(Q_BROKER="orm", Q_WORKERS="1")
    return env


def test_it_serves_the_api_and_stops_every_process_on_sigterm(transactional_db, tmp_path, cluster_name):
    port = _free_port()
    log_path = tmp_path / "serve.log"
    with open(log_path, "w") as log:
        serve = subprocess.Popen([str(ROOT / "bin" / "serve")], cwd=ROOT, env=_serve_env(tmp_path, port, cluster_name),
                                 stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    pids: list[int] = []
    try:
        def up():
            if serve.poll() is not None:
                pytest.fail(f"bin/serve exited ({serve.returncode}):\n{log_path.read_text()[-4000:]}")
            try:
                # The documented environment redirects plain HTTP: the request comes "through the proxy".
                resp = requests.get(f"http://127.0.0.1:{port}/api/v1/", headers={"X-Forwarded-Proto": "https"},
                                    timeout=10, allow_redirects=False)
            except requests.RequestException:
                return None
            return resp

        resp = wait_for(up, timeout=180, what=lambda: f"bin/serve to answer:\n{log_path.read_text()[-4000:]}")
        assert resp.status_code == 200 and resp.headers["Content-Type"].startswith("application/json")
        text = log_path.read_text()
        m = re.search(r"gunicorn pid (\d+) .*qcluster pid (\d+)", text)
        assert m, text
        pids = [int(m.group(1)), int(m.group(2))]
        assert "System check identified no issues" in text and all(_alive(p) for p in pids)
        wait_for(lambda: re.search(r"Q Cluster .* running\.", log_path.read_text()), timeout=60,
                 what=lambda: f"qcluster to run:\n{log_path.read_text()[-3000:]}")

        # The load balancer's probe: plain HTTP (not redirected), no key; all three ok once the cluster runs.
        last = []

        def healthy():
            last[:] = [requests.get(f"http://127.0.0.1:{port}/api/v1/health", timeout=15, allow_redirects=False)]
            return last[0] if last[0].status_code == 200 else None

        health = wait_for(healthy, timeout=60, what=lambda: f"the health endpoint to answer 200, last "
                          f"{last and (last[0].status_code, last[0].text)}:\n{log_path.read_text()[-3000:]}")
        checks = health.json()["checks"]
        assert health.json()["status"] == "ok" and {k: v["status"] for k, v in checks.items()} == {
            "database": "ok", "broker": "ok", "worker": "ok"}
        assert checks["broker"]["kind"] == ("redis" if TOPOLOGY == "production" else "orm")
        assert checks["worker"]["workers"] == (2 if TOPOLOGY == "production" else 1)

        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=90) == 0, log_path.read_text()[-4000:]
        assert "bin/serve: stopped" in log_path.read_text()
        assert not any(_alive(p) for p in pids), log_path.read_text()[-3000:]
        with socket.socket() as s:  # nothing listens any more
            assert s.connect_ex(("127.0.0.1", port)) != 0
    finally:
        for pid in [serve.pid, *pids]:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        serve.wait(timeout=30)
