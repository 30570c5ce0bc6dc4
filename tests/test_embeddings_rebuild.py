"""``manage.py rebuild_embeddings``: re-embeds vectors of another model, indexes missing chunks, resumes."""

import datetime as dt
from io import StringIO

from django.core.management import call_command

from profiles.models import MemoryItem, MemoryVector
from profiles.search import memory_index_refresh
from tests.helpers import post_and_extract

NOW = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


def test_it_reembeds_other_models_and_indexes_what_is_missing(alice, bob, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=64)
    for user, text in ((alice, "我住在上海"), (bob, "I live in Leeds")):
        MemoryItem.objects.create(user=user, kind="profile", key="city", value=text, text=text, valid_from=NOW, confirmed_at=NOW)
    memory_index_refresh(user_id=alice.pk)
    post_and_extract("alice", "s1", [("user", "明天开会"), ("assistant", "好的")], start=NOW)
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER_DIM=128)
    out = StringIO()
    call_command("rebuild_embeddings", "--batch", "1", "--sessions", stdout=out, stderr=StringIO())
    # Alice's item and the user turn extraction indexed after it committed (64 dims) are re-embedded
    # (assistant turns are never indexed, issue 14); Bob's item, written outside the write path,
    # had no chunk: indexed anew.
    assert "re-embedded 2 vectors with hashing-char3-128" in out.getvalue() and "indexed 1 new chunks" in out.getvalue()
    assert set(MemoryVector.objects.values_list("dim", flat=True)) == {128}
    assert MemoryVector.objects.filter(source="item").count() == 2
    assert MemoryVector.objects.filter(source="message", user=alice).count() == 1
    out = StringIO()
    call_command("rebuild_embeddings", stdout=out, stderr=StringIO())
    assert "re-embedded 0 vectors" in out.getvalue() and "indexed 0 new chunks" in out.getvalue()
