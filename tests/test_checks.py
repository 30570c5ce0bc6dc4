"""Start-up guardrails: a bad setting stops every command, naming the variable."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KEY = "V6c4ZVdRSWRsS0lPcU5RMndxUjhpWmpzb0dQQ1E0Zm8="


@pytest.mark.parametrize(
    "var,value",
    [
        ("BIZMEMORY_API_RATE_READ", "lots"),
        ("BIZMEMORY_EMBEDDER", "foo"),
        ("BIZMEMORY_SEARCH_MIN_SIMILARITY", "5"),
        ("BIZMEMORY_SEARCH_DECAY_FLOOR", "1.5"),
        ("Q_WORKERS", "zero"),
        ("TIME_ZONE", "Mars/Olympus_Mons"),
        ("BIZMEMORY_CONTEXT_DEFAULT_TOKENS", "abc"),
        ("BIZMEMORY_SNAPSHOTS_KEEP", "1"),
        ("BIZMEMORY_QUARANTINE_RETENTION_DAYS", "0"),
        ("DEBUG", "yes"),  # booleans are true or false
        ("BIZMEMORY_LLM_API_KEY_FILE", "/nonexistent/llm.key"),
    ],
)
def test_a_bad_setting_stops_start_up_naming_it(tmp_path, var, value):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite3'}", "BIZMEMORY_QUARANTINE_KEY": KEY, var: value}
    proc = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode != 0
    assert var in proc.stderr
