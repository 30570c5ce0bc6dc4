"""E2E layer 1 — lifecycle over real HTTP: gunicorn + qcluster as separate processes.

Post a conversation → memory lands in the journal → the PII turn is quarantined →
consolidation produces items and MEMORY.md → the watermark advanced → the
agent context serves it. Plus: a bad setting stops start-up.
"""

import subprocess
import sys

import pytest
import requests

from audit.models import QuarantineRecord
from consolidation.models import JournalEntry, Session
from profiles.models import MemoryDocument, MemoryItem

from .conftest import ROOT, wait_for

pytestmark = pytest.mark.e2e

CONVERSATION = {
    "user": "e2e-user",
    "session": "e2e-s1",
    "end_session": True,
    "messages": [
        {"role": "user", "content": "Hi, I'm a data engineer based in Manchester."},
        {"role": "assistant", "content": "Hello!"},
        {"role": "user", "content": "My phone is +86 139-1234-5678, note it down."},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "以后回答我尽量简短，直接给结论。"},
        {"role": "assistant", "content": "好的。"},
    ],
}


def test_posted_conversation_becomes_memory_through_the_running_stack(stack, api_keys):
    url, worker = stack
    r = requests.post(f"{url}/api/v1/messages", json=CONVERSATION, headers={"X-Api-Key": api_keys["ingest"]}, timeout=10)
    assert r.status_code == 201, r.text
    session = Session.objects.get(external_id="e2e-s1")

    doc = wait_for(
        lambda: MemoryDocument.objects.filter(user=session.user).exclude(markdown="").first(),
        what=lambda: f"the worker to extract and consolidate; worker log:\n{worker.log()[-2000:]}",
    )
    assert "Manchester" in doc.markdown
    assert "139" not in doc.markdown
    assert JournalEntry.objects.filter(user=session.user).count() >= 2
    assert QuarantineRecord.objects.filter(user=session.user).count() == 1
    assert set(MemoryItem.objects.current().filter(user=session.user).values_list("kind", flat=True)) >= {"profile", "preference"}
    session.refresh_from_db()
    assert session.watermark == max(session.messages.values_list("id", flat=True))

    ctx = requests.get(
        f"{url}/api/v1/context", params={"user": "e2e-user", "agent": "main", "budget": 300},
        headers={"X-Api-Key": api_keys["read"]}, timeout=10,
    ).json()
    assert "Manchester" in ctx["text"] and ctx["tokens"] <= 300
    refused = requests.get(
        f"{url}/api/v1/context", params={"user": "e2e-user", "agent": "main"}, headers={"X-Api-Key": api_keys["ingest"]}, timeout=10
    )
    assert refused.status_code == 403


def test_a_bad_setting_stops_the_server_at_start(tmp_path):
    proc = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "ERROR"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite3'}",
             "BIZMEMORY_CONSOLIDATION_BATCH_TOKENS": "0",
             "BIZMEMORY_QUARANTINE_KEY": "V6c4ZVdRSWRsS0lPcU5RMndxUjhpWmpzb0dQQ1E0Zm8="},
    )
    assert proc.returncode != 0
    assert "BIZMEMORY_CONSOLIDATION_BATCH_TOKENS" in proc.stderr
