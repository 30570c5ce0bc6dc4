"""profiles.search: the index services and the memory_search selector (hybrid, decay, scopes, isolation)."""

import datetime as dt

import pytest

from consolidation.consolidate import memory_document_refresh
from profiles.models import MemoryItem, MemoryVector
from profiles.search import has_time_cue, lexical_terms, memory_index_refresh, memory_search, session_index_refresh
from profiles.selectors import search_index_chunks, user_export
from profiles.services import memory_settings_update
from tests.helpers import post_and_extract, post_turns

NOW = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


@pytest.fixture(autouse=True)
def _hashing(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=256, SEARCH_MIN_SIMILARITY=None)


def _item(user, kind, key, text, *, days_ago=0, value=None, fact_date=None):
    t = NOW - dt.timedelta(days=days_ago)
    return MemoryItem.objects.create(
        user=user, kind=kind, key=key, value=value or text[:50], text=text, fact_date=fact_date, valid_from=t, confirmed_at=t
    )


def test_it_splits_chinese_into_bigrams_and_english_into_words():
    assert lexical_terms("我住在上海", query=True) == ["我住", "住在", "在上", "上海"]
    assert lexical_terms("住在", query=False) == ["住在", "住", "在"]
    assert lexical_terms("猫", query=True) == ["猫"]
    assert lexical_terms("The user's dogs in Manchester") == ["dog", "manchester"]


def test_it_detects_time_cues():
    for q in ("我之前说过什么", "去年去哪里了", "上个月的体检", "what did I say last month", "two weeks ago", "before the move"):
        assert has_time_cue(q), q
    assert not has_time_cue("我住在哪里") and not has_time_cue("where do I live")


def test_it_finds_a_chinese_fact_by_a_chinese_query(alice):
    peanut = _item(alice, "fact", "allergy", "我对花生过敏")
    _item(alice, "profile", "city", "我住在上海浦东")
    _item(alice, "preference", "answer_style", "我喜欢简短的回答")
    res = memory_search(user=alice, agent_slug="main", query="花生过敏", now=NOW)
    assert res.reason == "ok"
    assert res.hits[0].id == peanut.pk and res.hits[0].kind == "fact"
    assert res.hits[0].similarity > 0.2 and res.hits[0].lexical > 0


def test_it_finds_a_chinese_fact_by_an_english_query_with_the_use_embedder(alice, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="use", EMBEDDER_DIM=0)
    peanut = _item(alice, "fact", "allergy", "我对花生过敏")
    _item(alice, "profile", "city", "我住在上海浦东")
    _item(alice, "profile", "role", "我在一家银行做风控")
    _item(alice, "preference", "answer_style", "我喜欢简短的回答")
    res = memory_search(user=alice, agent_slug="main", query="peanut allergy", now=NOW)
    assert [h.id for h in res.hits][:1] == [peanut.pk]
    zh = memory_search(user=alice, agent_slug="main", query="用户对什么过敏", now=NOW)
    assert zh.hits[0].id == peanut.pk
    assert MemoryVector.objects.filter(user=alice).first().model == "use-multilingual-v3"
    assert MemoryVector.objects.filter(user=alice).first().dim == 512


def test_it_lets_older_items_lose_unless_the_query_has_a_time_cue(alice):
    old = _item(alice, "fact", "trip", "我在北京出差开会", days_ago=400)
    new = _item(alice, "fact", "tired", "北京出差很累", days_ago=3)
    plain = memory_search(user=alice, agent_slug="main", query="北京出差开会", now=NOW, top_k=2)
    assert plain.hits[0].similarity < plain.hits[1].similarity  # the older one is the closer match
    assert [h.id for h in plain.hits] == [new.pk, old.pk] and not plain.time_cue
    cued = memory_search(user=alice, agent_slug="main", query="之前北京出差开会", now=NOW, top_k=2)
    assert cued.time_cue and [h.id for h in cued.hits] == [old.pk, new.pk]


def test_it_applies_top_k_and_the_similarity_threshold(alice):
    for i in range(8):
        _item(alice, "fact", f"k{i}", f"我养了第{i}只猫")
    assert len(memory_search(user=alice, agent_slug="main", query="猫", now=NOW).hits) == 5
    assert len(memory_search(user=alice, agent_slug="main", query="猫", top_k=2, now=NOW).hits) == 2
    # Nothing lexical in common and a threshold no vector reaches: no hits.
    assert memory_search(user=alice, agent_slug="main", query="xyz", min_similarity=0.99, now=NOW).hits == []


def test_it_never_returns_another_users_items(alice, bob):
    _item(bob, "fact", "allergy", "我对花生过敏")
    mine = _item(alice, "fact", "pet", "我有一只狗")
    res = memory_search(user=alice, agent_slug="main", query="花生过敏 狗", now=NOW)
    assert {h.id for h in res.hits} == {mine.pk}


def test_it_drops_superseded_and_deleted_items_from_the_index(alice):
    a = _item(alice, "profile", "city", "我住在上海")
    b = _item(alice, "fact", "pet", "我有一只狗")
    memory_index_refresh(user_id=alice.pk)
    assert {c["item_id"] for c in search_index_chunks(user=alice)} == {a.pk, b.pk}
    a.valid_until = NOW
    a.save(update_fields=["valid_until"])
    c = _item(alice, "profile", "city", "我搬到了杭州")
    result = memory_index_refresh(user_id=alice.pk)
    assert (result.added, result.removed) == (1, 1)
    b.delete()
    chunks = search_index_chunks(user=alice)
    assert [x["item_id"] for x in chunks] == [c.pk] and chunks[0]["model"] == "hashing-char3-256"
    assert user_export(user=alice)["search_index"] == chunks
    assert [h.id for h in memory_search(user=alice, agent_slug="main", query="上海 杭州", now=NOW).hits] == [c.pk]


def test_it_returns_nothing_after_clear_all(alice):
    _item(alice, "fact", "pet", "我有一只狗")
    assert memory_search(user=alice, agent_slug="main", query="狗", now=NOW).hits
    MemoryItem.objects.filter(user=alice).update(valid_until=NOW)
    assert memory_search(user=alice, agent_slug="main", query="狗", now=NOW).hits == []
    assert search_index_chunks(user=alice) == []


def test_it_reindexes_vectors_made_by_another_model(alice, settings):
    _item(alice, "fact", "pet", "我有一只狗")
    memory_index_refresh(user_id=alice.pk)
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER_DIM=128)
    assert memory_index_refresh(user_id=alice.pk).added == 1
    assert MemoryVector.objects.get(user=alice).dim == 128


def test_switches_give_no_hits_with_the_reason(alice):
    _item(alice, "fact", "pet", "我有一只狗")
    assert memory_search(user=alice, agent_slug="main", query="狗", temporary=True).reason == "temporary_session"
    memory_settings_update(user=alice, experts_disabled=["finance"])
    off = memory_search(user=alice, agent_slug="finance", query="狗")
    assert off.reason == "expert_off" and off.hits == []
    memory_settings_update(user=alice, memory_enabled=False)
    assert memory_search(user=alice, agent_slug="main", query="狗").reason == "memory_off"


def test_sessions_scope_searches_past_messages_and_masks_pii(alice, bob):
    now = dt.datetime.now(dt.timezone.utc)
    _, stored = post_and_extract("alice", "s-a", [("user", "明天去医院体检，帮我请半天假"), ("assistant", "好的，祝体检顺利")],
                                 start=now - dt.timedelta(days=2))
    post_and_extract("alice", "s-tmp", [("user", "体检报告在这里"), ("assistant", "收到")], start=now, temporary=True)
    post_and_extract("bob", "s-b", [("user", "我下周去体检"), ("assistant", "好")], start=now)
    # A turn stored before a detector existed (marked a source) is masked on the way into the index.
    from consolidation.models import Message

    old, _ = post_turns("alice", "s-old", [("user", "体检中心电话13912345678")], start=now - dt.timedelta(days=3))
    Message.objects.filter(session=old).update(memory_source=True)
    res = memory_search(user=alice, agent_slug="main", query="体检", scope="sessions")
    assert res.hits and all(h.session in ("s-a", "s-old") for h in res.hits)
    texts = " ".join(h.text for h in res.hits)
    assert "13912345678" not in texts and "139****5678" in texts
    assert session_index_refresh(user_id=alice.pk) == 0  # already indexed, resumable
    guessed = memory_search(user=alice, agent_slug="main", query="13912345678", scope="sessions")
    assert not any("139" in h.text and "****" not in h.text for h in guessed.hits)


def test_sessions_scope_never_offers_quarantined_memory_off_or_excluded_turns(alice):
    now = dt.datetime.now(dt.timezone.utc)
    post_and_extract("alice", "pii", [("user", "我的手机号是13912345678，体检预约用"), ("assistant", "好的")], start=now)
    memory_settings_update(user=alice, memory_enabled=False)
    post_and_extract("alice", "off", [("user", "我最近体检指标不太好"), ("assistant", "注意休息")], start=now)
    memory_settings_update(user=alice, memory_enabled=True, experts_excluded_from_extraction=["hr"])
    post_and_extract("alice", "hr", [("user", "体检假怎么请"), ("assistant", "走OA流程", "hr")], start=now)
    res = memory_search(user=alice, agent_slug="main", query="体检", scope="sessions")
    assert [h.session for h in res.hits] == [] or all(h.session == "pii" and h.kind == "assistant" for h in res.hits)
    assert "13912345678" not in " ".join(h.text for h in res.hits)


def test_sessions_scope_respects_message_retention(alice, settings):
    now = dt.datetime.now(dt.timezone.utc)
    settings.BIZMEMORY = dict(settings.BIZMEMORY, MESSAGE_RETENTION_DAYS=30)
    post_and_extract("alice", "old", [("user", "我以前在深圳工作"), ("assistant", "好")], start=now - dt.timedelta(days=60))
    post_and_extract("alice", "new", [("user", "我现在在深圳出差"), ("assistant", "好")], start=now - dt.timedelta(days=1))
    res = memory_search(user=alice, agent_slug="main", query="深圳", scope="sessions")
    assert {h.session for h in res.hits} == {"new"}


def test_index_refresh_after_consolidation_renders_and_indexes(alice):
    _item(alice, "profile", "city", "I live in Manchester")
    memory_document_refresh(user_id=alice.pk)
    memory_index_refresh(user_id=alice.pk)
    assert search_index_chunks(user=alice)[0]["text"] == "I live in Manchester"
