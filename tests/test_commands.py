"""replay / export_memory contract (../shared/eval/README.md) and start-up guardrails."""

import datetime as dt
import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from consolidation.models import Message

ROOT = Path(__file__).resolve().parents[1]

CONV = {
    "id": "t-1", "user_id": "u-t1", "agent_id": "main",
    "settings": {"memory_enabled": True, "experts_disabled": [], "experts_excluded_from_extraction": []},
    "sessions": [{
        "session_id": "t-1-s1", "kind": "chat", "started_at": "2026-03-02T09:15:00+08:00",
        "messages": [
            {"role": "user", "content": "你好，我是广州分公司的客户经理。"},
            {"role": "assistant", "content": "您好", "expert": None},
            {"role": "user", "content": "我的手机号是13912345678，记一下。"},
            {"role": "assistant", "content": "好的", "expert": "hr"},
        ],
    }],
}


def _write(tmp_path, lines):
    p = tmp_path / "conv.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def _export():
    out = StringIO()
    call_command("export_memory", "--format", "json", stdout=out)
    return json.loads(out.getvalue())


def test_replay_then_export_has_the_contract_shape(db, tmp_path):
    off = dict(CONV, user_id="u-off", settings={"memory_enabled": False})
    off["sessions"] = [dict(CONV["sessions"][0], session_id="off-s1")]
    call_command("replay", str(_write(tmp_path, [json.dumps(CONV), json.dumps(off)])), stdout=StringIO())
    users = _export()["users"]
    u = users["u-t1"]
    assert set(u) >= {"items", "memory_md", "journal", "snapshots", "search_index", "quarantine_count"}
    assert any("广州" in i["value"] or "广州" in i["text"] for i in u["items"])
    assert u["quarantine_count"] == 1
    assert "13912345678" not in json.dumps(u, ensure_ascii=False)
    assert u["snapshots"] and u["search_index"]
    assert users["u-off"]["items"] == [] and users["u-off"]["memory_md"] == ""


def test_replay_rejects_malformed_input_with_exit_2_and_writes_nothing_for_it(db, tmp_path):
    bad = dict(CONV, user_id="u-bad")
    bad["sessions"] = [dict(CONV["sessions"][0], started_at="yesterday")]
    with pytest.raises(CommandError) as err:
        call_command("replay", str(_write(tmp_path, [json.dumps(bad)])))
    assert err.value.returncode == 2
    assert "started_at" in str(err.value)
    assert not Message.objects.exists()


def test_replay_cli_exit_code_is_2_on_bad_json(tmp_path):
    p = _write(tmp_path, ["{not json"])
    proc = subprocess.run(
        [sys.executable, "manage.py", "replay", str(p)], cwd=ROOT, capture_output=True, text=True,
        env={**__import__("os").environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite3'}",
             "BIZMEMORY_QUARANTINE_KEY": "V6c4ZVdRSWRsS0lPcU5RMndxUjhpWmpzb0dQQ1E0Zm8="},
    )
    assert proc.returncode == 2
    assert "line 1" in proc.stderr


def test_a_bad_setting_stops_start_up_naming_it(tmp_path):
    proc = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True,
        env={**__import__("os").environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite3'}",
             "BIZMEMORY_EXTRACTION_POLICY": "sometimes",
             "BIZMEMORY_QUARANTINE_KEY": "V6c4ZVdRSWRsS0lPcU5RMndxUjhpWmpzb0dQQ1E0Zm8="},
    )
    assert proc.returncode != 0
    assert "BIZMEMORY_EXTRACTION_POLICY" in proc.stderr and "bizmemory.E001" in proc.stderr


def test_a_bad_database_url_stops_start_up_naming_it(tmp_path):
    proc = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True,
        env={**__import__("os").environ, "DATABASE_URL": "oracle://x@y/z"},
    )
    assert proc.returncode != 0 and "DATABASE_URL" in proc.stderr


@pytest.mark.parametrize(
    "mutate,field",
    [
        (lambda c: c["settings"].update(memory_enabled="yes"), "settings.memory_enabled"),
        (lambda c: c["settings"].update(experts_disabled="hr"), "settings.experts_disabled"),
        (lambda c: c["sessions"][0]["messages"][1].update(expert=7), "messages[1].expert"),
        (lambda c: c["sessions"][0]["messages"][0].update(created_at="nope"), "messages[0].created_at"),
    ],
)
def test_replay_names_each_malformed_field(db, tmp_path, mutate, field):
    conv = json.loads(json.dumps(CONV))
    mutate(conv)
    with pytest.raises(CommandError) as err:
        call_command("replay", str(_write(tmp_path, [json.dumps(conv)])))
    assert err.value.returncode == 2 and field in str(err.value)
    assert not Message.objects.exists()


def test_replay_refuses_a_file_that_is_not_utf8(db, tmp_path):
    p = tmp_path / "latin1.jsonl"
    p.write_bytes('{"user_id": "é"}\n'.encode("latin-1"))
    with pytest.raises(CommandError) as err:
        call_command("replay", str(p))
    assert err.value.returncode == 2 and "UTF-8" in str(err.value)


def test_replay_recent_shifts_sessions_so_the_latest_started_yesterday(tmp_path):
    import json as _json

    from consolidation.management.commands.replay import shift_to_recent

    convs = [{"sessions": [{"started_at": "2026-01-10T09:15:00+08:00"}, {"started_at": "2026-01-20T23:30:00+08:00"}]},
             {"sessions": [{"started_at": "2025-12-31T08:00:00+00:00"}]}]
    days = shift_to_recent(convs, today=dt.date(2026, 11, 30))
    starts = [s["started_at"] for c in convs for s in c["sessions"]]
    assert starts == ["2026-11-19T09:15:00+08:00", "2026-11-29T23:30:00+08:00", "2026-11-09T08:00:00+00:00"]
    assert days == 313 and _json.dumps(convs)  # still plain JSON-able strings
