"""Generalisation of the rule extractor on the third blind set (tests/data_extraction_blind3.py).

The set was written before the rules were read; its first, untouched figures were precision 0.958,
recall 0.712 (label typos fixed; 0.917 / 0.695 as first written). The floors below sit slightly
under what the revised rules reach, so a regression of a whole kind of statement fails here:
overall, per kind and per language; zero pollution in every never-category. The post-fix check
set (``CHECK_POSITIVE`` / ``CHECK_NEVER``, written after the revision and scored once) has lower
floors. Pure Python; no database.
"""
import pytest

from consolidation.extraction_rules import extract_candidates

from . import data_extraction_blind3 as B


@pytest.fixture(autouse=True)
def _fast_settings():
    """Override the package conftest's autouse fixture: these tests need no Django settings."""
    yield


@pytest.mark.parametrize("lang", ["all", "zh", "en"])
def test_blind3_overall_precision_and_recall(lang):
    r = B.score_blind(extract_candidates, lang=lang)
    assert r["overall"]["precision"] >= 0.95, B.format_report(r)
    assert r["overall"]["recall"] >= 0.93, B.format_report(r)


@pytest.mark.parametrize("kind", ["profile", "preference", "fact"])
def test_blind3_per_kind_precision_and_recall(kind):
    r = B.score_blind(extract_candidates)
    assert r["per_kind"][kind]["precision"] >= 0.9, B.format_report(r)
    assert r["per_kind"][kind]["recall"] >= 0.9, B.format_report(r)


@pytest.mark.parametrize("category", sorted(B.NEVER))
def test_blind3_never_categories_yield_nothing(category):
    r = B.score_blind(extract_candidates)
    assert r["pollution"][category] == 0.0, B.format_report(r)


def test_post_fix_check_set_generalises():
    """Sentences written after the revision: lower floors, still zero pollution."""
    saved = B.POSITIVE, B.NEVER
    try:
        B.POSITIVE, B.NEVER = B.CHECK_POSITIVE, B.CHECK_NEVER
        r = B.score_blind(extract_candidates)
    finally:
        B.POSITIVE, B.NEVER = saved
    assert r["overall"]["precision"] >= 0.9, B.format_report(r)
    assert r["overall"]["recall"] >= 0.85, B.format_report(r)
    assert all(p == 0.0 for p in r["pollution"].values()), B.format_report(r)


def test_blind3_is_large_mixed_and_covers_every_policy_line():
    texts = [t for t, _ in B.CASES]
    assert len(texts) >= 150 and len(set(texts)) == len(texts)
    zh = sum(B.lang_of(t) == "zh" for t in texts) / len(texts)
    assert 0.5 <= zh <= 0.7
    kinds = {e.kind for _, exp in B.POSITIVE for e in exp}
    assert kinds == {"profile", "preference", "fact"}
    assert set(B.NEVER) >= {"project", "knowledge_tool", "assistant_guess", "temporary", "venting", "hypothetical",
                            "question", "other_people", "injection", "negation", "scheduled"}
    assert all(B.NEVER.values())
    assert any(e.op == "retract" for _, exp in B.POSITIVE for e in exp)
    assert sum(1 for _, exp in B.POSITIVE for e in exp if e.kind == "fact" and e.date) >= 10


def test_the_scorer_counts_misses_wrong_items_and_pollution():
    """The scorer itself: an extractor that finds nothing has recall 0, one that echoes every
    sentence as a role has low precision and pollutes every never-category."""
    import datetime as dt

    from consolidation.extraction_common import _cand

    nothing = B.score_blind(lambda text, at: [])
    assert nothing["overall"]["recall"] == 0.0 and all(p == 0.0 for p in nothing["pollution"].values())

    def echo(text, at: dt.datetime):
        return [_cand("profile", "role", text, B.lang_of(text))]

    r = B.score_blind(echo)
    assert r["overall"]["precision"] < 0.5
    assert all(p == 1.0 for p in r["pollution"].values())
