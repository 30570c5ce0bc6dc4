"""Reliability under faults, against the running stack.

* The worker is SIGKILLed (with its children) in the middle of an extraction and in the
  middle of a consolidation. "In the middle" is observable, not timed: the work calls a
  loopback upstream (LLM refiner, embeddings endpoint) that holds the request — the
  extraction holds the session lease then, the consolidation an open transaction. After
  the kill: no partial state, and the work is still recorded as due on its row
  (``consolidation.due``). After a fresh worker starts: the ``pipeline-sweep`` schedule runs
  it once the dead worker's lease has expired, with no manual step.
* The LLM endpoint returning garbage → the rule result is kept (fallback).
* The database becomes unreachable while serving (a TCP proxy between gunicorn and the
  server is cut) → clean 503 JSON; once it is back, requests succeed with no manual step.
"""

import pytest
import requests
from django.db import connection

from audit.models import QuarantineRecord
from consolidation.models import JournalEntry, JournalStatus, Message, Session
from profiles.models import Snapshot
from profiles.models import MemoryDocument, MemoryItem, MemorySettings
from tests.tcp_proxy import TcpProxy

from .conftest import database_url_of_test_db, wait_for
from .fakes import FakeUpstream

pytestmark = pytest.mark.e2e

LINES = ["I live in Leeds.", "I use Python at work.", "I use Rust at work.", "My phone is +86 139-1234-5678."]


def _conversation(user, session):
    msgs = []
    for line in LINES:
        msgs += [{"role": "user", "content": line}, {"role": "assistant", "content": "Noted."}]
    return {"user": user, "session": session, "end_session": True, "messages": msgs}


@pytest.fixture
def upstream():
    fake = FakeUpstream(mode="hang")
    yield fake
    fake.close()


def test_a_worker_killed_mid_extraction_leaves_no_partial_state_and_the_work_completes(stack_factory, api_keys, upstream):
    st = stack_factory(
        BIZMEMORY_LLM_BASE_URL=upstream.base_url, BIZMEMORY_LLM_MODEL="fake", BIZMEMORY_LLM_MAX_ATTEMPTS="1",
        BIZMEMORY_LLM_TIMEOUT_SECONDS="90", BIZMEMORY_EXTRACTION_LEASE_SECONDS="3",
        BIZMEMORY_CONSOLIDATION_MIN_INTERVAL_SECONDS="0",
    )
    r = requests.post(f"{st.url}/api/v1/messages", json=_conversation("kill-x", "kill-x-s1"),
                      headers={"X-Api-Key": api_keys["ingest"]}, timeout=10)
    assert r.status_code == 201, r.text
    assert upstream.arrived.wait(90), st.logs()
    session = Session.objects.get(external_id="kill-x-s1")
    assert session.locked_until is not None  # the run holds the lease: it is in the middle

    st.kill_worker()
    session.refresh_from_db()
    assert session.watermark == 0
    assert not JournalEntry.objects.filter(user=session.user).exists()
    assert not QuarantineRecord.objects.filter(user=session.user).exists()
    assert not MemoryItem.objects.filter(user=session.user).exists()
    assert session.extraction_due_at is not None  # the work is on the row, not in the lost task

    upstream.mode = "garbage"  # and the refiner now fails: the rules' result is kept
    st.start_worker()
    last = Message.objects.filter(session=session).order_by("-id").values_list("id", flat=True).first()
    wait_for(lambda: Session.objects.get(pk=session.pk).watermark == last, timeout=120,
             what=lambda: f"the extraction to be re-run after the restart\n{st.logs()}")
    values = lambda: set(MemoryItem.objects.current().filter(user=session.user).values_list("value", flat=True))  # noqa: E731
    wait_for(lambda: {"Leeds", "Python", "Rust"} <= values(), what=lambda: f"consolidation\n{st.logs()}")
    assert QuarantineRecord.objects.filter(user=session.user).count() == 1
    # Each user message was journaled once (no duplicate from the killed run).
    sources = [tuple(e.source_message_ids) for e in JournalEntry.objects.filter(user=session.user)]
    assert len(sources) == len(set(sources)) == 3
    wait_for(lambda: Session.objects.get(pk=session.pk).extraction_due_at is None, what="nothing left due")


def test_a_worker_killed_after_a_commit_but_before_it_settled_leaves_the_work_due(stack_factory, api_keys, upstream):
    """Since issue 15, embeddings are derived after the memory write commits. The embedder
    holding its request is the moment a run has committed (the turns' journal, or the items)
    and not yet settled its due time or released its lease. A kill there must lose nothing,
    double nothing, and leave the work due, so that the sweep finishes it after the lease."""
    st = stack_factory(
        BIZMEMORY_EMBEDDER="openai", BIZMEMORY_EMBEDDER_OPENAI_BASE_URL=upstream.base_url,
        BIZMEMORY_EMBEDDER_OPENAI_MODEL="fake-embed", BIZMEMORY_EXTRACTION_LEASE_SECONDS="3",
        BIZMEMORY_CONSOLIDATION_LEASE_SECONDS="3", BIZMEMORY_CONSOLIDATION_MIN_INTERVAL_SECONDS="0",
    )
    r = requests.post(f"{st.url}/api/v1/messages", json=_conversation("kill-c", "kill-c-s1"),
                      headers={"X-Api-Key": api_keys["ingest"]}, timeout=10)
    assert r.status_code == 201, r.text
    assert upstream.arrived.wait(90), st.logs()
    session = Session.objects.get(external_id="kill-c-s1")
    user = session.user

    st.kill_worker()
    session.refresh_from_db()
    settings_row = MemorySettings.objects.get(user=user)
    # Whatever had committed, the rest of the work is still recorded as due on its row.
    assert session.extraction_due_at is not None or settings_row.consolidation_due_at is not None
    journal = JournalEntry.objects.filter(user=user)
    assert journal.count() in (0, 3)  # all of a run's journal or none of it

    upstream.mode = "ok"
    st.start_worker()
    wait_for(lambda: journal.count() == 3 and not journal.filter(status=JournalStatus.PENDING).exists(),
             timeout=150, what=lambda: f"the sweep to finish the work after the lease\n{st.logs()}")
    wait_for(lambda: Session.objects.get(pk=session.pk).extraction_due_at is None
             and MemorySettings.objects.get(user=user).consolidation_due_at is None, what="nothing left due")
    current = MemoryItem.objects.current().filter(user=user)
    assert sorted(current.values_list("value", flat=True)) == ["Leeds", "Python", "Rust"]
    assert MemoryItem.objects.filter(user=user).count() == 3  # nothing doubled by the killed run
    assert Snapshot.objects.filter(user=user).count() == 1
    assert "Leeds" in MemoryDocument.objects.get(user=user).markdown
    assert MemorySettings.objects.get(user=user).consolidation_locked_until is None


def test_a_database_outage_gives_clean_503s_then_recovers_without_manual_steps(stack_factory, api_keys):
    if connection.vendor == "sqlite":
        pytest.skip("SQLite is a file in the server process: there is no connection to cut")
    s = connection.settings_dict
    proxy = TcpProxy(s["HOST"] or "127.0.0.1", int(s["PORT"] or (5432 if connection.vendor == "postgresql" else 3306)))
    try:
        via_proxy = database_url_of_test_db().replace(f":{s['PORT']}/", f":{proxy.port}/")
        st = stack_factory(web_env={"DATABASE_URL": via_proxy})
        ingest, read = {"X-Api-Key": api_keys["ingest"]}, {"X-Api-Key": api_keys["read"]}

        def post(i):
            body = {"user": "outage-user", "session": "outage-s1",
                    "messages": [{"role": "user", "content": f"message {i}"}]}
            return requests.post(f"{st.url}/api/v1/messages", json=body, headers=ingest, timeout=30)

        assert post(0).status_code == 201
        proxy.cut()
        down = [post(1), post(2),
                requests.get(f"{st.url}/api/v1/context", params={"user": "outage-user", "agent": "main"},
                             headers=read, timeout=30)]
        for r in down:
            assert r.status_code == 503, r.text[:300]
            assert r.json()["error"]["code"] == "database_unavailable"
            assert r.headers["Retry-After"]
        proxy.restore()
        assert post(3).status_code == 201
        ctx = requests.get(f"{st.url}/api/v1/context", params={"user": "outage-user", "agent": "main"},
                           headers=read, timeout=30)
        assert ctx.status_code == 200
        stored = sorted(Message.objects.filter(session__external_id="outage-s1").values_list("content", flat=True))
        assert stored == ["message 0", "message 3"]  # the refused posts stored nothing, the others once
    finally:
        proxy.close()
