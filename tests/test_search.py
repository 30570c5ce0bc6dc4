"""profiles.search: the index services and the memory_search selector (hybrid, decay, scopes, isolation)."""

import datetime as dt
import math
from collections import Counter

import numpy as np
import pytest

from profiles.versions import memory_document_refresh
from profiles.models import MemoryItem, MemoryVector
from profiles.search import has_time_cue, lexical_terms, memory_index_refresh, memory_search
from consolidation.session_index import session_index_refresh
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


@pytest.mark.parametrize("min_similarity", [None, -1.0], ids=["default-threshold", "every-vector"])
def test_it_never_returns_another_users_items(alice, bob, min_similarity, settings):
    # Both users have a matching item and both are indexed before either searches (issue 18: an
    # index built only for the searching user makes a missing user filter invisible). With a
    # threshold and floor of -1 every vector of the candidate set counts, so the vector path is checked too.
    settings.BIZMEMORY = dict(settings.BIZMEMORY, SEARCH_VECTOR_ONLY_MIN_SIMILARITY=min_similarity)
    hers = _item(alice, "fact", "allergy", "我对花生过敏")
    _item(alice, "fact", "pet", "我有一只狗")
    his = _item(bob, "fact", "allergy", "我对花生过敏，芒果也不行")
    _item(bob, "profile", "city", "我住在上海")
    for u in (alice, bob):
        memory_index_refresh(user_id=u.pk)
    for user, own, other in ((alice, hers, his), (bob, his, hers)):
        res = memory_search(user=user, agent_slug="main", query="花生过敏", now=NOW, top_k=10, min_similarity=min_similarity)
        ids = [h.id for h in res.hits]
        assert ids[0] == own.pk, user.username
        assert other.pk not in ids and set(ids) <= set(MemoryItem.objects.filter(user=user).values_list("pk", flat=True))


@pytest.mark.parametrize("min_similarity", [None, -1.0], ids=["default-threshold", "every-vector"])
def test_sessions_scope_never_returns_another_users_turns(alice, bob, min_similarity, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, SEARCH_VECTOR_ONLY_MIN_SIMILARITY=min_similarity)
    now = dt.datetime.now(dt.timezone.utc)
    # Two unrelated turns each, so the query terms stay rare (a positive BM25 idf) even if the
    # other user's postings leaked into the document frequencies.
    _, hers = post_and_extract("alice", "s-a", [("user", "明天去医院体检"), ("assistant", "好的"),
                                                ("user", "帮我订去成都的机票"), ("assistant", "已订好")],
                               start=now - dt.timedelta(days=1))
    _, his = post_and_extract("bob", "s-b", [("user", "我下周去医院体检"), ("assistant", "收到"),
                                             ("user", "周五的会议改到下午"), ("assistant", "已改")],
                              start=now - dt.timedelta(days=1))
    for u in (alice, bob):
        session_index_refresh(user_id=u.pk)
    for user, own, other, session in ((alice, hers, his, "s-a"), (bob, his, hers, "s-b")):
        res = memory_search(user=user, agent_slug="main", query="医院体检", scope="sessions", top_k=10,
                            min_similarity=min_similarity)
        ids = {h.id for h in res.hits}
        assert ids & {m.pk for m in own}, user.username
        assert not ids & {m.pk for m in other} and {h.session for h in res.hits} == {session}


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


def test_it_returns_nothing_once_every_item_is_superseded(alice):
    _item(alice, "fact", "pet", "我有一只狗")
    assert memory_search(user=alice, agent_slug="main", query="狗", now=NOW).hits
    MemoryItem.objects.filter(user=alice).update(valid_until=NOW)
    assert memory_search(user=alice, agent_slug="main", query="狗", now=NOW).hits == []
    assert search_index_chunks(user=alice) == []


def test_it_returns_nothing_after_clear_all_with_history_kept(alice, bob):
    from profiles.services import memory_clear_all

    now = dt.datetime.now(dt.timezone.utc)
    _item(alice, "fact", "pet", "我有一只狗", value="狗")
    session, old = post_and_extract("alice", "s-a", [("user", "我家的狗叫旺财"), ("assistant", "旺财是个好名字")],
                                    start=now - dt.timedelta(days=1))
    post_and_extract("bob", "s-b", [("user", "我家的狗叫来福"), ("assistant", "好名字")], start=now - dt.timedelta(days=1))
    assert memory_search(user=alice, agent_slug="main", query="狗", now=now).hits
    assert memory_search(user=alice, agent_slug="main", query="狗", scope="sessions", now=now).hits
    memory_clear_all(user=alice, include_history=False)
    assert memory_search(user=alice, agent_slug="main", query="狗", now=now).hits == []
    # Kept history is never a search source again: searching does not rebuild it into the index.
    assert memory_search(user=alice, agent_slug="main", query="狗", scope="sessions", now=now).hits == []
    assert search_index_chunks(user=alice) == [] and not MemoryVector.objects.filter(user=alice).exists()
    # New turns in the same session are a source again; the kept ones still are not.
    _, new = post_and_extract("alice", "s-a", [("user", "狗粮换了新牌子"), ("assistant", "好的")], start=now)
    hits = memory_search(user=alice, agent_slug="main", query="狗", scope="sessions", now=now, top_k=10).hits
    assert {h.id for h in hits} & {m.pk for m in new} and not {h.id for h in hits} & {m.pk for m in old}
    assert memory_search(user=bob, agent_slug="main", query="狗", scope="sessions", now=now).hits  # bob untouched


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
    assert session_index_refresh(user_id=alice.pk) == 1  # the pipeline indexes it (after extraction, normally)
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
    # The chunk is the item's line as agents read it (profiles.item_text): label and value.
    assert search_index_chunks(user=alice)[0]["text"] == "City: I live in Manchester"


# --------------------------------------------------------------------------
# The inverted index (LexicalPosting) against the in-memory BM25 it replaced
# --------------------------------------------------------------------------

_ZH = "我你他在上海北京花生过敏狗猫喜欢工作医院体检"
_EN = ["dog", "dogs", "cat", "peanut", "allergy", "manchester", "bank", "risk", "the", "report", "x" * 70]


def _random_text(rng) -> str:
    parts = []
    for _ in range(rng.randint(0, 8)):
        if rng.random() < 0.5:
            parts.append("".join(rng.choice(_ZH) for _ in range(rng.randint(1, 6))))
        else:
            parts.append(" ".join(rng.choice(_EN) for _ in range(rng.randint(1, 4))))
    return "，".join(parts)


def _reference_bm25(query_terms: list[str], docs: list[list[str]], k1: float = 1.2, b: float = 0.75) -> np.ndarray:
    """Reference BM25 (k1 1.2, b 0.75) over an in-memory corpus: ``docs`` is a list of term lists;
    returns one float64 score per doc (0 without a query term). ``profiles.search`` reads the
    inverted index instead; this is the definition it must equal."""
    n = len(docs)
    scores = np.zeros(n, dtype=np.float64)
    if not n or not query_terms:
        return scores
    avgdl = sum(len(d) for d in docs) / n or 1.0
    counts = [Counter(d) for d in docs]
    for term in set(query_terms):
        df = sum(1 for c in counts if term in c)
        if not df:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for i, c in enumerate(counts):
            tf = c.get(term, 0)
            if tf:
                scores[i] += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(docs[i]) / avgdl))
    return scores


def _reference_scores(user, source, query, since=None) -> dict[int, float]:
    qs = MemoryVector.objects.filter(user=user, source=source)
    if since is not None:
        qs = qs.filter(date__gte=since)
    rows = list(qs.values_list("id", "text"))
    scores = _reference_bm25(lexical_terms(query, query=True), [lexical_terms(t) for _, t in rows])
    return {vid: float(s) for (vid, _), s in zip(rows, scores) if s > 0}


def _assert_same_scores(got: dict[int, float], want: dict[int, float]):
    assert set(got) == set(want)
    for vid, score in want.items():
        assert got[vid] == pytest.approx(score, rel=1e-12, abs=1e-12), vid


def test_the_index_gives_the_same_bm25_scores_as_the_in_memory_reference(alice, bob):
    import random

    from profiles.models import LexicalPosting
    from profiles.search import _bm25_index

    rng = random.Random(7)
    for user, n in ((alice, 80), (bob, 30)):  # bob's chunks must not count in alice's df, N or avgdl
        for i in range(n):
            _item(user, rng.choice(["fact", "profile", "preference"]), f"k{i}", _random_text(rng) or "空",
                  days_ago=rng.randint(0, 40))
        memory_index_refresh(user_id=user.pk)
    assert LexicalPosting.objects.filter(user=alice).exists() and LexicalPosting.objects.filter(user=bob).exists()
    for v in MemoryVector.objects.filter(user=alice):
        assert v.terms_count == len(lexical_terms(v.text))
    queries = [_random_text(rng) for _ in range(40)] + ["花生过敏", "dogs", "猫", "x" * 70, "the", ""]
    nonzero = 0
    for q in queries:
        for since in (None, NOW - dt.timedelta(days=10)):
            n, got = _bm25_index(alice.pk, "item", lexical_terms(q, query=True), since=since)
            want = _reference_scores(alice, "item", q, since)
            _assert_same_scores(got, want)
            nonzero += bool(want)
            assert n == MemoryVector.objects.filter(user=alice, **({"date__gte": since} if since else {})).count()
    assert nonzero > 40  # the comparison is not vacuous


def test_memory_search_reports_the_reference_bm25_for_its_hits(alice):
    peanut = _item(alice, "fact", "allergy", "我对花生过敏，花生酱也不行")
    _item(alice, "profile", "city", "我住在上海浦东")
    _item(alice, "fact", "pet", "I have two dogs and a cat")
    for q in ("花生过敏", "dogs", "上海花生"):
        hits = memory_search(user=alice, agent_slug="main", query=q, now=NOW, top_k=10).hits
        want = _reference_scores(alice, "item", q)
        by_item = dict(MemoryVector.objects.filter(user=alice).values_list("item_id", "id"))
        for h in hits:
            assert h.lexical == pytest.approx(want.get(by_item[h.id], 0.0), rel=1e-12)
        assert {by_item[h.id] for h in hits if h.lexical > 0} == set(want)
    assert memory_search(user=alice, agent_slug="main", query="花生", now=NOW).hits[0].id == peanut.pk


def _drop_postings(user):
    """The state of data written before migration 0007: vectors without postings or term counts."""
    from profiles.models import LexicalPosting

    LexicalPosting.objects.filter(user=user).delete()
    MemoryVector.objects.filter(user=user).update(terms_count=None)


def _ranked(res):
    return [(h.id, round(h.score, 12), round(h.lexical, 12)) for h in res.hits]


def test_search_builds_the_postings_of_chunks_indexed_before_the_upgrade(alice, bob):
    from profiles.models import LexicalPosting

    now = dt.datetime.now(dt.timezone.utc)
    _item(alice, "fact", "allergy", "我对花生过敏")
    _item(alice, "profile", "city", "I live in Manchester with two dogs")
    _item(bob, "fact", "pet", "我有一只狗")
    post_and_extract("alice", "s-a", [("user", "明天去医院体检，帮我请半天假"), ("assistant", "好的，祝体检顺利")],
                     start=now - dt.timedelta(days=2))
    queries = [("花生过敏", "memory"), ("dogs Manchester", "memory"), ("体检", "sessions")]
    before = [_ranked(memory_search(user=alice, agent_slug="main", query=q, scope=s, now=now)) for q, s in queries]
    assert all(before), before
    postings = sorted(LexicalPosting.objects.filter(user=alice).values_list("vector_id", "source", "term", "tf"))
    counts = sorted(MemoryVector.objects.filter(user=alice).values_list("id", "terms_count"))
    bob_postings = LexicalPosting.objects.filter(user=bob).count()

    _drop_postings(alice)
    assert not LexicalPosting.objects.filter(user=alice).exists()
    after = [_ranked(memory_search(user=alice, agent_slug="main", query=q, scope=s, now=now)) for q, s in queries]
    assert after == before
    assert sorted(LexicalPosting.objects.filter(user=alice).values_list("vector_id", "source", "term", "tf")) == postings
    assert sorted(MemoryVector.objects.filter(user=alice).values_list("id", "terms_count")) == counts
    assert LexicalPosting.objects.filter(user=bob).count() == bob_postings


def test_rebuild_embeddings_builds_missing_postings_for_every_user(alice, bob):
    from django.core.management import call_command

    from profiles.models import LexicalPosting

    _item(alice, "fact", "allergy", "我对花生过敏")
    _item(bob, "fact", "pet", "我有一只狗")
    for u in (alice, bob):
        memory_index_refresh(user_id=u.pk)
    want = sorted(LexicalPosting.objects.values_list("vector_id", "term", "tf"))
    _drop_postings(alice)
    _drop_postings(bob)
    call_command("rebuild_embeddings")
    assert sorted(LexicalPosting.objects.values_list("vector_id", "term", "tf")) == want
    assert not MemoryVector.objects.filter(terms_count__isnull=True).exists()


def test_postings_go_with_their_vectors(alice, bob):
    from profiles.models import LexicalPosting
    from profiles.services import memory_clear_all

    dog = _item(alice, "fact", "pet", "我有一只狗")
    _item(alice, "profile", "city", "我住在上海")
    _item(bob, "fact", "pet", "我有一只猫")
    post_and_extract("alice", "s-a", [("user", "明天去医院体检"), ("assistant", "好的")],
                     start=dt.datetime.now(dt.timezone.utc))
    for u in (alice, bob):
        memory_index_refresh(user_id=u.pk)
        session_index_refresh(user_id=u.pk)
    vec = MemoryVector.objects.get(item=dog)
    assert LexicalPosting.objects.filter(vector=vec, term="一只").exists()
    dog.delete()
    assert not LexicalPosting.objects.filter(vector_id=vec.pk).exists()
    assert LexicalPosting.objects.filter(user=alice, source="message").exists()
    bob_postings = LexicalPosting.objects.filter(user=bob).count()
    memory_clear_all(user=alice, include_history=False)
    assert not LexicalPosting.objects.filter(user=alice).exists()  # terms are fragments of her text
    assert LexicalPosting.objects.filter(user=bob).count() == bob_postings
