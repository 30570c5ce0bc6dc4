"""E2E layer 4 — version restore over real HTTP (the staff versions pages) and the worker.

Manual snapshot → a conversation changes memory → restore the snapshot → the rollback
point exists, and the current items and MEMORY.md equal the snapshot's; the agent API
serves the restored document.
"""

import re

import pytest
import requests
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher, make_password

from profiles.models import Snapshot, SnapshotReason
from profiles.versions import current_item_dicts
from profiles.models import MemoryDocument, MemoryItem

from tests.helpers import memory_officers_group

from .conftest import wait_for

pytestmark = pytest.mark.e2e


def _post(url, key, user, session, *lines):
    msgs = []
    for line in lines:
        msgs += [{"role": "user", "content": line}, {"role": "assistant", "content": "Noted."}]
    r = requests.post(f"{url}/api/v1/messages", headers={"X-Api-Key": key}, timeout=10,
                      json={"user": user, "session": session, "end_session": True, "messages": msgs})
    assert r.status_code == 201, r.text


def _staff_session(url: str) -> requests.Session:
    officer = get_user_model().objects.create(
        username="e2e-staff", is_staff=True, password=make_password("e2e-password", hasher=PBKDF2PasswordHasher())  # the server has no MD5 hasher
    )
    officer.groups.add(memory_officers_group())  # restoring a version needs the officers' permission
    s = requests.Session()
    s.get(f"{url}/accounts/login/", timeout=10)
    r = s.post(f"{url}/accounts/login/", timeout=10, allow_redirects=False,
               data={"username": "e2e-staff", "password": "e2e-password", "csrfmiddlewaretoken": s.cookies["csrftoken"]})
    assert r.status_code == 302, r.text[:500]
    s.headers["X-CSRFToken"] = s.cookies["csrftoken"]
    return s


def test_manual_snapshot_change_restore_through_the_running_stack(stack_factory, api_keys):
    st = stack_factory(BIZMEMORY_CONSOLIDATION_MIN_INTERVAL_SECONDS="0")
    user = "restore-user"
    current = MemoryItem.objects.current().filter(user__username=user)
    _post(st.url, api_keys["ingest"], user, "restore-s1", "I live in Leeds.", "I use Python at work.")
    wait_for(lambda: current.filter(value="Leeds").exists() and current.filter(value="Python").exists(),
             what=f"first memory\n{st.logs()}")
    uid = get_user_model().objects.get(username=user).pk

    staff = _staff_session(st.url)
    r = staff.post(f"{st.url}/staff/versions/{uid}/snapshot", timeout=10, allow_redirects=False)
    assert r.status_code == 302, r.text[:500]
    manual = Snapshot.objects.get(user_id=uid, reason=SnapshotReason.MANUAL)
    saved_items, saved_md = manual.items, manual.memory_md
    assert "Leeds" in saved_md

    _post(st.url, api_keys["ingest"], user, "restore-s2", "I moved to Bristol.", "I use Rust at work.")
    wait_for(lambda: current.filter(value="Bristol").exists() and current.filter(value="Rust").exists(),
             what=f"the change\n{st.logs()}")
    wait_for(lambda: "Bristol" in MemoryDocument.objects.get(user_id=uid).markdown, what="MEMORY.md to change")
    # The user's move is rectified in the retained manual snapshot too (snapshots_rectify): a
    # restore rolls back other changes but never brings back the city the user corrected.
    manual.refresh_from_db()
    assert "Leeds" not in manual.memory_md and "Bristol" in manual.memory_md
    assert any(d["value"] == "Python" for d in manual.items) and not any(d["value"] == "Rust" for d in manual.items)
    saved_items, saved_md = manual.items, manual.memory_md

    r = staff.post(f"{st.url}/staff/versions/{uid}/{manual.version}/restore", timeout=30)
    assert r.status_code == 200, r.text[:500]
    rollback = Snapshot.objects.get(user_id=uid, reason=SnapshotReason.ROLLBACK_POINT)
    assert re.search(rf"\b{rollback.version}\b", r.text)  # the page names the rollback point
    assert "Bristol" in rollback.memory_md and any(d["value"] == "Rust" for d in rollback.items)

    assert current_item_dicts(user_id=uid) == saved_items
    assert MemoryDocument.objects.get(user_id=uid).markdown == saved_md
    doc = requests.get(f"{st.url}/api/v1/memory", headers={"X-Api-Key": api_keys["read"]}, timeout=10,
                       params={"user": user, "agent": "main"}).json()
    assert doc["text"].strip() == saved_md.strip()
    assert "Rust" not in doc["text"] and "Python" in doc["text"]
    assert "Bristol" in doc["text"] and "Leeds" not in doc["text"]
