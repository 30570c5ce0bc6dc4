"""The systemd units in deploy/systemd/ (issue 17, "a systemd unit example"): they parse, run as
a dedicated user with the production environment file, restart on failure, are hardened, and
every command they start names files this repository has (the interpreter bin/setup makes, the
manage.py commands, gunicorn's WSGI module and configuration); `systemd-analyze verify` accepts
them when the machine has it."""

import configparser
import importlib.util
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import get_commands

from bizmemory import conf

ROOT = Path(__file__).resolve().parents[1]
UNITS = ROOT / "deploy" / "systemd"
INSTALL_DIR = "/opt/bizmemory"  # where the units expect the repository
VENV_PYTHON = f"{INSTALL_DIR}/.venv/bin/python"  # the interpreter bin/setup creates (python -m venv .venv)
NAMES = ("bizmemory-web.service", "bizmemory-worker@.service")
HARDENING = {
    "NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes",
    "PrivateDevices": "yes", "CapabilityBoundingSet": "", "RestrictSUIDSGID": "yes",
    "ReadWritePaths": f"{INSTALL_DIR}/{conf.VAR_DIR.relative_to(conf.BASE_DIR)}",  # var/: the only writable place
}


def unit(name: str) -> configparser.ConfigParser:
    """A unit file read the way systemd reads its syntax: case kept, no interpolation, a key given
    twice allowed (the last wins, as for systemd's single-valued settings)."""
    parser = configparser.ConfigParser(interpolation=None, strict=False, empty_lines_in_values=False)
    parser.optionxform = str
    parser.read_string((UNITS / name).read_text(encoding="utf-8"), source=name)
    return parser


def commands(service) -> list[list[str]]:
    return [shlex.split(service[key]) for key in ("ExecStartPre", "ExecStart") if key in service]


def test_only_the_two_units_are_shipped():
    assert sorted(p.name for p in UNITS.iterdir()) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_it_runs_as_a_dedicated_user_with_the_environment_file_and_restarts_on_failure(name):
    u = unit(name)
    assert {"Unit", "Service", "Install"} <= set(u.sections())
    service = u["Service"]
    assert service["User"] == service["Group"] == "bizmemory"
    assert service["EnvironmentFile"] == "/etc/bizmemory/bizmemory.env"
    assert service["WorkingDirectory"] == INSTALL_DIR
    assert service["Restart"] == "on-failure"
    assert service["KillMode"] == "mixed"  # one TERM to the main process, which stops its children
    assert {k: service.get(k) for k in HARDENING} == HARDENING
    assert u["Install"]["WantedBy"] == "multi-user.target"


@pytest.mark.parametrize("name", NAMES)
def test_every_command_names_files_the_repository_has(name):
    service = unit(name)["Service"]
    manage = get_commands()
    for argv in commands(service):
        assert argv[0] == VENV_PYTHON, argv
        args = argv[1:]
        for arg in args:
            if arg.startswith(INSTALL_DIR + "/"):
                assert (ROOT / arg.removeprefix(INSTALL_DIR + "/")).exists(), arg
            elif arg.endswith(".py"):  # relative to WorkingDirectory, the repository
                assert (ROOT / arg).is_file(), arg
        if args[0] == "manage.py":
            assert args[1] in manage, args
        else:
            assert args[:2] == ["-m", "gunicorn"] and importlib.util.find_spec("gunicorn"), args
            wsgi = args[2]
            assert (ROOT / (wsgi.replace(".", "/") + ".py")).is_file(), wsgi
            assert (ROOT / args[args.index("--config") + 1]).is_file()
    started = shlex.split(service["ExecStart"])
    assert started[1:3] == (["manage.py", "qcluster"] if "worker" in name else ["-m", "gunicorn"]), started


def test_the_web_unit_checks_the_deployment_before_it_serves():
    service = unit("bizmemory-web.service")["Service"]
    assert shlex.split(service["ExecStartPre"])[1:] == ["manage.py", "check", "--deploy", "--fail-level", "WARNING"]
    assert "${SERVE_BIND}" in service["ExecStart"] and "SERVE_BIND=" in service["Environment"]


def test_systemd_analyze_verify_accepts_them(tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed (Debian: apt-get install systemd); the units were only parsed")
    env_file = tmp_path / "bizmemory.env"
    env_file.write_text("DEBUG=false\n")
    copies = []
    for name in NAMES:
        text = (UNITS / name).read_text(encoding="utf-8")
        # Installed here instead of /opt/bizmemory, with this test's interpreter: verify checks that
        # the commands exist and are executable.
        text = (text.replace(VENV_PYTHON, sys.executable).replace(INSTALL_DIR, str(ROOT))
                .replace("/etc/bizmemory/bizmemory.env", str(env_file)))
        copy = tmp_path / name.replace("@.", "@1.")  # a template is verified as an instance
        copy.write_text(text, encoding="utf-8")
        copies.append(str(copy))
    out = subprocess.run(["systemd-analyze", "verify", "--man=no", *copies], capture_output=True, text=True,
                         timeout=60)
    # verify exits 0 on a directive it ignores, but names the unit: none of its lines may.
    complaints = [line for line in (out.stdout + out.stderr).splitlines() if "bizmemory" in line]
    assert out.returncode == 0 and complaints == [], out.stdout + out.stderr
