"""bin/serve refuses to start on an unsafe configuration (issue 17, "Production"): exit 2, with
the deployment check's lines naming the problem, before anything is migrated or served. Its
start, serving and clean stop are tests/e2e/test_serve.py."""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_production_settings import production_env

ROOT = Path(__file__).resolve().parents[1]

# The deployment check reads the test database (identifier collations on MySQL/MariaDB).
pytestmark = pytest.mark.django_db


def serve(env) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOT / "bin" / "serve")], cwd=ROOT, env={**env, "PYTHON": sys.executable},
                          capture_output=True, text=True, timeout=180)


@pytest.mark.parametrize("changes,named", [
    ({"DEBUG": "true"}, "(security.W018) You should not have DEBUG set to True in deployment."),
    ({"SECRET_KEY_FILE": None}, "SECRET_KEY is not set and DEBUG is off"),
    ({"SESSION_COOKIE_SECURE": "false"}, "(security.W012) SESSION_COOKIE_SECURE is not set to True."),
], ids=["debug-on", "no-secret-key", "insecure-session-cookie"])
def test_it_refuses_to_start_on_an_unsafe_configuration(tmp_path, changes, named):
    out = serve(production_env(tmp_path, SERVE_BIND="127.0.0.1:1", **changes))
    assert out.returncode == 2, out.stdout + out.stderr
    assert named in out.stdout + out.stderr
    assert "bin/serve: refusing to start: the configuration is not safe for production" in out.stderr
    assert "migrating" not in out.stdout and "gunicorn pid" not in out.stdout
