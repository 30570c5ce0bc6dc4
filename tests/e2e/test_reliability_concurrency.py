"""Reliability under concurrency, against the running stack (two qcluster workers).

* A burst of turns on one session, posted in parallel with the extraction policy
  ``always`` (every post queues an extraction, so runs collide on the session lease):
  each user message is journaled exactly once, no duplicate current items, nothing left
  after the watermark.
* 20 users' sessions posted in parallel threads: no cross-talk — each user's memory,
  context and search hold only their own facts.
"""

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from consolidation.models import JournalEntry, JournalStatus, Message, MessageRole, Session
from profiles.models import MemoryItem

from .conftest import wait_for

pytestmark = pytest.mark.e2e

SKILLS = ["Python", "Rust", "Go", "Java", "Kotlin", "Scala", "SQL", "Haskell", "Elixir", "Ruby",
          "Swift", "TypeScript", "Perl", "Julia", "Fortran", "Erlang", "Clojure", "Dart", "Lua", "COBOL"]
CITIES = ["Leeds", "Bristol", "Oslo", "Lima", "Perth", "Quito", "Hanoi", "Tunis", "Porto", "Riga"]


def test_a_burst_on_one_session_with_two_workers_journals_each_message_once(stack_factory, api_keys):
    st = stack_factory(
        Q_WORKERS="2", BIZMEMORY_EXTRACTION_POLICY="always", BIZMEMORY_EXTRACTION_LEASE_SECONDS="5",
        BIZMEMORY_CONSOLIDATION_MIN_INTERVAL_SECONDS="0",
    )
    headers = {"X-Api-Key": api_keys["ingest"]}

    def post(skill):
        body = {"user": "burst-user", "session": "burst-s1", "messages": [
            {"role": "user", "content": f"I use {skill} at work."}, {"role": "assistant", "content": "OK."}]}
        return requests.post(f"{st.url}/api/v1/messages", json=body, headers=headers, timeout=30).status_code

    with ThreadPoolExecutor(8) as pool:
        assert set(pool.map(post, SKILLS)) == {201}
    r = requests.post(f"{st.url}/api/v1/sessions/burst-s1/end", json={"user": "burst-user"}, headers=headers, timeout=10)
    assert r.status_code == 202

    session = Session.objects.get(external_id="burst-s1")
    last = Message.objects.filter(session=session).order_by("-id").values_list("id", flat=True).first()
    journal = JournalEntry.objects.filter(user=session.user)
    wait_for(lambda: Session.objects.get(pk=session.pk).watermark == last and journal.count() >= len(SKILLS)
             and not journal.filter(status=JournalStatus.PENDING).exists(),
             timeout=120, what=lambda: f"extraction and consolidation of the burst\n{st.logs()}")

    user_ids = set(Message.objects.filter(session=session, role=MessageRole.USER).values_list("id", flat=True))
    sources = [tuple(ids) for ids in journal.values_list("source_message_ids", flat=True)]
    assert len(sources) == len(set(sources)) == len(SKILLS)  # one journal write per message, never two
    assert {i for ids in sources for i in ids} == user_ids
    current = list(MemoryItem.objects.current().filter(user=session.user).values_list("kind", "key"))
    assert len(current) == len(set(current)) == len(SKILLS)


def test_twenty_users_in_parallel_see_no_cross_talk(stack_factory, api_keys):
    st = stack_factory(BIZMEMORY_CONSOLIDATION_MIN_INTERVAL_SECONDS="0")
    ingest, read = {"X-Api-Key": api_keys["ingest"]}, {"X-Api-Key": api_keys["read"]}
    users = {f"par-{i:02d}": (SKILLS[i], CITIES[i % len(CITIES)]) for i in range(20)}

    def post(user):
        skill, city = users[user]
        body = {"user": user, "session": f"{user}-s", "end_session": True, "messages": [
            {"role": "user", "content": f"I use {skill} at work."}, {"role": "assistant", "content": "OK."},
            {"role": "user", "content": f"I live in {city}."}, {"role": "assistant", "content": "OK."}]}
        return requests.post(f"{st.url}/api/v1/messages", json=body, headers=ingest, timeout=30).status_code

    with ThreadPoolExecutor(10) as pool:
        assert set(pool.map(post, users)) == {201}

    def done():
        have = {}
        for u, v in MemoryItem.objects.current().filter(user__username__startswith="par-").values_list(
                "user__username", "value"):
            have.setdefault(u, set()).add(v)
        return have if len(have) == 20 and all(len(v) == 2 for v in have.values()) else None

    have = wait_for(done, timeout=180, what=lambda: f"20 users' memory\n{st.logs()}")
    for user, (skill, city) in users.items():
        assert have[user] == {skill, city}, user

    def context(user):
        return requests.get(f"{st.url}/api/v1/context", params={"user": user, "agent": "main"}, headers=read,
                            timeout=30).json()["text"]

    with ThreadPoolExecutor(10) as pool:
        texts = dict(zip(users, pool.map(context, users)))
    for user, (skill, _city) in users.items():
        others = {s for u, (s, _c) in users.items() if u != user}
        assert skill in texts[user]
        assert not [s for s in others if re.search(rf"\b{s}\b", texts[user])], (user, texts[user])
    r = requests.get(f"{st.url}/api/v1/memory/search", headers=read, timeout=30,
                     params={"user": "par-00", "agent": "main", "query": SKILLS[1]})
    assert all(SKILLS[1] not in h["text"] for h in r.json()["hits"])
