import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from locomo_to_replay import convert, parse_locomo_date  # noqa: E402


def test_it_converts_a_locomo_sample_to_replay_sessions():
    sample = [{
        "sample_id": "c1",
        "conversation": {
            "speaker_a": "Ann", "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I'm a nurse."},
                          {"speaker": "Bo", "dia_id": "D1:2", "text": "Cool!"}],
            "session_2_date_time": "9:00 am on 1 June, 2023",
            "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "Hi"}],
        },
    }]
    (conv,) = convert(sample)
    assert conv["user_id"] == "locomo-c1"
    assert [s["started_at"] for s in conv["sessions"]] == ["2023-05-08T13:56:00+00:00", "2023-06-01T09:00:00+00:00"]
    assert [m["role"] for m in conv["sessions"][0]["messages"]] == ["user", "assistant"]
    assert parse_locomo_date("9:00 am on 1 June, 2023").hour == 9


def test_it_skips_cleanly_when_the_data_set_is_absent(tmp_path):
    proc = subprocess.run([sys.executable, "tools/locomo_to_replay.py", str(tmp_path / "none.json")],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and "absent" in proc.stderr and proc.stdout == ""
