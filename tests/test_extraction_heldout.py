"""Generalisation of the rule extractor on the project's own held-out sentences
(tests/data_extraction_heldout.py): overall precision >= 0.9 and recall >= 0.8, per language and
for both the held-out set and the blind set. Pure Python; no database."""
import pytest

from consolidation.extraction_rules import extract_candidates

from .data_extraction_heldout import BLIND, CASES, NOTHING, lang_of, score


@pytest.fixture(autouse=True)
def _fast_settings():
    """Override the package conftest's autouse fixture: these tests need no Django settings."""
    yield


def _report(r):
    misses = "\n".join(f"  miss  {t!r}: {e}" for t, e in r["misses"])
    wrong = "\n".join(f"  wrong {t!r}: {c.kind} {c.key}={c.value}" for t, c in r["wrong"])
    return f"precision={r['precision']:.3f} recall={r['recall']:.3f}\n{misses}\n{wrong}"


@pytest.mark.parametrize("lang", ["en", "zh", "all"])
@pytest.mark.parametrize("name,cases", [("heldout", CASES), ("blind", BLIND)], ids=["heldout", "blind"])
def test_it_meets_precision_and_recall_on_held_out_sentences(name, cases, lang):
    subset = [c for c in cases if lang == "all" or lang_of(c[0]) == lang]
    r = score(extract_candidates, subset)
    assert r["precision"] >= 0.9, _report(r)
    assert r["recall"] >= 0.8, _report(r)


def test_the_held_out_sets_are_large_and_cover_both_languages_and_negatives():
    both = CASES + BLIND
    assert len(CASES) >= 150
    for lang in ("en", "zh"):
        assert sum(lang_of(t) == lang for t, _ in both) >= 75
        assert sum(lang_of(t) == lang and exp == NOTHING for t, exp in both) >= 30
    kinds = {e.kind for _, exp in both for e in exp}
    assert kinds == {"profile", "preference", "fact"}


@pytest.mark.parametrize("text", [
    "Running can really boost your mood.", "Handling changes has been hard.", "Support from loved ones is vital.",
    "Look after yourself.", "Managing a team is never easy.", "Leading people through change takes patience.",
])
def test_it_takes_no_responsibility_from_a_clause_without_a_first_person_subject(text):
    assert extract_candidates(text, at=__import__("datetime").datetime(2026, 5, 1)) == []
