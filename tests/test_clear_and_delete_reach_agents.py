"""What a user clears or deletes leaves every path to agents (issue 14, "what is cleared or
deleted stays gone, everywhere"): the context's session turns, session search, and turns that
were waiting for extraction when the user cleared."""

from __future__ import annotations

import datetime as dt

import pytest

from bizmemory.context import agent_context
from consolidation.consolidate import consolidation_run
from consolidation.extraction import extraction_run
from consolidation.models import JournalEntry, Session
from profiles.models import MemoryItem
from profiles.search import memory_search
from profiles.services import memory_clear_all, memory_item_delete
from tests.helpers import post_and_extract, post_turns

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=64, MESSAGE_RETENTION_DAYS=3650)


def _remembered(alice):
    post_and_extract("alice", "s1", [("user", "I live in Reykjavik and I work as a glassblower."), ("assistant", "Nice.")],
                     start=T0)
    consolidation_run(user_id=alice.pk, now=T0 + dt.timedelta(minutes=5), force=True)
    assert MemoryItem.objects.current().filter(user=alice, value__icontains="Reykjavik").exists()


def test_clear_with_history_kept_takes_the_turns_out_of_the_context_and_session_search(alice):
    _remembered(alice)
    before = agent_context(user=alice, agent_slug="main", budget=800, session_id="s1")
    assert "Reykjavik" in before.text and before.message_ids
    assert memory_search(user=alice, agent_slug="main", query="Reykjavik", scope="sessions").hits
    memory_clear_all(user=alice, include_history=False)
    after = agent_context(user=alice, agent_slug="main", budget=800, session_id="s1")
    assert "Reykjavik" not in after.text and after.message_ids == []
    assert memory_search(user=alice, agent_slug="main", query="Reykjavik", scope="sessions").hits == []


def test_turns_waiting_for_extraction_at_clear_time_never_become_memory(alice):
    _remembered(alice)
    session, _ = post_turns("alice", "s1", [("user", "I moved to Oslo last month."), ("assistant", "OK")],
                            start=T0 + dt.timedelta(minutes=10))
    memory_clear_all(user=alice, include_history=False)
    result = extraction_run(session_id=session.pk, now=T0 + dt.timedelta(hours=1), trigger="session_end")
    assert result.status == "nothing_new"
    assert Session.objects.get(pk=session.pk).watermark == session.messages.order_by("-id").first().pk
    assert not JournalEntry.objects.filter(user=alice).exists()
    consolidation_run(user_id=alice.pk, now=T0 + dt.timedelta(hours=2), force=True)
    assert not MemoryItem.objects.filter(user=alice).exists()
    # Said after the clear: remembered as usual.
    post_and_extract("alice", "s1", [("user", "I work as a potter."), ("assistant", "Nice.")], start=T0 + dt.timedelta(hours=3))
    consolidation_run(user_id=alice.pk, now=T0 + dt.timedelta(hours=4), force=True)
    assert MemoryItem.objects.current().filter(user=alice, value__icontains="potter").exists()


def test_a_deleted_item_takes_its_source_turn_out_of_session_search(alice):
    _remembered(alice)
    item = MemoryItem.objects.current().get(user=alice, value__icontains="Reykjavik")
    assert memory_search(user=alice, agent_slug="main", query="Reykjavik", scope="sessions").hits
    memory_item_delete(user=alice, item_id=item.pk)
    hits = memory_search(user=alice, agent_slug="main", query="Reykjavik", scope="sessions").hits
    assert all("Reykjavik" not in h.text for h in hits)
