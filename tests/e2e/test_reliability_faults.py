"""Reliability under faults, against the running stack.

* The worker is SIGKILLed (with its children) in the middle of an extraction and in the
  middle of a consolidation. "In the middle" is observable, not timed: the work calls a
  loopback upstream (LLM refiner, embeddings endpoint) that holds the request — the
  extraction holds the session lease then, the consolidation an open transaction. After
  the kill: no partial state. After a fresh worker starts: the work completes with no
  manual step (``consolidation.tasks._crash_guard`` re-queues it).
* The LLM endpoint returning garbage → the rule result is kept (fallback).
* The database becomes unreachable while serving (a TCP proxy between gunicorn and the
  server is cut) → clean 503 JSON; once it is back, requests succeed with no manual step.
"""

import pytest
import requests
from django.db import connection
from django_q.models import Schedule

from audit.models import QuarantineRecord
from consolidation.models import JournalEntry, JournalStatus, Message, Session
from profiles.models import Snapshot
from profiles.models import MemoryDocument, MemoryItem
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
    assert Schedule.objects.filter(name__startswith=f"recover:extract:{session.pk}:").exists()  # the dead run's guard

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
    wait_for(lambda: not Schedule.objects.filter(name__startswith="recover:").exists(), what="the guards to be gone")


@pytest.mark.skip(reason=(
    "re-cut pending (session 4): this test stalls the embedder to kill the worker inside the "
    "consolidation transaction, but since issue 15 embedding runs after the changeset commits "
    "(profiles.derived), and extraction's session index calls the embedder first; the kill now "
    "lands outside any memory write. Rewrite it against the sweep of issue 14 (due rows + lease)."
))
def test_a_worker_killed_mid_consolidation_leaves_no_partial_state_and_the_work_completes(stack_factory, api_keys, upstream):
    st = stack_factory(
        BIZMEMORY_EMBEDDER="openai", BIZMEMORY_EMBEDDER_OPENAI_BASE_URL=upstream.base_url,
        BIZMEMORY_EMBEDDER_OPENAI_MODEL="fake-embed", BIZMEMORY_EXTRACTION_LEASE_SECONDS="3",
        BIZMEMORY_CONSOLIDATION_MIN_INTERVAL_SECONDS="0",
    )
    r = requests.post(f"{st.url}/api/v1/messages", json=_conversation("kill-c", "kill-c-s1"),
                      headers={"X-Api-Key": api_keys["ingest"]}, timeout=10)
    assert r.status_code == 201, r.text
    # Consolidation embeds the new items inside its transaction: the request arriving means
    # journal claimed, items inserted, MEMORY.md and snapshot written — all uncommitted.
    assert upstream.arrived.wait(90), st.logs()
    user = Session.objects.get(external_id="kill-c-s1").user
    journal = JournalEntry.objects.filter(user=user)

    st.kill_worker()
    assert journal.count() == 3
    assert journal.filter(status=JournalStatus.PENDING).count() == 3
    assert not MemoryItem.objects.filter(user=user).exists()
    assert not Snapshot.objects.filter(user=user).exists()
    assert not MemoryDocument.objects.filter(user=user).exclude(markdown="").exists()
    assert Schedule.objects.filter(name__startswith=f"recover:consolidate:{user.pk}:").exists()  # the dead run's guard

    upstream.mode = "ok"
    st.start_worker()
    wait_for(lambda: not journal.filter(status=JournalStatus.PENDING).exists(), timeout=120,
             what=lambda: f"the consolidation to be re-run after the restart\n{st.logs()}")
    current = MemoryItem.objects.current().filter(user=user)
    assert sorted(current.values_list("value", flat=True)) == ["Leeds", "Python", "Rust"]
    assert MemoryItem.objects.filter(user=user).count() == 3  # nothing doubled by the killed run
    assert Snapshot.objects.filter(user=user).count() == 1
    assert "Leeds" in MemoryDocument.objects.get(user=user).markdown
    wait_for(lambda: not Schedule.objects.filter(name__startswith="recover:").exists(), what="the guards to be gone")


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
