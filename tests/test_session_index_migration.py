"""Migration consolidation.0014 (issue 14): older session chunks follow the new rule — assistant
chunks are deleted, user chunks re-masked with the floor, their postings and vector dropped so
search rebuilds them from the masked text."""

import datetime as dt
import importlib
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.db import connection

from profiles.models import LexicalPosting, MemoryVector, VectorSource
from profiles.search import index_chunks_create, memory_search
from tests.helpers import post_turns

NOW = dt.datetime.now(dt.timezone.utc)
migration = importlib.import_module("consolidation.migrations.0014_session_index_user_turns_only")


@pytest.fixture(autouse=True)
def _hashing(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=64)


def test_it_deletes_assistant_chunks_and_remasks_user_chunks(alice):
    from consolidation.models import Message
    from profiles.search import chunks_embed

    _, stored = post_turns("alice", "s1", [("user", "我的手机是一三八一二三四五六七八，订去成都的机票"),
                                           ("assistant", "好的，号码 13812345678 已记下"),
                                           ("user", "帮我订去成都的机票")], start=NOW)
    Message.objects.filter(pk__in=[m.pk for m in stored]).update(memory_source=True)
    # Chunks as the old index wrote them: raw text, assistant turns included.
    rows = [{"user_id": alice.pk, "source": VectorSource.MESSAGE, "message_id": m.pk, "kind": m.role,
             "text": m.content, "date": m.created_at} for m in stored]
    index_chunks_create(rows=rows, embedded=chunks_embed([r["text"] for r in rows]))
    assert memory_search(user=alice, agent_slug="main", query="13812345678", scope="sessions").hits

    migration._session_chunks_rule(apps, SimpleNamespace(connection=connection))

    chunks = {v.message_id: v for v in MemoryVector.objects.filter(source=VectorSource.MESSAGE)}
    assert set(chunks) == {stored[0].pk, stored[2].pk}  # the assistant's is gone
    phone = chunks[stored[0].pk]
    assert "一二三四" not in phone.text and "成都" in phone.text
    assert phone.terms_count is None and phone.model == "" and not LexicalPosting.objects.filter(vector=phone).exists()
    assert chunks[stored[2].pk].text == "帮我订去成都的机票" and chunks[stored[2].pk].terms_count is not None
    # Search writes the postings again from the masked text: the number confirms nothing.
    assert memory_search(user=alice, agent_slug="main", query="13812345678", scope="sessions").hits == []
    assert memory_search(user=alice, agent_slug="main", query="成都机票", scope="sessions").hits
