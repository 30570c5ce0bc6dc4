"""International phone numbers with python-phonenumbers' ``PhoneNumberMatcher``.

The matcher runs once per region of :data:`REGIONS` (a ``+CC`` number is found whatever the
region; national formats need theirs) at :data:`LENIENCY`. ``VALID`` (presidio's choice) drops
numbers outside the assigned ranges — most made-up or mistyped numbers people write, such as
``+91-39941 98087`` or ``+86 11251 2534`` — so we match at ``POSSIBLE`` (right length for the
region) and judge the shape ourselves; ``benchmarks/pii_recall.py --phone-leniency`` measures
both. A match is kept with 7-15 digits, never a date (also ``20200212``), a timestamp, a dotted quad,
a run of years, thousands (``6 544 544``), part of a longer number or inside a URL, and scored

* 0.7 written internationally (``+44 …``, ``0044 …``) or grouped with separators (``(95) 94215-7906``);
* 0.4 a bare digit run, plus 0.35 (0.75) with a phone word near ("call", "reach me", "电话", "打").

A ``+CC`` followed by digit groups (8-15 digits) is also kept when the matcher finds nothing
there (a length no country uses: still someone's attempt at a phone number).

Pure library code (no Django); matched against normalised text (``audit.normalize``).
"""

from __future__ import annotations

import re

import phonenumbers
from phonenumbers import Leniency
from presidio_analyzer import EntityRecognizer, RecognizerResult

from .recognizers import LANGUAGE, _context_near, _inside_url
from .street_suffixes import suffix_pattern

REGIONS = ("CN", "US", "GB", "IN", "BR", "DE", "FR", "JP", "AU", "RU")
LENIENCY = Leniency.POSSIBLE
MAX_TRIES = 64  # phonenumbers' own default is effectively unbounded: keep a pathological text cheap

PHONE_WORDS = (
    "phone", "telephone", "tel", "mobile", "cell", "call", "ring", "reach me", "reach us", "text me", "text", "number",
    "whatsapp", "signal", "fax", "contact", "dial",
    "电话", "手机", "号码", "打", "联系", "致电", "传真", "拨", "来电",
)
_DIGIT = re.compile(r"\d")
_DATE_LIKE = re.compile(r"\d{4}[\-./]\d{1,2}[\-./]\d{1,2}|\d{1,2}[\-./]\d{1,2}[\-./]\d{2,4}")
_DOTTED_QUAD = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_YEARS = re.compile(r"(?:(?:19|20)\d\d[\s\-–,/]*){2,}")
_EXTENSION = re.compile(r"(?:x|ext\.?|转)\s*\d{1,5}$", re.IGNORECASE)
# A compact date opening the number: "20200212", "20180827-094050" (a timestamp).
_COMPACT_DATE = re.compile(r"(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?:$|[\-_ T.:]\d)")
# Thousands grouping: "6 544 544", "12,480,000" (one or two digits, then groups of three).
_THOUSANDS = re.compile(r"\d{1,2}(?:([ ,.])\d{3})(?:\1\d{3})+")


def _kept(raw: str) -> bool:
    body = _EXTENSION.sub("", raw).strip()
    digits = sum(ch.isdigit() for ch in body)
    return (
        7 <= digits <= 15
        and not body.startswith("000")
        and not _DATE_LIKE.match(body)  # a date, or a date and the hour ("2022/4/2 11")
        and not _DOTTED_QUAD.fullmatch(body)
        and not _YEARS.fullmatch(body + " ")
        and not _COMPACT_DATE.match(body)
        and not _THOUSANDS.fullmatch(body)
    )


def _base_score(raw: str) -> float:
    body = raw.strip()
    # One dot is a decimal or a version ("20260319.3"); two or more group a number ("206.269.0743").
    if body.startswith(("+", "00")) or re.search(r"\d[ \-()]+\d|^\(\d", body) or body.count(".") >= 2:
        return 0.7
    return 0.4


_CONTINUES_BEFORE = re.compile(r"(?:\d[ \-.]?|[A-Za-z_])$")
_CONTINUES_AFTER = re.compile(r"^(?:[ \-.]?\d|[A-Za-z_])")


# "17151 2450 Crown St": the digits before a street name are a house number, not a phone.
_STREET_AFTER = re.compile(r"[ \t]+(?:[A-Z][A-Za-z'\-]*\.?[ \t]+){1,4}" + suffix_pattern() + r"(?![A-Za-z])")


def _inside_longer_number(text: str, start: int, end: int) -> bool:
    """The match is part of a longer digit sequence or token ("4111 [1111 1111 1112]", "v1.2")."""
    return bool(_CONTINUES_BEFORE.search(text[max(0, start - 2) : start]) or _CONTINUES_AFTER.search(text[end : end + 2]))


# "+CC" and digit groups: a phone number by shape, whether or not its length suits the country
# (people mistype, and made-up numbers are still someone's attempt at theirs).
_PLUS_GROUPED = re.compile(
    r"(?<![0-9A-Za-z+])\+\d{1,3}[ \-]?(?:\(\d{1,4}\)[ \-]?)?\d{1,6}(?:[ \-.]\d{1,6}){1,5}(?![0-9A-Za-z]|[\-.]\d)"
)


class IntlPhoneRecognizer(EntityRecognizer):
    """PHONE_NUMBER: every number python-phonenumbers finds in :data:`REGIONS` at :data:`LENIENCY`,
    scored by how it is written and whether a phone word is near (module docstring)."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["PHONE_NUMBER"], name="bizmemory_intl_phone", supported_language=LANGUAGE)

    def load(self) -> None:
        pass

    def analyze(self, text, entities, nlp_artifacts=None):
        if entities and "PHONE_NUMBER" not in entities:
            return []
        if len(_DIGIT.findall(text)) < 7:
            return []
        spans: dict[tuple[int, int], str] = {}
        for region in REGIONS:
            for m in phonenumbers.PhoneNumberMatcher(text, region, leniency=LENIENCY, max_tries=MAX_TRIES):
                spans.setdefault((m.start, m.end), m.raw_string)
        for m in _PLUS_GROUPED.finditer(text):
            # The shape wins over the matcher's pieces inside it ("+33 [1388-3866]").
            inside = [(s, e) for s, e in spans if m.start() <= s and e <= m.end()]
            if inside or not any(s < m.end() and m.start() < e for s, e in spans):
                for span in inside:
                    del spans[span]
                spans[m.span()] = m.group()
        out = []
        meta = {RecognizerResult.RECOGNIZER_NAME_KEY: self.name, RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id}
        for (start, end), raw in sorted(spans.items()):
            if (not _kept(raw) or _inside_longer_number(text, start, end) or _inside_url(text, start)
                    or _STREET_AFTER.match(text, end)):
                continue
            score = _base_score(raw)
            if _context_near(text, start, end, PHONE_WORDS, 30, 10):
                score = min(1.0, score + 0.35)
            out.append(RecognizerResult("PHONE_NUMBER", start, end, score, recognition_metadata=dict(meta)))
        return out
