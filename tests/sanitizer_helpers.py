"""Helpers shared by the tests of ``audit.sanitizer`` (plain Python, no database, no Django).

The tests are split by what is found: ``test_sanitizer.py`` (the engine, overlaps, masking,
sensitive words, business text), ``…_phones.py``, ``…_identity_numbers.py``, ``…_cards.py``,
``…_addresses.py`` and ``…_credentials.py``.
"""

from audit.sanitizer import analyze


def found(text, **kwargs):
    """(entity_type, matched text) pairs, in order."""
    return [(h.entity_type, text[h.start : h.end]) for h in analyze(text, **kwargs)]


def types(text, **kwargs):
    return {h.entity_type for h in analyze(text, **kwargs)}
