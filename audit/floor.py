"""The masking floor: what is hidden in raw conversation text served to agents whatever the
detector says.

Detection (:mod:`audit.sanitizer`) misses some PII however good it gets. Text an agent reads
straight from the user's turns (``memory_search(scope="sessions")``, the context's recent turns
and summary) therefore passes :func:`mask_floor` as well, which needs no context and no
checksum: after :func:`audit.normalize.normalize` (full-width and spelled-out digits, spelled-out
e-mail addresses) it masks

* every run of 7 or more digits, counting digits separated by up to two spaces, dashes, dots,
  slashes or brackets (``139 1234 5678``, ``(95) 94215-7906``, ``１３８…``, "one three eight …");
  dates written ``2026-03-19`` / ``19/03/2026`` are not counted;
* every e-mail-shaped token (``name@host``, also without a top-level domain, and the spelled-out
  forms ``name at host dot com``, ``name[at]host[dot]com``) and every handle (``@name``,
  ``wxid_…``).

Pure: no Django, no presidio. Rule: issue 14 ("a floor under detection").
"""

from __future__ import annotations

import re

from .normalize import normalize

__all__ = ["MASK_CHAR", "MIN_DIGITS", "floor_spans", "mask_floor"]

MASK_CHAR = "*"
MIN_DIGITS = 7

_DATE = re.compile(
    r"(?<!\d)(?:\d{4}[\-/.]\d{1,2}[\-/.]\d{1,2}|\d{1,2}[\-/.]\d{1,2}[\-/.]\d{4})(?![\d])"
)
_SEP = r"[ \t\u00a0\-\u2010-\u2015./()\[\]]"
_DIGIT_RUN = re.compile(r"\d(?:" + _SEP + r"{0,2}\d)*")
_EMAIL_SHAPED = re.compile(
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*"
)
_HANDLE = re.compile(
    r"(?<![A-Za-z0-9._%+\-@])@[A-Za-z0-9_][A-Za-z0-9_.\-]*[A-Za-z0-9_]|(?<![A-Za-z0-9._%+\-@])@[A-Za-z0-9_]"
    r"|(?<![A-Za-z0-9_])wxid_[A-Za-z0-9_\-]+",
    re.IGNORECASE,
)


def _digit_spans(text: str) -> list[tuple[int, int]]:
    """Spans (in ``text``) of the digits of every run holding ``MIN_DIGITS`` digits or more."""
    # Dates are barriers: their digits neither count nor join two runs.
    blanked = _DATE.sub(lambda m: "\x00" * len(m.group()), text)
    out = []
    for m in _DIGIT_RUN.finditer(blanked):
        run = m.group()
        if sum(ch.isdigit() for ch in run) >= MIN_DIGITS:
            out.extend((m.start() + i, m.start() + i + 1) for i, ch in enumerate(run) if ch.isdigit())
    return out


def floor_spans(text: str) -> list[tuple[int, int]]:
    """Original-text spans :func:`mask_floor` masks, sorted, possibly adjacent or overlapping."""
    norm = normalize(text)
    t = norm.text
    spans = _digit_spans(t)
    spans.extend(m.span() for m in _EMAIL_SHAPED.finditer(t))
    spans.extend(m.span() for m in _HANDLE.finditer(t))
    return sorted(norm.span(s, e) for s, e in spans)


def mask_floor(text: str) -> str:
    """``text`` with every run of 7+ digits and every e-mail- or handle-shaped token masked by
    ``*`` (see the module docstring), one ``*`` per original character, so the length is kept;
    whitespace inside a masked spelled-out form stays. Input: any ``str``; ``TypeError`` otherwise.
    Costs one normalisation and three regular-expression scans (~20-50 µs a chat turn)."""
    spans = floor_spans(text)
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        for i in range(start, end):
            if not chars[i].isspace():
                chars[i] = MASK_CHAR
    return "".join(chars)
