"""manage.py settings_table: prints, checks and writes the README's configuration table."""

import shutil

import pytest
from django.core.management import CommandError, call_command

from bizmemory import conf_docs


def test_the_readme_table_is_current():
    # Fails when a setting changed in bizmemory/conf.py without `manage.py settings_table --write`.
    assert conf_docs.readme_current(), "README.md's configuration table is stale: run manage.py settings_table --write"
    call_command("settings_table", "--check")


def test_check_fails_on_a_stale_table_and_write_fixes_it(tmp_path, capsys):
    readme = tmp_path / "README.md"
    shutil.copy(conf_docs.README, readme)
    text = readme.read_text(encoding="utf-8")
    readme.write_text(text.replace("| `BIZMEMORY_SNAPSHOTS_KEEP` | `20` |", "| `BIZMEMORY_SNAPSHOTS_KEEP` | `7` |"), encoding="utf-8")
    with pytest.raises(CommandError, match="out of date"):
        call_command("settings_table", "--check", "--readme", str(readme))
    call_command("settings_table", "--write", "--readme", str(readme))
    assert readme.read_text(encoding="utf-8") == text
    call_command("settings_table", "--check", "--readme", str(readme))


def test_without_markers_it_says_so(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# no table here\n", encoding="utf-8")
    with pytest.raises(CommandError, match="markers"):
        call_command("settings_table", "--check", "--readme", str(readme))


def test_it_prints_the_table(capsys):
    call_command("settings_table")
    assert capsys.readouterr().out == conf_docs.settings_table()
