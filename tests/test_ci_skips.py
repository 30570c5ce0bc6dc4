"""tests/ci.py: a missing component skips on a laptop and fails under CI (issue 18)."""

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
