"""Production settings: ``manage.py check --deploy`` is clean with the environment the README
documents (section "Running in production", read from the README itself), each HTTPS setting comes from the
environment, and with DEBUG off a missing SECRET_KEY stops the web server (not a warning)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from bizmemory import conf
from tests.e2e.conftest import database_url_of_test_db

ROOT = Path(__file__).resolve().parents[1]
HTTPS_CHECKS = {  # the variable, and the check --deploy warning its absence gives
    "SECURE_HSTS_SECONDS": "security.W004",
    "SECURE_SSL_REDIRECT": "security.W008",
    "SESSION_COOKIE_SECURE": "security.W012",
    "CSRF_COOKIE_SECURE": "security.W016",
}
NO_KEY_MESSAGE = "SECRET_KEY is not set and DEBUG is off"

# The checks include the identifier-collation checks (bizmemory.E040/E041), which read
# information_schema on MySQL/MariaDB: the subprocesses get the test database.
pytestmark = pytest.mark.django_db


def documented_environment() -> dict[str, str]:
    """``NAME=value`` lines of the README's production block, in order (comments skipped)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- production-env -->\n```sh\n(.*?)```\n<!-- /production-env -->", text, re.S)
    assert block, "README.md has no production-env block"
    pairs = [line.split("=", 1) for line in block.group(1).splitlines() if line and not line.startswith("#")]
    return {name: value for name, value in pairs}


def production_env(tmp_path, **changes) -> dict[str, str]:
    """The documented environment, its secret files written under ``tmp_path`` (the database one
    naming the test database), in an otherwise empty environment; ``changes`` set (None: unset)."""
    secrets = {
        "SECRET_KEY_FILE": "x" * 10 + Fernet.generate_key().decode(),  # long and random
        "DATABASE_URL_FILE": database_url_of_test_db(),
        "BIZMEMORY_QUARANTINE_KEY_FILE": Fernet.generate_key().decode(),
    }
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"), "PYTHONPATH": str(ROOT),
           "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": ""}
    for name, value in documented_environment().items():
        if name in secrets:
            path = tmp_path / name.lower()
            path.write_text(secrets[name] + "\n")
            value = str(path)
        env[name] = value
    for name, value in changes.items():
        env.pop(name, None) if value is None else env.__setitem__(name, value)
    return env


def manage(env, *args, timeout=180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_the_documented_block_sets_every_https_setting_and_names_only_declared_variables():
    env = documented_environment()
    declared = {s.env for s in conf.SETTINGS} | {s.file_env for s in conf.SETTINGS if s.secret}
    assert set(env) <= declared
    assert {"DEBUG", "SECURE_PROXY_SSL_HEADER", "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD",
            *HTTPS_CHECKS} <= set(env)
    assert env["DEBUG"] == "false" and "SECRET_KEY" not in env and "SECRET_KEY_FILE" in env


def test_check_deploy_is_clean_with_the_documented_production_environment(tmp_path):
    proc = manage(production_env(tmp_path), "check", "--deploy", "--fail-level", "WARNING")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "System check identified no issues (0 silenced)." in proc.stdout, proc.stdout + proc.stderr


def test_without_the_https_variables_check_deploy_warns_about_each(tmp_path):
    """The clean run above is the variables' doing, not a silenced check."""
    unset = dict.fromkeys([*HTTPS_CHECKS, "SECURE_PROXY_SSL_HEADER", "SECURE_HSTS_INCLUDE_SUBDOMAINS",
                           "SECURE_HSTS_PRELOAD"])
    proc = manage(production_env(tmp_path, **unset), "check", "--deploy")
    found = set(re.findall(r"\((security\.W\d+)\)", proc.stdout + proc.stderr))
    assert set(HTTPS_CHECKS.values()) <= found, proc.stdout + proc.stderr


def test_a_malformed_proxy_ssl_header_stops_start_up_naming_it(tmp_path):
    proc = manage(production_env(tmp_path, SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto: https"), "check")
    assert proc.returncode != 0 and "SECURE_PROXY_SSL_HEADER" in proc.stderr


def test_without_a_secret_key_and_debug_off_the_web_server_does_not_start(tmp_path):
    env = production_env(tmp_path, SECRET_KEY_FILE=None, SECURE_SSL_REDIRECT="false")
    gunicorn = subprocess.run(
        [sys.executable, "-m", "gunicorn", "bizmemory.wsgi", "-b", "127.0.0.1:0", "-w", "1", "--timeout", "30"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert gunicorn.returncode != 0 and NO_KEY_MESSAGE in gunicorn.stdout + gunicorn.stderr
    runserver = manage(env, "runserver", "--noreload", "127.0.0.1:0", timeout=120)
    assert runserver.returncode != 0 and NO_KEY_MESSAGE in runserver.stderr
    deploy = manage(env, "check", "--deploy")
    assert deploy.returncode != 0 and "bizmemory.E050" in deploy.stderr
    # The key given as the development default counts as missing; commands still run without one.
    assert NO_KEY_MESSAGE in manage({**env, "SECRET_KEY": conf.INSECURE_DEV_SECRET_KEY}, "check", "--deploy").stderr
    assert manage(env, "check").returncode == 0


def test_the_quick_start_serves_without_a_key_with_debug_on(tmp_path):
    env = production_env(tmp_path, SECRET_KEY_FILE=None, DEBUG="true")
    proc = subprocess.run([sys.executable, "-c", "import bizmemory.wsgi"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("debug,refused", [("false", True), ("true", False)])
def test_the_asgi_application_refuses_the_development_key_as_the_wsgi_one_does(tmp_path, debug, refused):
    env = production_env(tmp_path, SECRET_KEY_FILE=None, SECURE_SSL_REDIRECT="false", DEBUG=debug)
    proc = subprocess.run([sys.executable, "-c", "import bizmemory.asgi"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert (proc.returncode != 0 and NO_KEY_MESSAGE in proc.stderr) is refused, proc.stderr


@pytest.mark.parametrize("debug,key,refused", [
    (False, conf.INSECURE_DEV_SECRET_KEY, True), (False, "", True), (False, "k" * 50, False),
    (True, conf.INSECURE_DEV_SECRET_KEY, False),
])
def test_the_rule(debug, key, refused):
    assert bool(conf.secret_key_problem(debug=debug, secret_key=key)) is refused
