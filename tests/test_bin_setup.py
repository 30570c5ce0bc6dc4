"""bin/setup says what it is doing (issue 17, "Quick start": the install printed nothing for ~80 s).

The real script runs in a copy of the repository's layout whose ``.venv`` holds a stand-in pip
(prints a line per package and takes a moment, as the real one does) and python; nothing is
installed anywhere."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FAKE_PIP = """#!/bin/sh
if [ "$1" = install ]; then
  echo "pip-args: $*"
  echo "Collecting alpha==1.0"
  echo "Requirement already satisfied: beta==2.0"
  sleep 0.6
  echo "Successfully installed alpha-1.0"
fi
exit 0
"""
FAKE_PYTHON = """#!/bin/sh
exit 0
"""


def _layout(tmp_path: Path) -> Path:
    (tmp_path / "bin").mkdir()
    shutil.copy2(ROOT / "bin" / "setup", tmp_path / "bin" / "setup")
    for name in ("requirements.txt", "requirements-dev.txt", "requirements-mysql.txt", "requirements.lock"):
        (tmp_path / name).write_text(f"# {name}\n")
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    for name, text in (("pip", FAKE_PIP), ("python", FAKE_PYTHON)):
        (venv_bin / name).write_text(text)
        (venv_bin / name).chmod(0o755)
    return tmp_path


def _run(root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHON": sys.executable}
    env.pop("DATABASE_URL", None)
    return subprocess.run(["bash", str(root / "bin" / "setup")], capture_output=True, text=True, env=env, timeout=60)


def test_it_prints_a_timed_line_per_step_and_pips_progress(tmp_path):
    root = _layout(tmp_path)
    out = _run(root)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("bin/setup: installing -r requirements-dev.txt")
    assert "Collecting alpha==1.0" in lines and "Successfully installed alpha-1.0" in lines  # pip's own lines
    assert not any("Requirement already satisfied" in x for x in lines)
    assert not any(" -q" in x for x in lines if x.startswith("pip-args:"))
    timed = {m.group(1): float(m.group(2)) for x in lines if (m := re.fullmatch(r"bin/setup: (.+) \((\d+\.\d) s\)", x))}
    assert list(timed) == ["installed the Python packages", "pip check: no broken requirements", "quarantine key present (var/)"]
    assert timed["installed the Python packages"] >= 0.5  # the time is the step's own


def test_an_up_to_date_venv_says_so_in_one_timed_line(tmp_path):
    root = _layout(tmp_path)
    assert _run(root).returncode == 0
    out = _run(root)
    assert out.returncode == 0, out.stderr
    assert "pip-args" not in out.stdout
    assert re.search(r"^bin/setup: Python packages up to date \(requirements and lock unchanged\) \(\d+\.\d s\)$",
                     out.stdout, re.M)
