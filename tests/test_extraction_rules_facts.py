"""consolidation.extraction_rules: dated facts (family, moves, certificates) and relative dates.

Unit tests in pure Python, no database, no Django setup; helpers in ``tests/extraction_rules_helpers.py``.
"""
import datetime as dt

import pytest

from consolidation import extraction_rules as R
from tests.extraction_rules_helpers import _fast_settings, blob, ex, has  # noqa: F401 (_fast_settings: autouse)


FACTS = [
    ("我女儿今年九月上小学。", "女儿", dt.date(2026, 9, 1)),
    ("我儿子去年考上了大学。", "儿子", dt.date(2025, 1, 1)),
    ("我前年结的婚。", "结婚", dt.date(2024, 1, 1)),
    ("我上个月刚当了妈妈。", "妈妈", dt.date(2026, 2, 1)),
    ("我去年五月从成都搬到了重庆。", "重庆", dt.date(2025, 5, 1)),
    ("我三年前从北京搬到了杭州。", "杭州", dt.date(2023, 1, 1)),
    ("我女儿这个月出生的。", "出生", dt.date(2026, 3, 1)),
    ("我儿子明年高考。", "高考", dt.date(2027, 1, 1)),
    ("My son started university last fall.", "university", dt.date(2025, 9, 1)),
    ("My daughter started kindergarten this month.", "kindergarten", dt.date(2026, 3, 1)),
    ("I got married last year.", "married", dt.date(2025, 1, 1)),
    ("We had a baby in January.", "baby", dt.date(2026, 1, 1)),
    ("I moved here from Oslo about three years ago.", "Oslo", dt.date(2023, 1, 1)),
    ("I relocated from Chicago two years ago.", "Chicago", dt.date(2024, 1, 1)),
    ("My daughter started high school last month.", "high school", dt.date(2026, 2, 1)),
    ("I became a father in March.", "father", dt.date(2026, 3, 1)),
    ("I became a mother in November.", "mother", dt.date(2025, 11, 1)),
    ("My son graduated from college in 2024.", "college", dt.date(2024, 1, 1)),
    ("我儿子今年上初二了。", "初二", dt.date(2026, 1, 1)),
    ("我老婆去年生了二胎。", "二胎", dt.date(2025, 1, 1)),
]


@pytest.mark.parametrize("text,needle,date", FACTS)
def test_fact_with_resolved_date(text, needle, date):
    cands = ex(text)
    facts = [c for c in cands if c.kind == "fact" and needle.casefold() in (c.value + c.text).casefold()]
    assert facts, blob(cands)
    assert facts[0].fact_date == date


def test_fact_needs_time_anchor():
    assert not [c for c in ex("我有两个孩子。") if c.kind == "fact"]


@pytest.mark.parametrize("phrase,at,expected", [
    ("去年", dt.datetime(2026, 1, 3), dt.date(2025, 1, 1)),
    ("今年九月", dt.datetime(2026, 3, 1), dt.date(2026, 9, 1)),
    ("上个月", dt.datetime(2026, 1, 10), dt.date(2025, 12, 1)),
    ("去年五月", dt.datetime(2026, 4, 1), dt.date(2025, 5, 1)),
    ("两年前", dt.datetime(2026, 4, 1), dt.date(2024, 1, 1)),
])
def test_resolve_date_zh(phrase, at, expected):
    assert R._resolve_date_zh(phrase, at)[0] == expected


@pytest.mark.parametrize("phrase,at,expected", [
    ("last fall", dt.datetime(2026, 3, 1), dt.date(2025, 9, 1)),
    ("two years ago", dt.datetime(2026, 3, 1), dt.date(2024, 1, 1)),
    ("this month", dt.datetime(2026, 3, 20), dt.date(2026, 3, 1)),
    ("last month", dt.datetime(2026, 1, 20), dt.date(2025, 12, 1)),
    ("in October", dt.datetime(2026, 3, 20), dt.date(2025, 10, 1)),
    ("last year", dt.datetime(2026, 3, 20), dt.date(2025, 1, 1)),
])
def test_resolve_date_en(phrase, at, expected):
    assert R._resolve_date_en(phrase, at)[0] == expected


def test_family_facts_allowed_but_not_family_profile():
    cands = ex("我老婆是医生，我女儿今年上初一。")
    assert has(cands, "fact", "初一")
    assert not has(cands, "profile", "医生")


# Generalisation (rules 2026.11-r5): variants written for the kinds of mistakes found on the held-out
# conversations, not the held-out sentences themselves; each kind has look-alikes that must yield nothing.
def test_an_exam_is_a_dated_fact_and_the_new_post_is_the_role():
    cands = ex("我上个月考过了中级会计师的最后一门，三月起正式定岗为财务主管。")
    assert [c.value for c in cands if c.key == "role"] == ["财务主管"], blob(cands)
    fact = next(c for c in cands if c.kind == "fact")
    assert fact.key.startswith("fact:certificate:") and "中级会计师" in fact.value and fact.fact_date == dt.date(2026, 2, 1)
    assert not any("考" in c.value for c in cands if c.kind == "profile"), blob(cands)


@pytest.mark.parametrize("text,needle,date", [
    ("我去年五月拿到了法律职业资格证书。", "法律职业资格", dt.date(2025, 5, 1)),
    ("I passed my CPA exam last month.", "CPA", dt.date(2026, 2, 1)),
    ("I've held my CFA charter since 2019.", "CFA", dt.date(2019, 1, 1)),
    ("我三月初开始读在职MBA了。", "MBA", dt.date(2026, 3, 1)),
    ("I got engaged over the Easter weekend in April.", "engaged", dt.date(2025, 4, 1)),
    ("My daughter was born on 3 January.", "born", dt.date(2026, 1, 1)),
    ("We got married on 2023-09-16.", "married", dt.date(2023, 9, 1)),
    # Blind 12 (after its untouched run)
    ("Oh and put this somewhere: I finished the Cornell revenue management certificate in November.", "Cornell", dt.date(2025, 11, 1)),
    ("Just to update, I cleared NISM Series XXI-A last month, so now I can pitch PMS products.", "NISM", dt.date(2026, 2, 1)),
    ("Right, so I went chartered with the IMechE back in 2018.", "IMechE", dt.date(2018, 1, 1)),
    ("好吧。我HCIE是去年年底才拿的，数通方向。", "HCIE", dt.date(2025, 1, 1)),
])
def test_dated_certificates_and_life_events_are_facts(text, needle, date):
    facts = [c for c in ex(text) if c.kind == "fact"]
    assert len(facts) == 1 and needle.casefold() in facts[0].text.casefold() and facts[0].fact_date == date, blob(facts)


@pytest.mark.parametrize("text", ["He passed his driving test in March.", "I passed the salt.", "我考完了试，好累。",
                                  "我同事去年拿到了CPA证书。", "I finished the course materials for the team last week.",
                                  "我这个是去年拿的快递。"])
def test_no_certificate_fact_from_look_alikes(text):
    assert not [c for c in ex(text) if c.kind == "fact"], blob(ex(text))
