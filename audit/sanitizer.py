"""PII and sensitive-word detection for Chinese and English text, fully offline.

Built on presidio-analyzer's pattern recognizers with a ``NoOpNlpEngine``: no
spaCy model is loaded, so everything here is regular expressions plus checksums.
All recognizers run under the single language code ``"en"`` because pattern
recognizers do not care about the language and our text mixes both.

This module imports no Django code and can be used before ``django.setup()``.
Importing it imports presidio (about 1.5 s, mostly spaCy); building the engine
is lazy and happens on the first :func:`analyze` or on :func:`warm_up`.

Text is normalised first (:mod:`audit.normalize`: full-width characters, digits
spelled out in English or Chinese, "at/dot" e-mail addresses), hits are mapped back
onto the original characters.

Entity types (see :data:`ENTITY_TYPES`): by kind of identifier
(:mod:`audit.recognizers_kinds`, checksums from python-stdnum, a context word is
enough whatever the check digit) CN_RESIDENT_ID, NATIONAL_ID (HKID, NRIC, NINO, Aadhaar… next to an identity word), BANK_CARD, CN_PASSPORT, PASSPORT,
IBAN_CODE, WECHAT_ID, QQ_NUMBER, LICENSE_PLATE; PHONE_NUMBER from
python-phonenumbers' matcher (:mod:`audit.recognizers_phone`) and grouped digits next
to a phone word; CN_MOBILE, CN_LANDLINE, EMAIL_ADDRESS, CN_ADDRESS (road + number, or
estate + room), EN_STREET_ADDRESS (the USPS suffix list, :mod:`audit.street_suffixes`)
and CREDENTIAL (the value after "password"/"密码"/"验证码"/"token"..., and well-known
secret formats: ``sk-…``, ``ghp_…``, ``AKIA…``, JWTs) from :mod:`audit.recognizers`;
CREDIT_CARD, US_SSN and IP_ADDRESS from presidio's predefined recognizers;
SENSITIVE_WORD from the caller's word list. Names and places need NER and are not
detected. Text served to agents from raw turns also passes :mod:`audit.floor`.

Things this module deliberately works around (see ``shared/FACTS.md``):

* ``\\b`` does not separate a Chinese character from a digit in Python regexes,
  so our patterns use explicit digit/ASCII look-arounds instead.
* presidio's context words need spaCy tokens; with no NLP engine we match
  context words in a character window around the hit instead
  (:class:`_WindowContextEnhancer`), which also works for Chinese words.
* presidio does not de-duplicate overlapping results of different entity
  types; :func:`analyze` resolves overlaps itself.
* Business text is full of numbers: digit runs that continue an ASCII token
  ("BX-20260224-0117"), or follow an identifier label ("订单号", "order #",
  "checksum"), are not taken for cards or phone numbers.
"""

from __future__ import annotations

import os

# tldextract (imported by presidio's email and URL recognizers) tries to download the public
# suffix list at first use unless this is set: keep it offline.
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")

import re  # noqa: E402
import threading  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Iterable, Optional  # noqa: E402

from presidio_analyzer import AnalyzerEngine, RecognizerRegistry, RecognizerResult  # noqa: E402
from presidio_analyzer.nlp_engine import NoOpNlpEngine  # noqa: E402
from presidio_analyzer.predefined_recognizers import (  # noqa: E402
    CreditCardRecognizer,
    IpRecognizer,
    UsSsnRecognizer,
)

from .normalize import normalize  # noqa: E402
from .recognizers import (  # noqa: E402
    _CARD_CONTEXT,
    _PHONE_CONTEXT,
    _WindowContextEnhancer,
    _context_near,
    _custom_recognizers,
    _digits,
)
from .recognizers_kinds import ID_CONTEXT  # noqa: E402

__all__ = ["ENTITY_TYPES", "Hit", "analyze", "mask", "warm_up"]

_LANGUAGE = "en"

# Entity types analyze() can return. Order is the tie-breaker when two
# overlapping hits have the same score and length (earlier wins).
ENTITY_TYPES: tuple[str, ...] = (
    "CN_RESIDENT_ID",
    "NATIONAL_ID",
    "BANK_CARD",
    "CREDIT_CARD",
    "CN_MOBILE",
    "CN_LANDLINE",
    "PHONE_NUMBER",
    "EMAIL_ADDRESS",
    "CN_PASSPORT",
    "PASSPORT",
    "US_SSN",
    "IBAN_CODE",
    "IP_ADDRESS",
    "CN_ADDRESS",
    "EN_STREET_ADDRESS",
    "WECHAT_ID",
    "QQ_NUMBER",
    "LICENSE_PLATE",
    "CREDENTIAL",
    "SENSITIVE_WORD",
)
_TYPE_RANK = {name: i for i, name in enumerate(ENTITY_TYPES)}


@dataclass(frozen=True)
class Hit:
    """One detected span: ``text[start:end]`` is of ``entity_type``.

    ``start``/``end`` are Python string (code point) offsets into the analysed
    text; ``score`` is presidio's confidence in [0, 1].
    """

    entity_type: str
    start: int
    end: int
    score: float


# --------------------------------------------------------------------------
# presidio's predefined recognizers that work without NLP, lightly adapted
# --------------------------------------------------------------------------

_VERSION_BEFORE = re.compile(r"(?:\bv|version|ver\.?|版本)\s*[:=]?\s*$", re.IGNORECASE)


class _IpRecognizer(IpRecognizer):
    """IpRecognizer that ignores dotted version numbers ("v1.0.0.1", "版本 10.2.0.3")."""

    def analyze(self, text, entities, nlp_artifacts=None, regex_flags=None):
        return [
            r for r in super().analyze(text, entities, nlp_artifacts, regex_flags)
            if not _VERSION_BEFORE.search(text[max(0, r.start - 12) : r.start])
        ]


class _CreditCardRecognizer(CreditCardRecognizer):
    """presidio's card recognizer minus numbers starting with 1.

    Its pattern accepts a leading 1 (UATP cards, rare) so 16-17 digit
    microsecond timestamps and ids pass one time in ten on Luhn alone.
    """

    def invalidate_result(self, pattern_text: str) -> Optional[bool]:
        return pattern_text.lstrip().startswith("1") or None


_SSN_PLACEHOLDERS = ("078051120", "123456789", "987654320")


class _UsSsnRecognizer(UsSsnRecognizer):
    """presidio's SSN recognizer that keeps its published sample numbers next to an SSN word.

    presidio drops 078-05-1120 (the "Woolworth" SSN) and 123-45-6789 as
    placeholders; a user writing "My SSN is 078-05-1120" still means an SSN,
    so those are kept when "ssn"/"social security"/"社会安全号" is near.
    """

    CONTEXT = ["social", "security", "ssn", "ssns", "ssid", "社会安全号", "社会保障号", "社保号"]

    def __init__(self) -> None:
        super().__init__(context=self.CONTEXT, supported_language=_LANGUAGE)

    def invalidate_result(self, pattern_text: str) -> bool:
        if _digits(pattern_text) in _SSN_PLACEHOLDERS:
            return False
        return super().invalidate_result(pattern_text)

    def analyze(self, text, entities, nlp_artifacts=None, regex_flags=None):
        return [
            r for r in super().analyze(text, entities, nlp_artifacts, regex_flags)
            if _digits(text[r.start : r.end]) not in _SSN_PLACEHOLDERS
            or _context_near(text, r.start, r.end, self.CONTEXT)
        ]


def _predefined_recognizers() -> list:
    # Left out on purpose: NER recognizers (PERSON, LOCATION...: need a model),
    # DateRecognizer/UrlRecognizer/UuidRecognizer/MacAddressRecognizer/
    # CryptoRecognizer (not personal data, noisy on logs), UsBankRecognizer/
    # UsLicenseRecognizer/NhsRecognizer (weak digit runs that hit order numbers),
    # UsPassportRecognizer (PASSPORT above covers 9-digit numbers near "passport"),
    # EmailRecognizer (its \w-based pattern swallows Chinese text glued to an
    # address, "邮箱zhang@example.com"; EMAIL_ADDRESS above replaces it),
    # IbanRecognizer and PhoneRecognizer (replaced by audit.recognizers_kinds' IBAN_CODE, which
    # takes a wrong check next to "IBAN", and audit.recognizers_phone, which also finds numbers
    # python-phonenumbers deems possible but not valid).
    return [
        _CreditCardRecognizer(supported_language=_LANGUAGE),
        _UsSsnRecognizer(),
        _IpRecognizer(supported_language=_LANGUAGE),
    ]


# --------------------------------------------------------------------------
# Engine (built once, lazily, thread-safe)
# --------------------------------------------------------------------------

_engine: Optional[AnalyzerEngine] = None
_engine_lock = threading.Lock()


def _build_engine() -> AnalyzerEngine:
    nlp_engine = NoOpNlpEngine(models=[{"lang_code": _LANGUAGE, "model_name": "none"}])
    nlp_engine.load()
    registry = RecognizerRegistry(supported_languages=[_LANGUAGE])
    for recognizer in _custom_recognizers() + _predefined_recognizers():
        registry.add_recognizer(recognizer)
    return AnalyzerEngine(
        registry=registry,
        nlp_engine=nlp_engine,
        supported_languages=[_LANGUAGE],
        context_aware_enhancer=_WindowContextEnhancer(),
    )


def _get_engine() -> AnalyzerEngine:
    global _engine
    if _engine is None:
        with _engine_lock:
            if _engine is None:
                _engine = _build_engine()
    return _engine


def warm_up() -> None:
    """Build the analyzer engine now (otherwise the first analyze() does it).

    Takes a few hundred milliseconds; safe to call repeatedly and from several
    threads. Raises whatever presidio raises if it cannot be set up.
    """
    _get_engine()


# --------------------------------------------------------------------------
# Post-processing
# --------------------------------------------------------------------------

# Labels of business identifiers: a number right after one is an order, ticket
# or trace number even when it passes a card checksum or looks like a mobile
# number - unless a card/phone word is near as well.
_IDENTIFIER_LABELS = (
    "订单", "单号", "编号", "流水", "运单", "工单", "交易号", "批次", "发票", "序列号",
    "order", "invoice", "ticket", "trace", "txn", "tracking", "sku", "serial", "ref", "reference",
    "request id", "id=", "id:", "id ", "no.", "#", "checksum", "hash", "crc", "md5", "sha1", "sha256",
)
_LABEL_SENSITIVE_TYPES = {
    "BANK_CARD": _CARD_CONTEXT,
    "CREDIT_CARD": _CARD_CONTEXT,
    "CN_MOBILE": _PHONE_CONTEXT,
    "CN_LANDLINE": _PHONE_CONTEXT,
    "PHONE_NUMBER": _PHONE_CONTEXT,
    "CN_RESIDENT_ID": list(ID_CONTEXT),
}


def _is_labelled_identifier(text: str, result: RecognizerResult) -> bool:
    own_words = _LABEL_SENSITIVE_TYPES.get(result.entity_type)
    return bool(
        own_words is not None
        and _context_near(text, result.start, result.end, _IDENTIFIER_LABELS, 20, 0)
        and not _context_near(text, result.start, result.end, own_words)
    )


def _sensitive_word_hits(text: str, words: Iterable[str]) -> list[Hit]:
    """Every case-insensitive occurrence of each word, overlapping ones merged."""
    spans = []
    for word in {w.strip() for w in words if w and w.strip()}:
        spans.extend(m.span() for m in re.finditer(re.escape(word), text, re.IGNORECASE))
    spans.sort()
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [Hit("SENSITIVE_WORD", start, end, 1.0) for start, end in merged]


# (winner, loser): when hits of these two types cover exactly the same span the
# first wins whatever the scores (python-phonenumbers also reads "078-05-1120"
# as a phone number, at a higher base score than presidio's SSN pattern).
# Likewise the Chinese mobile and landline patterns name a span python-phonenumbers also finds.
_SAME_SPAN_PRECEDENCE = {("US_SSN", "PHONE_NUMBER"), ("CN_MOBILE", "PHONE_NUMBER"), ("CN_LANDLINE", "PHONE_NUMBER")}


_CARD_TYPES = frozenset({"BANK_CARD", "CREDIT_CARD"})


def _resolve_overlaps(hits: Iterable[Hit]) -> list[Hit]:
    """Keep non-overlapping hits: higher score first, then the longer span.

    Exceptions: on an identical span, a type listed first in
    :data:`_SAME_SPAN_PRECEDENCE` beats the second (US_SSN over PHONE_NUMBER); a card number
    inside a longer card number is part of it (presidio's Luhn-valid 16 digits of a 19-digit
    card with a wrong check digit would leave the last three unmasked).
    """
    hits = list(hits)
    spans = {(h.start, h.end, h.entity_type) for h in hits}
    cards = [h for h in hits if h.entity_type in _CARD_TYPES]
    hits = [
        h for h in hits
        if not any((w, h.entity_type) in _SAME_SPAN_PRECEDENCE and (h.start, h.end, w) in spans
                   for w in ENTITY_TYPES)
        and not (h.entity_type in _CARD_TYPES
                 and any(c.start <= h.start and h.end <= c.end and c.end - c.start > h.end - h.start for c in cards))
    ]
    ranked = sorted(
        hits,
        key=lambda h: (-h.score, -(h.end - h.start), _TYPE_RANK.get(h.entity_type, 99), h.start),
    )
    kept: list[Hit] = []
    for hit in ranked:
        if all(hit.end <= k.start or hit.start >= k.end for k in kept):
            kept.append(hit)
    return sorted(kept, key=lambda h: (h.start, h.end))


# --------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------


def analyze(
    text: str,
    *,
    sensitive_words: Iterable[str] = (),
    score_threshold: float = 0.5,
) -> list[Hit]:
    """Find PII and sensitive words in ``text`` (Chinese, English or mixed).

    Inputs: ``text`` - any string; ``sensitive_words`` - words to flag wherever
    they occur (case-insensitive plain substring, also when glued to Chinese
    text; blank entries are ignored); ``score_threshold`` - minimum confidence
    in [0, 1] for PII hits (sensitive words always score 1.0).

    Output: non-overlapping :class:`Hit` s sorted by ``start``, offsets in
    characters of ``text``. Where hits of different types overlap, the higher
    score wins, then the longer span. Entity types are listed in
    :data:`ENTITY_TYPES`. Checksum-validated numbers (IDs, cards, IBANs) score
    1.0; pattern-only hits 0.55-0.9, plus 0.35 when a context word such as
    "手机"/"passport" is near. Takes ~1 ms for a chat message; the first call
    builds the engine (see :func:`warm_up`).

    Errors: ``TypeError`` if ``text`` is not a ``str``; ``ValueError`` if
    ``score_threshold`` is outside [0, 1].
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    if isinstance(sensitive_words, str):
        raise TypeError("sensitive_words must be an iterable of words, not a single str")
    if not 0.0 <= score_threshold <= 1.0:
        raise ValueError(f"score_threshold must be within [0, 1], got {score_threshold!r}")
    hits = _sensitive_word_hits(text, sensitive_words)
    if text.strip():
        # Matched on the normalised text (full-width and spelled-out digits, spelled-out e-mail
        # addresses: audit.normalize); every hit is mapped back onto the original characters.
        norm = normalize(text)
        results = _get_engine().analyze(
            text=norm.text, language=_LANGUAGE, score_threshold=score_threshold
        )
        for r in results:
            if r.score > 0 and r.end > r.start and not _is_labelled_identifier(norm.text, r):
                start, end = norm.span(r.start, r.end)
                hits.append(Hit(r.entity_type, start, end, round(float(r.score), 4)))
    return _resolve_overlaps(hits)


_MASK_CHAR = "*"
_KEEP_HEAD, _KEEP_TAIL = 3, 4
_KEEP_MIN_LEN = 11  # below this, showing 7 characters would reveal too much
_MASK_FULLY = frozenset({"CREDENTIAL"})


def mask(text: str, hits: list[Hit]) -> str:
    """Return ``text`` with every hit masked by ``*``, one per character.

    Hits of at least 11 characters keep their first 3 and last 4 characters
    (``13812345678`` -> ``138****5678``); shorter hits, and CREDENTIAL hits of
    any length (a partly shown secret is a hint), are masked entirely.
    Overlapping hits are fine (the union is masked). The result has the same
    length as ``text``.

    Errors: ``ValueError`` if a hit's offsets do not lie within ``text``.
    """
    chars = list(text)
    for hit in hits:
        if not 0 <= hit.start <= hit.end <= len(text):
            raise ValueError(f"hit {hit!r} is outside text of length {len(text)}")
        length = hit.end - hit.start
        if length >= _KEEP_MIN_LEN and hit.entity_type not in _MASK_FULLY:
            lo, hi = hit.start + _KEEP_HEAD, hit.end - _KEEP_TAIL
        else:
            lo, hi = hit.start, hit.end
        for i in range(lo, hi):
            chars[i] = _MASK_CHAR
    return "".join(chars)
