"""Rule-based extraction of memory candidates from one user message.

Only three kinds of memory are produced (see the product policy):

* ``profile``    -- role, department, city, industry, education, skills, seniority, responsibility;
* ``preference`` -- stable likes and working style (answer length/format, tools, units, habits...);
* ``fact``       -- stable personal/family life events with a resolved ``fact_date``.

Everything else (project details, questions, hypotheticals, third parties, temporary
states, venting, negations, injected instructions) yields nothing. The module is pure
Python (``re``, ``datetime``, ``dataclasses``) and needs no Django setup.

Public API: :class:`Candidate`, :func:`detect_injection`, :func:`extract_candidates`,
:data:`RULES_VERSION`. The rules live in :mod:`consolidation.extraction_zh` and
:mod:`consolidation.extraction_en` (shared parts in :mod:`consolidation.extraction_common`),
word lists in :mod:`consolidation.extraction_lexicon`.
"""
from __future__ import annotations

import datetime as _dt

from .extraction_common import Candidate, _cand, _lang_of, detect_injection
from .extraction_en import _resolve_date_en, extract_en
from .extraction_zh import _resolve_date_zh, extract_zh

__all__ = ["Candidate", "RULES_VERSION", "detect_injection", "extract_candidates"]
# Re-exported for tests and tools that resolve dates or detect the language directly.
_ = (_resolve_date_en, _resolve_date_zh, _lang_of)

RULES_VERSION = "2026.11-r5"

# Profile keys that may hold several values stated together (joined); other profile keys keep the last value.
_MULTI_PROFILE_KEYS = frozenset({"role", "education", "responsibility"})

# --------------------------------------------------------------------------- entry point
def extract_candidates(text: str, *, at: _dt.datetime, lang: str | None = None) -> list[Candidate]:
    """Extract memory candidates from ONE user message.

    Inputs: ``text`` -- the raw user message; ``at`` -- when it was sent (used to resolve
    relative dates such as 去年 / last fall); ``lang`` -- "zh" or "en", detected when None.
    Output: a list of :class:`Candidate` (possibly empty), de-duplicated by (kind, key, operation),
    so a retraction and a new value of one key both stand; when a key is stated twice in the
    message the values are joined (preferences; roles, education and responsibilities unless one
    value contains the other) or the last one wins (others). Returns [] for empty input, for
    messages carrying an injected instruction (:func:`detect_injection`) and when nothing matches
    the policy.
    Errors: raises TypeError if ``text`` is not a str or ``at`` is not a datetime.
    """
    if not isinstance(text, str):
        raise TypeError("text must be str")
    if not isinstance(at, (_dt.datetime, _dt.date)):
        raise TypeError("at must be a datetime")
    text = text.strip()
    if not text or detect_injection(text):
        return []
    lang = lang or _lang_of(text)
    raw: list[Candidate] = []
    (extract_zh if lang == "zh" else extract_en)(text, at, raw)
    merged: dict[tuple[str, str], Candidate] = {}
    for cd in raw:
        # A retraction and a new value of the same key both stand ("我现在不管招聘了，只负责培训").
        k = (cd.kind, cd.key, cd.operation)
        prev = merged.get(k)
        if prev and cd.kind == "preference" and cd.operation == prev.operation and cd.value not in prev.value \
                and not cd.key.startswith(("pref:tool", "pref:code_language", "pref:currency")):
            sep = "，" if cd.lang == "zh" else "; "
            cd = _cand(cd.kind, cd.key, prev.value + sep + cd.value, cd.lang, cd.fact_date, None, cd.operation)
        elif prev and prev.value == cd.value:
            continue
        elif prev and cd.kind == "profile" and cd.key in _MULTI_PROFILE_KEYS and cd.operation == prev.operation:
            # Two roles (or schools, duties) stated in one message are both kept: "我是HRBP，同时兼任内审员",
            # "I'm a product manager and a part-time scrum master". A value that contains the other wins.
            a, b = prev.value, cd.value
            if b.casefold() in a.casefold():
                continue
            if a.casefold() not in b.casefold():
                sep = "，" if cd.lang == "zh" else "; "
                cd = _cand(cd.kind, cd.key, a + sep + b, cd.lang, cd.fact_date, None, cd.operation)
        merged.pop(k, None)
        merged[k] = cd
    return list(merged.values())
