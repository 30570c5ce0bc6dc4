"""tests/ci.py: a missing component skips on a laptop and fails under CI (issue 18)."""

import re

import pytest

from tests.ci import absent, require_module, under_ci


@pytest.mark.parametrize("value,expected", [("true", True), ("TRUE", True), ("1", True), ("yes", True),
                                            ("", False), ("0", False), ("false", False)])
def test_ci_is_read_from_the_environment(monkeypatch, value, expected):
    monkeypatch.setenv("CI", value)
    assert under_ci() is expected


def test_a_missing_component_skips_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium is absent"):
        absent("chromium is absent")
    with pytest.raises(pytest.skip.Exception, match="no_such_package_bizmemory"):
        require_module("no_such_package_bizmemory", "a package")


def test_a_missing_component_fails_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI: .*chromium is absent"):
        absent("chromium is absent")
    with pytest.raises(pytest.fail.Exception, match="CI: .*a package"):
        require_module("no_such_package_bizmemory", "a package")
    assert require_module("json", "the standard library").dumps([]) == "[]"


def test_a_missing_chromium_names_the_binary_and_the_install_command(monkeypatch, tmp_path):
    from tests.browser.conftest import chromium_or_absent

    missing = str(tmp_path / "chromium")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=f"{missing} is missing; install it with: sudo scripts/install-system-deps.sh"):
        chromium_or_absent(missing)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=f"CI: .*{missing} is missing"):
        chromium_or_absent(missing)


def test_the_browser_tests_report_that_reason_in_the_run_summary(tmp_path):
    """A real pytest run of a browser test with no Chromium: the summary line says why (``-rs`` in
    pytest.ini), and under CI=true the run fails instead."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    missing = str(tmp_path / "chromium")
    test = "tests/browser/test_browser_memory.py"
    env = {**os.environ, "CHROMIUM": missing}
    env.pop("CI", None)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", test]
    out = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:]
    assert re.search(rf"SKIPPED \[\d+\] .*{re.escape(missing)} is missing; install it with: sudo scripts/install-system-deps.sh",
                     out.stdout), out.stdout[-2000:]
    env["CI"] = "true"
    out = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 1 and f"{missing} is missing" in out.stdout, out.stdout[-2000:]
