"""PII and sensitive-word detection for Chinese and English text, fully offline.

Built on presidio-analyzer's pattern recognizers with a ``NoOpNlpEngine``: no
spaCy model is loaded, so everything here is regular expressions plus checksums.
All recognizers run under the single language code ``"en"`` because pattern
recognizers do not care about the language and our text mixes both.

This module imports no Django code and can be used before ``django.setup()``.
Importing it imports presidio (about 1.5 s, mostly spaCy); building the engine
is lazy and happens on the first :func:`analyze` or on :func:`warm_up`.

Entity types (see :data:`ENTITY_TYPES`): CN_MOBILE, CN_LANDLINE,
CN_RESIDENT_ID (check digit), BANK_CARD (Luhn; or any 13-19 digit run right
next to a card word such as "银行卡"/"card number"), CN_PASSPORT, PASSPORT (only
next to "passport"/"护照"), EMAIL_ADDRESS, CN_ADDRESS, EN_STREET_ADDRESS,
PHONE_NUMBER and CREDENTIAL (the value after "password"/"密码"/"验证码"/"token"...,
and well-known secret formats: ``sk-…``, ``ghp_…``, ``AKIA…``, JWTs) from our own
patterns; CREDIT_CARD, US_SSN, IBAN_CODE, IP_ADDRESS and PHONE_NUMBER from
presidio's predefined recognizers; SENSITIVE_WORD from the caller's word list.
Names and places need NER and are not detected.

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
from typing import Callable, Iterable, Optional, Sequence  # noqa: E402

from presidio_analyzer import (  # noqa: E402
    AnalyzerEngine,
    EntityRecognizer,
    Pattern,
    PatternRecognizer,
    RecognizerRegistry,
    RecognizerResult,
)
from presidio_analyzer.context_aware_enhancers import ContextAwareEnhancer  # noqa: E402
from presidio_analyzer.nlp_engine import NoOpNlpEngine  # noqa: E402
from presidio_analyzer.predefined_recognizers import (  # noqa: E402
    CreditCardRecognizer,
    IbanRecognizer,
    IpRecognizer,
    PhoneRecognizer,
    UsSsnRecognizer,
)

__all__ = ["ENTITY_TYPES", "Hit", "analyze", "mask", "warm_up"]

_LANGUAGE = "en"

# Entity types analyze() can return. Order is the tie-breaker when two
# overlapping hits have the same score and length (earlier wins).
ENTITY_TYPES: tuple[str, ...] = (
    "CN_RESIDENT_ID",
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
# Checksums
# --------------------------------------------------------------------------

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def _digits(s: str) -> str:
    return "".join(ch for ch in s if ch.isdigit())


def _resident_id_ok(candidate: str) -> Optional[bool]:
    """GB 11643 check digit for 18-character IDs; None (no checksum) for 15-digit ones."""
    s = re.sub(r"[ \-]", "", candidate).upper()
    if len(s) == 15:
        return None
    if len(s) != 18 or not s[:17].isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(s[:17], _ID_WEIGHTS))
    return _ID_CHECK[total % 11] == s[17]


def _luhn_ok(candidate: str) -> bool:
    """Luhn check over the digits of ``candidate`` (12-19 digits required)."""
    digits = _digits(candidate)
    if not 12 <= len(digits) <= 19:
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


# --------------------------------------------------------------------------
# Context words, matched in a character window (works for Chinese)
# --------------------------------------------------------------------------

_CONTEXT_BOOST = 0.35  # presidio's default context_similarity_factor
_MIN_SCORE_WITH_CONTEXT = 0.4  # presidio's default
_WINDOW_BEFORE = 40  # characters before a hit searched for context words
_WINDOW_AFTER = 15


def _context_near(
    text: str,
    start: int,
    end: int,
    words: Iterable[str],
    before: int = _WINDOW_BEFORE,
    after: int = _WINDOW_AFTER,
) -> Optional[str]:
    """Return the first context word found near ``text[start:end]``, else None.

    Case-insensitive substring match; an ASCII word must not be glued to a
    preceding ASCII letter ("tel" does not match inside "hotel"), a Chinese
    word may be glued to anything.
    """
    window = (text[max(0, start - before) : start] + " " + text[end : end + after]).lower()
    for word in words:
        w = word.lower()
        if not w:
            continue
        if w.isascii():
            if re.search(r"(?<![a-z])" + re.escape(w), window):
                return word
        elif w in window:
            return word
    return None


class _WindowContextEnhancer(ContextAwareEnhancer):
    """presidio context enhancement without NLP tokens.

    For each result whose recognizer declares ``context`` words, raise the
    score by 0.35 (to at least 0.4, at most 1.0) when one of those words occurs
    within 40 characters before or 15 after the hit - presidio's own factors,
    applied to raw characters instead of lemmas.
    """

    def __init__(self) -> None:
        super().__init__(
            context_similarity_factor=_CONTEXT_BOOST,
            min_score_with_context_similarity=_MIN_SCORE_WITH_CONTEXT,
            context_prefix_count=0,
            context_suffix_count=0,
        )

    def enhance_using_context(self, text, raw_results, nlp_artifacts, recognizers, context=None):
        by_id = {rec.id: rec for rec in recognizers}
        key = RecognizerResult.RECOGNIZER_IDENTIFIER_KEY
        for result in raw_results:
            meta = result.recognition_metadata or {}
            rec = by_id.get(meta.get(key))
            words = list(getattr(rec, "context", None) or []) + list(context or [])
            if not words or meta.get(RecognizerResult.IS_SCORE_ENHANCED_BY_CONTEXT_KEY):
                continue
            if _context_near(text, result.start, result.end, words):
                result.score = min(
                    1.0, max(result.score + self.context_similarity_factor,
                             self.min_score_with_context_similarity)
                )
                meta[RecognizerResult.IS_SCORE_ENHANCED_BY_CONTEXT_KEY] = True
        return raw_results


# --------------------------------------------------------------------------
# Custom recognizers
# --------------------------------------------------------------------------

# Default presidio flags, and the same without IGNORECASE for patterns that
# rely on capital letters.
# (presidio compiles with the `regex` package, whose flag values equal re's.)
_FLAGS = re.DOTALL | re.MULTILINE | re.IGNORECASE
_FLAGS_CASED = re.DOTALL | re.MULTILINE

# A number must not continue an ASCII token: "BX-20260224-0117", "v1.2",
# "id_139..." are identifiers, not PII. Chinese characters may touch it.
_NUM_BEFORE = r"(?<![0-9A-Za-z_.\-])"
_NUM_AFTER = r"(?![0-9A-Za-z_]|[\-.]\d)"
_HAN = r"[\u4e00-\u9fff]"

_CARD_CONTEXT = ["卡号", "银行卡", "工资卡", "信用卡", "储蓄卡", "借记卡", "card", "account"]
_PHONE_CONTEXT = ["手机", "电话", "联系", "致电", "微信", "mobile", "phone", "cell", "tel", "call",
                  "whatsapp"]

SpanAdjuster = Callable[[str, int, int], Optional[tuple[int, int]]]


class _Recognizer(PatternRecognizer):
    """A PatternRecognizer with optional checksum, context-only patterns and span fix-up.

    ``context_required`` maps pattern names to the words one of which must be
    near a match of that pattern (empty: the recognizer's own context words);
    without one the match is dropped whatever its score. ``adjust`` may move or
    drop a span after matching (returns None to drop).
    """

    def __init__(
        self,
        entity: str,
        patterns: Sequence[Pattern],
        context: Sequence[str] = (),
        *,
        validator: Optional[Callable[[str], Optional[bool]]] = None,
        context_required: Optional[dict[str, Sequence[str]]] = None,
        context_window: tuple[int, int] = (_WINDOW_BEFORE, _WINDOW_AFTER),
        adjust: Optional[SpanAdjuster] = None,
        flags: int = _FLAGS,
        name: Optional[str] = None,
    ) -> None:
        super().__init__(
            supported_entity=entity,
            name=name or f"bizmemory_{entity.lower()}",
            supported_language=_LANGUAGE,
            patterns=list(patterns),
            context=list(context) or None,
            global_regex_flags=flags,
        )
        self._validator = validator
        self._context_required = dict(context_required or {})
        self._context_window = context_window
        self._adjust = adjust

    def validate_result(self, pattern_text: str) -> Optional[bool]:
        return self._validator(pattern_text) if self._validator else None

    def analyze(self, text, entities, nlp_artifacts=None, regex_flags=None):
        kept = []
        for result in super().analyze(text, entities, nlp_artifacts, regex_flags):
            explanation = result.analysis_explanation
            pattern_name = explanation.pattern_name if explanation else None
            if pattern_name in self._context_required and not _context_near(
                text,
                result.start,
                result.end,
                self._context_required[pattern_name] or self.context or (),
                *self._context_window,
            ):
                continue
            if self._adjust:
                span = self._adjust(text, result.start, result.end)
                if span is None:
                    continue
                result.start, result.end = span
            kept.append(result)
        return kept


_MOBILE = (
    _NUM_BEFORE
    + r"(?:(?:\+|00)86[ \-]?|\(\+?86\)[ \-]?)?1[3-9]\d(?:[ \-]?\d{4}){2}"
    + _NUM_AFTER
)

_ID18 = (
    r"(?<![0-9A-Za-z_\-])[1-9]\d{5}[ ]?(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])"
    r"(?:0[1-9]|[12]\d|3[01])[ ]?\d{3}[0-9Xx](?![0-9A-Za-z_])"
)
_ID15 = (
    r"(?<![0-9A-Za-z_\-])[1-9]\d{5}\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}"
    r"(?![0-9A-Za-z_])"
)

# Issuer prefixes of cards seen in China and abroad: 3 (Amex/JCB), 4 (Visa),
# 5 (Mastercard), 6 (UnionPay/Discover), 9 (old domestic debit). Excluding 1,
# 2, 7, 8 removes most order numbers ("2026...") and snowflake ids ("17...").
_CARD_CONTIGUOUS = _NUM_BEFORE + r"[3-69]\d{15,18}" + _NUM_AFTER
_CARD_GROUPED = _NUM_BEFORE + r"[3-69]\d{3}([ \-])\d{4}\1\d{4}\1\d{4}(?:\1\d{1,3})?" + _NUM_AFTER
# Only next to a card word: Mastercard's 2-series (2221-2720, which also reads
# like "yymmdd…" order numbers) and 12-15 digit cards (Amex, Maestro, JCB-15).
_CARD_2_SERIES = _NUM_BEFORE + r"2(?:22[1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)\d{12}" + _NUM_AFTER
_CARD_SHORT = _NUM_BEFORE + r"(?:\d{12,15}|3[47]\d\d[ \-]\d{6}[ \-]\d{5})" + _NUM_AFTER
_CARD_WORDS = ("卡", "card", "cc", "visa", "mastercard", "amex", "maestro", "jcb")
# Any 13-19 digit run, contiguous or in groups of four (Amex 4-6-5), counted as a
# card without the Luhn check - but only right next to an explicit card word
# (_CARD_KEYWORDS): people mistype their own card numbers, and a number someone
# calls their card number is one whatever its checksum says.
_CARD_ANY = (
    _NUM_BEFORE
    + r"(?:\d{13,19}|\d{4}([ \-])\d{4}\1\d{4}\1\d{1,4}(?:\1\d{1,3})?|\d{4}([ \-])\d{6}\2\d{4,5})"
    + _NUM_AFTER
)
_CARD_KEYWORDS = (
    "银行卡", "卡号", "借记卡", "信用卡", "储蓄卡", "工资卡", "bank card", "card number", "card no",
    "card #", "card#", "debit card", "credit card",
)

# ASCII-only look-arounds so an address glued to Chinese text is still found.
_EMAIL = (
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}@"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![A-Za-z0-9\-])"
)
_FILE_SUFFIXES = ("png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp")

_CN_PASSPORT = r"(?<![0-9A-Za-z])(?:[EG]\d{8}|E[A-HJ-NP-Z]\d{7})(?![0-9A-Za-z])"
_CN_PASSPORT_OTHER = r"(?<![0-9A-Za-z])(?:[DSP]E?\d{7,8})(?![0-9A-Za-z])"
_PASSPORT_GENERIC = r"(?<![0-9A-Za-z])[A-Z]{0,2}\d{6,9}(?![0-9A-Za-z])"

_AREA = r"(?:10|2\d|[3-9]\d{2})"  # area code without its leading 0
_SUBSCRIBER = r"[2-9]\d{2,3}[ \-]?\d{4}"
_EXTENSION = r"(?:(?:-|转|ext\.?\s?)\d{1,5})?"
_LANDLINE_SEPARATED = (
    _NUM_BEFORE
    + r"(?:(?:\+|00)86[ \-]?" + _AREA + r"[ \-]|\(0" + _AREA + r"\)[ \-]?|0" + _AREA + r"[ \-])"
    + _SUBSCRIBER + _EXTENSION + _NUM_AFTER
)
_LANDLINE_CONTIGUOUS = _NUM_BEFORE + r"0" + _AREA + r"[2-9]\d{6,7}" + _NUM_AFTER

# Chinese addresses: [province][city][district] road+number [building/unit/room].
_CN_ADMIN = (
    r"(?:" + _HAN + r"{2,3}省|" + _HAN + r"{2,8}自治区|" + _HAN + r"{2}特别行政区)?"
    r"(?:" + _HAN + r"{2,4}(?:市|州|盟))?"
    r"(?:" + _HAN + r"{1,4}(?:区|县|旗)){0,2}"
)
_CN_ROAD = (
    r"(?:" + _HAN + r"|[0-9A-Za-z]){2,10}?"
    r"(?:大道|大街|路|街|巷|弄|胡同|(?<![知说问频通轨味报难])道)"
)
_CN_NUMBER = r"\d{1,5}(?:-\d{1,4})?号(?!线)(?:院)?"
_CN_UNIT = r"(?:\d{1,4}|[A-Za-z])(?:号楼|栋|幢|座|单元|层|楼|室|户)"
_CN_UNITS = r"(?:" + _HAN + r"{0,8}?" + _CN_UNIT + r"){0,5}(?:(?<=单元|栋|幢|座|号楼)\d{2,5})?"
_CN_ADDRESS_FULL = (
    r"(?:" + _HAN + r"{2,3}省|" + _HAN + r"{2,8}自治区|" + _HAN + r"{2}特别行政区|"
    + _HAN + r"{2,4}(?:市|州|盟)|"
    + _HAN + r"{1,4}(?:区|县|旗))" + _CN_ADMIN + _CN_ROAD + _CN_NUMBER + _CN_UNITS
)
_CN_ADDRESS_ROAD = _CN_ROAD + _CN_NUMBER + _CN_UNITS
_CN_ESTATE = _HAN + r"{2,8}?(?:小区|花园|苑|公寓|大厦|家园|新村|公馆|府)"
_CN_ADDRESS_BUILDING = (
    r"(?:" + _CN_ESTATE + r")?(?<!\d)(?:\d{1,4}(?:号楼|栋|幢|座)\d{1,3}单元\d{1,5}(?:室|号|户)?"
    r"|\d{1,3}单元\d{1,5}(?:室|号|户)|\d{1,4}(?:号楼|栋|幢)\d{2,5}(?:室|户))"
)
# Words that often precede an address but are not part of it ("寄到我家：…").
_ADDRESS_LEAD = set("我你他她们家住在到寄往是的为于址送发：:，,、 \t\n")
# Particles that never occur inside a road name: cut an address after the last
# one before its first digit ("门店在中山北路1088号" -> "中山北路1088号").
_ADDRESS_CUT = set("在到住是的为于往寄址：:，,、 \t\n")

_EN_STREET = (
    r"(?<![\w\-])\d{1,6}[A-Z]?(?:-\d{1,4})?[ \t]+"
    r"(?:(?:N|S|E|W|North|South|East|West)\.?[ \t]+)?"
    r"(?:(?:[A-Z][A-Za-z'\-]*\.?|\d+(?:st|nd|rd|th))[ \t]+){1,4}"
    r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|"
    r"Place|Pl|Terrace|Parkway|Pkwy|Highway|Hwy|Circle|Cir|Square|Sq|Crescent|Alley|"
    r"Trail|Plaza|Row|Close|Grove|Gardens)\b\.?(?:[ \t]+(?:NE|NW|SE|SW|N|S|E|W)\b)?"
    r"(?:,?[ \t]+(?:Apt|Apartment|Suite|Ste|Unit|Floor|Fl|Room|Rm)\.?[ \t]*#?[ \t]*[A-Za-z0-9\-]+)?"
)

# Continental European form, name first and number after: "Feldstrasse 42",
# "Kiannonkatu 98", "Rue de Tanger 29", "ul. Zamkowa 33", "Via Roma 5".
_EU_STREET = (
    r"(?<![\w\-])(?:"
    r"[A-ZÀ-Þ][\w'\-]*(?:strasse|straße|gasse|weg|platz|allee|katu|tie|vej|vegur|gade|gata|gatan|"
    r"vägen|laan|straat|steeg|utca|ulica)"
    r"|(?:Rue|Avenue|Via|Viale|Piazza|Calle|Avenida|Paseo|Rua|Praça|ul\.|Ul\.)"
    r"(?:[ \t]+(?:[A-ZÀ-Þ][\w'.\-]*|de|del|di|da|la|le|du|des|do|dos))"
    r"{1,4})[ \t]+\d{1,5}[a-z]?(?![\w\-])"
    r"(?:,?[ \t]+(?:Apt|Apartment|Suite|Unit|Floor)\.?[ \t]*#?[ \t]*[A-Za-z0-9\-]+)?"
)

# Digit groups written like a phone number, counted only right after a phone word.
_PHONE_GROUPED = (
    r"(?<![0-9A-Za-z_+\-.])(?:\+\d{1,3}[ \-]?)?(?:\(\d{1,4}\)[ \-]?)?\d{2,4}(?:[ \-.]\d{2,4}){1,4}"
    r"(?:x\d{1,5})?(?![0-9A-Za-z_\-]|\.\d)"
)
_DATE_LIKE = re.compile(r"\d{4}[\-./]\d{1,2}[\-./]\d{1,2}|\d{1,2}[\-./]\d{1,2}[\-./]\d{4}")


def _phone_digits_ok(text: str, start: int, end: int) -> Optional[tuple[int, int]]:
    value = text[start:end]
    if _DATE_LIKE.fullmatch(value) or not 7 <= len(_digits(value.split("x")[0])) <= 15:
        return None
    return start, end


def _trim_address(text: str, start: int, end: int) -> Optional[tuple[int, int]]:
    first_digit = next((i for i in range(start, end) if text[i].isdigit()), end)
    for i in range(first_digit - 1, start - 1, -1):
        if text[i] in _ADDRESS_CUT:
            start = i + 1
            break
    while start < end and text[start] in _ADDRESS_LEAD:
        start += 1
    return (start, end) if end - start >= 4 else None


def _email_not_file(text: str, start: int, end: int) -> Optional[tuple[int, int]]:
    # "icon@2x.png" is a file name, not an address.
    return None if text[start:end].rsplit(".", 1)[-1].lower() in _FILE_SUFFIXES else (start, end)


# Credentials: the value after a password / PIN / code / token keyword, and secret
# formats that are recognisable on their own. Only the value is a hit, never the
# keyword ("我的密码是Abc123456" -> "Abc123456").
_CRED_KEY_SHORT = (  # values of 4+ characters: passwords, PINs, one-time codes
    r"password|passwd|passwort|passcode|pass\s?code|pwd|pin(?:\s?code)?|otp|one[\s\-]time\s(?:pass)?code"
    r"|verification\scode|security\scode|auth(?:entication)?\scode"
    r"|支付密码|登录密码|取款密码|密码|口令|验证码|校验码|动态码|安全码|PIN码"
)
_CRED_KEY_LONG = (  # values of 8+ characters: keys and tokens
    r"api[\s_\-]?key|api[\s_\-]?secret|secret(?:[\s_\-]?key)?|access[\s_\-]?key(?:[\s_\-]?id)?"
    r"|client[\s_\-]?secret|private[\s_\-]?key|(?:access|auth|api|bearer|refresh|session)?[\s_\-]?token|bearer"
    r"|密钥|秘钥|令牌"
)
# Between keyword and value: "is", "was", ":", "=", "是", "为", or just a space
# (a value glued to a Chinese keyword, "验证码123456", is fine too).
_CRED_JOIN = (
    r"(?:\s+(?:is|was)(?:\s*[:：])?\s+|\s*(?:[:：=]|是|为|為|[改设]为|改成|设成)\s*|\s+"
    r"|(?<=[\u4e00-\u9fff]))"
)
_CRED_VALUE = r"(?P<value>[\x21-\x7e]+)"
_CRED_KEYWORD_RE = re.compile(
    r"(?<![A-Za-z])(?:(?P<short>" + _CRED_KEY_SHORT + r")|(?P<long>" + _CRED_KEY_LONG + r"))"
    r"(?![A-Za-z])" + _CRED_JOIN + _CRED_VALUE,
    re.IGNORECASE,
)
_CRED_FORMATS = re.compile(
    r"(?<![A-Za-z0-9_\-])(?:"
    r"sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}"  # OpenAI / Anthropic style keys
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"  # GitHub tokens
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"  # AWS access key ids
    r"|AIza[0-9A-Za-z_\-]{35}"  # Google API keys
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}"  # Slack tokens
    r"|eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*"  # JWTs
    r")(?![A-Za-z0-9_\-])"
)
_CRED_TRAILING = ".,;:)]}>'\"，。；：）"
_CRED_SYMBOLS = set("!#$%&*+-/<=>?@^_~|")
# A match inside a URL ("…/image.jpg?token=eyJ…") is a signed link someone shared,
# not a secret they typed: those are left alone.
_URL_BEFORE = re.compile(r"(?:https?|ftp)://[^\s\u4e00-\u9fff]*$", re.IGNORECASE)


def _inside_url(text: str, start: int) -> bool:
    return bool(_URL_BEFORE.search(text, max(0, start - 2048), start))


def _secret_like(value: str, min_len: int) -> bool:
    """Does ``value`` look like a password/PIN/token rather than a word ("policy", "too")?

    It must have ``min_len`` characters or more and contain a digit, a symbol, or
    a capital letter after its first character ("hunter2", "Abc123456", "x#Yz").
    """
    if len(value) < min_len or value.lower().startswith(("http://", "https://")):
        return False
    return (
        any(ch.isdigit() for ch in value)
        or any(ch in _CRED_SYMBOLS for ch in value)
        or any(ch.isupper() for ch in value[1:]) and any(ch.islower() for ch in value)
    )


class _CredentialRecognizer(EntityRecognizer):
    """CREDENTIAL: secrets after a keyword (zh + en) and self-evident secret formats.

    ``analyze(text, entities, nlp_artifacts)`` returns presidio
    :class:`RecognizerResult` s whose span is the secret value only: 0.85 for a
    value after a keyword (passwords, PINs, one-time codes: 4+ characters; keys
    and tokens: 8+; the value must contain a digit, symbol or inner capital, so
    "password policy requires…" or "the token bucket…" are not hits), 0.9 for a
    known format anywhere (``sk-…``, ``ghp_…``, ``AKIA…``, ``AIza…``, ``xox…-``,
    JWT ``eyJ….eyJ….``). Matches inside a URL (signed links) are skipped.
    """

    def __init__(self) -> None:
        super().__init__(
            supported_entities=["CREDENTIAL"],
            name="bizmemory_credential",
            supported_language=_LANGUAGE,
        )

    def load(self) -> None:  # nothing to load: regular expressions only
        pass

    def analyze(self, text, entities, nlp_artifacts=None):
        if entities and "CREDENTIAL" not in entities:
            return []
        spans: dict[tuple[int, int], float] = {}
        for m in _CRED_KEYWORD_RE.finditer(text):
            start, end = m.span("value")
            if _inside_url(text, m.start()):
                continue
            while end > start and text[end - 1] in _CRED_TRAILING:
                end -= 1
            if _secret_like(text[start:end], 4 if m.group("short") else 8):
                spans[(start, end)] = 0.85
        for m in _CRED_FORMATS.finditer(text):
            if not _inside_url(text, m.start()):
                spans[m.span()] = 0.9
        return [
            RecognizerResult(
                "CREDENTIAL", start, end, score,
                recognition_metadata={
                    RecognizerResult.RECOGNIZER_NAME_KEY: self.name,
                    RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
                },
            )
            for (start, end), score in sorted(spans.items())
        ]


def _custom_recognizers() -> list[EntityRecognizer]:
    return [
        _Recognizer(
            "CN_MOBILE",
            [Pattern("cn_mobile", _MOBILE, 0.7)],
            _PHONE_CONTEXT,
        ),
        _Recognizer(
            "CN_RESIDENT_ID",
            [Pattern("cn_id_18", _ID18, 0.5), Pattern("cn_id_15", _ID15, 0.3)],
            ["身份证", "证件号", "公民身份", "id card", "identity", "resident id"],
            validator=_resident_id_ok,
        ),
        _Recognizer(
            "BANK_CARD",
            [Pattern("card_contiguous", _CARD_CONTIGUOUS, 0.5),
             Pattern("card_grouped", _CARD_GROUPED, 0.5),
             Pattern("card_2_series", _CARD_2_SERIES, 0.5),
             Pattern("card_short", _CARD_SHORT, 0.5)],
            _CARD_CONTEXT,
            validator=_luhn_ok,
            context_required={"card_2_series": _CARD_WORDS, "card_short": _CARD_WORDS},
            context_window=(25, 10),
        ),
        _Recognizer(
            "BANK_CARD",
            [Pattern("card_any_with_keyword", _CARD_ANY, 0.6)],
            _CARD_CONTEXT,
            context_required={"card_any_with_keyword": _CARD_KEYWORDS},
            context_window=(25, 10),
            name="bizmemory_bank_card_keyword",
        ),
        _CredentialRecognizer(),
        _Recognizer(
            "EMAIL_ADDRESS",
            [Pattern("email_ascii_lookaround", _EMAIL, 0.9)],
            ["邮箱", "邮件", "email", "e-mail", "mail"],
            adjust=_email_not_file,
        ),
        _Recognizer(
            "CN_PASSPORT",
            [Pattern("cn_passport_e_g", _CN_PASSPORT, 0.6),
             Pattern("cn_passport_d_s_p", _CN_PASSPORT_OTHER, 0.3)],
            ["护照", "passport", "证件", "签证", "visa"],
            context_required={"cn_passport_d_s_p": ()},
            context_window=(25, 10),
        ),
        _Recognizer(
            "PASSPORT",
            [Pattern("passport_with_context", _PASSPORT_GENERIC, 0.3)],
            ["护照", "passport"],
            context_required={"passport_with_context": ()},
            context_window=(25, 10),
            flags=_FLAGS_CASED,
        ),
        _Recognizer(
            "PHONE_NUMBER",
            [Pattern("phone_grouped_with_context", _PHONE_GROUPED, 0.3)],
            ["phone", "telephone", "tel", "mobile", "cell", "fax", "call", "电话", "手机", "传真"],
            context_required={"phone_grouped_with_context": ()},
            context_window=(25, 10),
            adjust=_phone_digits_ok,
            flags=_FLAGS_CASED,
        ),
        _Recognizer(
            "CN_LANDLINE",
            [Pattern("landline_separated", _LANDLINE_SEPARATED, 0.6),
             Pattern("landline_contiguous", _LANDLINE_CONTIGUOUS, 0.35)],
            _PHONE_CONTEXT + ["座机", "固话", "fax", "传真"],
        ),
        _Recognizer(
            "CN_ADDRESS",
            [Pattern("cn_address_admin_road", _CN_ADDRESS_FULL, 0.85),
             Pattern("cn_address_road", _CN_ADDRESS_ROAD, 0.6),
             Pattern("cn_address_building", _CN_ADDRESS_BUILDING, 0.55)],
            ["地址", "住址", "寄到", "家住", "收货", "address"],
            adjust=_trim_address,
        ),
        _Recognizer(
            "EN_STREET_ADDRESS",
            [Pattern("en_street", _EN_STREET, 0.6), Pattern("eu_street", _EU_STREET, 0.6)],
            ["address", "live at", "lives at", "ship to", "mail to"],
            flags=_FLAGS_CASED,
        ),
    ]


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


_FORMATTED_PHONE = re.compile(
    r"\+\d[\d \-().]{6,}\d|\(?\d{2,5}\)?[ \-.]\d{2,4}[ \-.]\d{2,4}(?:[ \-.]\d{2,4})?"
)


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


_DOTTED_QUAD = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")


class _PhoneRecognizer(PhoneRecognizer):
    """python-phonenumbers matcher, trusted more when the number is written like one.

    A bare digit run that happens to be a valid number ("order 4155552671")
    keeps presidio's 0.4 and needs a context word to pass 0.5; one written with
    a "+" or grouped with separators ("905-674-3793", "07700 063 966") gets 0.6.
    "number" is dropped from the context words: it follows "order" as often as
    "phone".
    """

    CONTEXT = _PHONE_CONTEXT + ["fax", "传真"]

    def __init__(self) -> None:
        super().__init__(context=self.CONTEXT, supported_language=_LANGUAGE)

    def analyze(self, text, entities, nlp_artifacts=None):
        # Dotted quads are IP addresses, never phone numbers.
        results = [
            r for r in super().analyze(text, entities, nlp_artifacts)
            if not _DOTTED_QUAD.fullmatch(text[r.start : r.end])
        ]
        for r in results:
            if _FORMATTED_PHONE.fullmatch(text[r.start : r.end]):
                r.score = max(r.score, 0.6)
        return results


def _predefined_recognizers() -> list:
    # Left out on purpose: NER recognizers (PERSON, LOCATION...: need a model),
    # DateRecognizer/UrlRecognizer/UuidRecognizer/MacAddressRecognizer/
    # CryptoRecognizer (not personal data, noisy on logs), UsBankRecognizer/
    # UsLicenseRecognizer/NhsRecognizer (weak digit runs that hit order numbers),
    # UsPassportRecognizer (PASSPORT above covers 9-digit numbers near "passport"),
    # EmailRecognizer (its \w-based pattern swallows Chinese text glued to an
    # address, "邮箱zhang@example.com"; EMAIL_ADDRESS above replaces it).
    return [
        _CreditCardRecognizer(supported_language=_LANGUAGE),
        _UsSsnRecognizer(),
        IbanRecognizer(supported_language=_LANGUAGE),
        _IpRecognizer(supported_language=_LANGUAGE),
        _PhoneRecognizer(),
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
    "order", "invoice", "ticket", "trace", "txn", "tracking", "sku", "serial",
    "request id", "id=", "id:", "id ", "no.", "#", "checksum", "hash", "crc", "md5", "sha1", "sha256",
)
_LABEL_SENSITIVE_TYPES = {
    "BANK_CARD": _CARD_CONTEXT,
    "CREDIT_CARD": _CARD_CONTEXT,
    "CN_MOBILE": _PHONE_CONTEXT,
    "CN_LANDLINE": _PHONE_CONTEXT,
    "PHONE_NUMBER": _PHONE_CONTEXT,
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
_SAME_SPAN_PRECEDENCE = {("US_SSN", "PHONE_NUMBER")}


def _resolve_overlaps(hits: Iterable[Hit]) -> list[Hit]:
    """Keep non-overlapping hits: higher score first, then the longer span.

    Exception: on an identical span, a type listed first in
    :data:`_SAME_SPAN_PRECEDENCE` beats the second (US_SSN over PHONE_NUMBER).
    """
    hits = list(hits)
    spans = {(h.start, h.end, h.entity_type) for h in hits}
    hits = [
        h for h in hits
        if not any((w, h.entity_type) in _SAME_SPAN_PRECEDENCE and (h.start, h.end, w) in spans
                   for w in ENTITY_TYPES)
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
        results = _get_engine().analyze(
            text=text, language=_LANGUAGE, score_threshold=score_threshold
        )
        hits.extend(
            Hit(r.entity_type, r.start, r.end, round(float(r.score), 4))
            for r in results
            if r.score > 0 and r.end > r.start and not _is_labelled_identifier(text, r)
        )
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
