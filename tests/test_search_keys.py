"""memory_search answers questions about keys ("where does the user live", "住在哪", "做什么的")
and returns nothing for a query that matches neither a key nor a value (issue 17).

Searched with the product's default embedder (USE): the failures the issue reports are its
similarities ("Reykjavik" is 0.29 from "City: Lisbon").
"""

import datetime as dt

import pytest

from profiles.models import MemoryItem
from profiles.search import memory_index_refresh, memory_search

NOW = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


@pytest.fixture(autouse=True)
def _use(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="use", EMBEDDER_DIM=0, SEARCH_MIN_SIMILARITY=None,
                              SEARCH_VECTOR_ONLY_MIN_SIMILARITY=None)


def _items(user, rows):
    """Current items ``(kind, key, value, text)`` as consolidation writes them; returns ``{key: item}``."""
    out = {}
    for kind, key, value, text in rows:
        out[key] = MemoryItem.objects.create(user=user, kind=kind, key=key, value=value, text=text,
                                             valid_from=NOW, confirmed_at=NOW)
    memory_index_refresh(user_id=user.pk)
    return out


def _keys(user, query, **kw):
    return [MemoryItem.objects.get(pk=h.id).key for h in memory_search(user=user, agent_slug="main", query=query,
                                                                      now=NOW, **kw).hits]


_TOM = [("profile", "city", "Manchester", "City: Manchester"), ("profile", "role", "data engineer", "Role: data engineer"),
        ("profile", "company", "Octopus Energy", "Company: Octopus Energy"),
        ("preference", "pref:drink:green_tea", "green tea", "Preference · drink: green tea")]
_FANG = [("profile", "city", "杭州", "城市：杭州"), ("profile", "role", "产品经理", "职位：产品经理"),
         ("profile", "company", "阿里巴巴", "公司：阿里巴巴"), ("profile", "education", "浙江大学本科", "教育背景：浙江大学本科"),
         ("profile", "language:英语", "英语", "语言能力：英语"), ("profile", "language:日语", "日语", "语言能力：日语"),
         ("preference", "pref:hobby:摄影", "摄影", "偏好·爱好：摄影")]


def test_it_finds_the_city_when_asked_where_the_user_lives(alice):
    _items(alice, _TOM)
    assert _keys(alice, "Where does the user live?")[:1] == ["city"]
    assert _keys(alice, "What does the user do for a living?")[:1] == ["role"]
    assert _keys(alice, "where does he work")[:1] == ["company"]
    assert _keys(alice, "用户住在哪") == ["city"]  # a Chinese question about an English item: the key's labels


def test_another_users_city_is_no_answer_to_a_city_search(alice, bob):
    _items(alice, [("profile", "city", "Reykjavik", "City: Reykjavik")])
    _items(bob, [("profile", "city", "Lisbon", "City: Lisbon"), ("profile", "role", "designer", "Role: designer")])
    assert _keys(bob, "Reykjavik") == []
    assert _keys(bob, "Reykjavik", top_k=10) == []
    assert _keys(alice, "Reykjavik") == ["city"]


def test_it_answers_chinese_questions_about_keys(alice):
    _items(alice, _FANG)
    assert _keys(alice, "用户住在哪") == ["city"]
    assert _keys(alice, "他是做什么的") == ["role"]
    assert _keys(alice, "在哪家公司上班") == ["company"]
    assert _keys(alice, "什么学历") == ["education"]
    assert sorted(_keys(alice, "会说哪些语言")) == ["language:日语", "language:英语"]
    assert _keys(alice, "有什么爱好") == ["pref:hobby:摄影"]
    assert _keys(alice, "where does the user live") == ["city"]


def test_a_query_that_matches_no_key_and_no_value_returns_nothing(alice):
    _items(alice, _FANG)
    for query in ("Shanghai", "他结婚了吗", "血型是什么", "what is her salary", "favourite football team"):
        assert _keys(alice, query, top_k=10) == [], query
    assert _keys(alice, "Hangzhou") == ["city"]  # a value in another language still passes the floor


def test_it_reads_the_keys_a_question_asks_about_from_the_registry():
    from profiles.taxonomy import query_keys

    assert [s.label for s in query_keys("用户住在哪里")] == ["profile/city"]
    assert [s.label for s in query_keys("他是做什么的")] == ["profile/role"]
    assert [s.label for s in query_keys("什么学历")] == ["profile/education"]
    assert [s.label for s in query_keys("What does she do?")] == ["profile/role"]
    assert [s.label for s in query_keys("what does she do in her free time")] == ["preference/hobby"]
    assert [s.label for s in query_keys("which company")] == ["profile/company"]
    assert query_keys("Reykjavik") == () and query_keys("") == ()
