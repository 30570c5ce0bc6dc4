"""requirements*.txt and requirements.lock: runtime and development tools apart, every
requirement pinned by the lock inside its range, and this venv at the lock's versions."""

import re
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def _requirements(name: str) -> list[Requirement]:
    out = []
    for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
        line = line.split(" #")[0].strip()
        if line and not line.startswith(("#", "-r", "-c")):
            out.append(Requirement(line))
    return out


def _lock() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        m = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$", line)
        if m:
            pins[canonicalize_name(m.group(1))] = m.group(2)
    return pins


def test_runtime_and_development_requirements_are_apart():
    runtime = {canonicalize_name(r.name) for r in _requirements("requirements.txt")}
    dev = {canonicalize_name(r.name) for r in _requirements("requirements-dev.txt")}
    assert not runtime & dev
    assert {"pytest", "pytest-django", "playwright", "schemathesis", "matplotlib", "rank-bm25"} <= dev
    assert {"django", "django-q2", "gunicorn", "presidio-analyzer"} <= runtime
    for name in ("requirements-dev.txt", "requirements-mysql.txt"):
        assert "-r requirements.txt" in (ROOT / name).read_text(encoding="utf-8").splitlines(), name


def test_the_lock_pins_every_requirement_inside_its_range():
    pins = _lock()
    for name in ("requirements.txt", "requirements-dev.txt", "requirements-mysql.txt"):
        for req in _requirements(name):
            key = canonicalize_name(req.name)
            assert key in pins, f"{req.name} ({name}) is not in requirements.lock: run scripts/lock-requirements.sh"
            assert req.specifier.contains(pins[key], prereleases=True), f"{req.name}=={pins[key]} outside {req}"
    assert "psycopg-binary" in pins  # extras are stripped in the lock (constraints cannot carry them)


def test_this_venv_has_the_locked_versions():
    # bin/setup installs with the lock as constraints; a mismatch means it did not (or the lock moved).
    pins = _lock()
    wrong = {}
    for dist in metadata.distributions():
        key = canonicalize_name(dist.metadata["Name"])
        if key in pins and dist.version != pins[key]:
            wrong[key] = (dist.version, pins[key])
    assert wrong == {}, "installed != requirements.lock; run bin/setup"


def test_bin_setup_installs_with_the_lock():
    setup = (ROOT / "bin" / "setup").read_text(encoding="utf-8")
    assert "-c requirements.lock" in setup and "requirements-dev.txt" in setup and "requirements-mysql.txt" in setup
