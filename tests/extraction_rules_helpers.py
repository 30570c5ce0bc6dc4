"""Helpers shared by the tests of ``consolidation.extraction_rules`` (pure Python, no database).

The tests are split by behaviour: ``test_extraction_rules.py`` (the interface),
``…_profile.py``, ``…_preferences.py``, ``…_facts.py``, ``…_never.py`` (never-rules and
injections) and ``…_changes.py`` (changes and retractions). :func:`span_where` serves the
extractor's pure checks too (``test_extractor_misreads.py``, ``test_extractor_blind15_guards.py``).
"""
import datetime as dt

import pytest

from consolidation import extraction_rules as R

AT = dt.datetime(2026, 3, 15, 10, 0)


@pytest.fixture(autouse=True)
def _fast_settings():
    """Override the package conftest's autouse fixture (it needs pytest-django's ``settings``):
    these tests are pure Python and must also run with ``-p no:django``. A test module imports
    this fixture by name to use it."""
    yield


def ex(text, at=AT, lang=None):
    return R.extract_candidates(text, at=at, lang=lang)


def blob(cands):
    return " || ".join(f"{c.kind} {c.key} {c.value} {c.text}" for c in cands).casefold()


def has(cands, kind, needle, key_prefix=None):
    return any(c.kind == kind and needle.casefold() in f"{c.key} {c.value} {c.text}".casefold()
               and (key_prefix is None or c.key.startswith(key_prefix)) for c in cands)


def span_where(text, value):
    """``(sentence, start, end)`` of the first ``value`` in ``text``: the arguments the extractor's
    span checks (consolidation.extractor.misreads / vetoes) take."""
    from consolidation.extractor.text import sentences

    start = text.index(value)
    sent = next(s for s in sentences(text) if s.start <= start < s.end)
    return sent, start, start + len(value)
