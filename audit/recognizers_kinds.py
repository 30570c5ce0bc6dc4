"""Recognizers by kind of identifier, with checksums from python-stdnum and one rule for context:
a context word is enough for a number of the right shape, whatever its check digit.

People mistype their own numbers, and a number someone calls their ID card or card number is
one whatever its checksum says (issue 14: wrong check digits right after "身份证号" reached
memory). So each :class:`Rule` scores a match

* 1.0 when its checksum holds (``stdnum.cn.ric`` check digit and birth date, ``stdnum.luhn``,
  ``stdnum.iban``);
* ``context_score`` when a context word is near, whatever the checksum;
* ``shape_score`` when neither, but the value still has the identifier's full shape (an
  18-digit number with a province code and a birth date; a 16- or 19-digit number with a card
  issuer's prefix, or grouped 4-4-4-4) — 0 drops it;
* ``score`` when the kind has no checksum at all (plates, ids after a keyword).

Kinds: CN_RESIDENT_ID, BANK_CARD, CN_PASSPORT, PASSPORT, IBAN_CODE, WECHAT_ID, QQ_NUMBER,
LICENSE_PLATE. python-stdnum has no passport module (passport numbers carry no check digit of
their own; the ICAO check digits live in the machine-readable zone): passports are recognised by
shape next to a passport word, and Chinese ones (``E``/``G`` + 8 digits) by shape alone.

Pure library code (no Django); matched against :func:`audit.normalize.normalize` d text.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from presidio_analyzer import EntityRecognizer, RecognizerResult
from stdnum import iban as std_iban
from stdnum import luhn as std_luhn
from stdnum.cn import ric as std_ric
from stdnum.exceptions import ValidationError

from .recognizers import _NUM_AFTER, _NUM_BEFORE, LANGUAGE, _context_near, _digits

# ------------------------------------------------------------------ checksums (python-stdnum)


def resident_id_ok(candidate: str) -> Optional[bool]:
    """GB 11643 check digit (``stdnum.cn.ric``) and a real birth date for 18-character ids; None
    (no checksum) for old 15-digit ones; False for anything else."""
    s = re.sub(r"[ \-]", "", candidate).upper()
    if len(s) == 15 and s.isdigit():
        return None
    if len(s) != 18 or not s[:17].isdigit():
        return False
    try:
        return std_ric.calc_check_digit(s) == s[17] and bool(std_ric.get_birth_date(s))
    except ValidationError:
        return False


# Province-level codes that open a resident id (GB/T 2260): 11-15 north, 21-23 north-east,
# 31-37 east, 41-46 central-south, 50-54 south-west, 61-65 north-west, 71 Taiwan, 81-82 HK/Macao.
_PROVINCES = frozenset(
    "11 12 13 14 15 21 22 23 31 32 33 34 35 36 37 41 42 43 44 45 46 50 51 52 53 54 61 62 63 64 65 71 81 82".split()
)


def resident_id_shaped(candidate: str) -> bool:
    """An 18-character id with a province code and a possible birth date (1900 to this year),
    whatever its check digit."""
    s = re.sub(r"[ \-]", "", candidate).upper()
    if len(s) != 18 or not s[:17].isdigit() or s[:2] not in _PROVINCES:
        return False
    try:
        born = dt.date(int(s[6:10]), int(s[10:12]), int(s[12:14]))
    except ValueError:
        return False
    return dt.date(1900, 1, 1) <= born <= dt.date.today()


def luhn_ok(candidate: str) -> bool:
    """Luhn check (``stdnum.luhn``) over the digits of ``candidate``; 12-19 digits required."""
    digits = _digits(candidate)
    return 12 <= len(digits) <= 19 and std_luhn.is_valid(digits)


# Issuer prefixes seen in China and abroad: Visa 4, Mastercard 51-55, UnionPay 62, Discover /
# UnionPay 60/65, JCB 35, Amex 34/37, Diners 36/38/30.
_CARD_PREFIX = re.compile(r"4|5[1-5]|6[025]|3[04-8]")


def card_shaped(candidate: str) -> bool:
    """A card number whatever its check digit: 16 or 19 digits with an issuer's prefix, or any
    16-19 digits written in groups of four."""
    digits = _digits(candidate)
    if not _CARD_PREFIX.match(digits):
        return False
    grouped = bool(re.fullmatch(r"\d{4}([ \-])\d{4}\1\d{4}\1\d{4}(?:\1?\d{1,3})?", candidate.strip()))
    return len(digits) in (16, 19) or grouped and 16 <= len(digits) <= 19


def iban_ok(candidate: str) -> bool:
    """ISO 13616 check (``stdnum.iban``: country format, length and mod-97 check digits)."""
    return std_iban.is_valid(candidate)


def iban_shaped(candidate: str) -> bool:
    """Right country and length for an IBAN, whatever its check digits."""
    compact = re.sub(r"\s", "", candidate).upper()
    fixed = compact[:2] + "00" + compact[4:]
    try:
        std_iban.validate(compact[:2] + std_iban.calc_check_digits(fixed) + compact[4:])
    except ValidationError:
        return False
    return True


# ------------------------------------------------------------------ rules


@dataclass(frozen=True)
class Rule:
    """One pattern of a kind and how its matches are scored (see the module docstring).

    ``group`` is the regex group holding the value (0: the whole match); ``need_context``
    drops a match without a context word; ``accept`` may veto a match (gets the match object).
    """

    name: str
    pattern: re.Pattern
    score: float = 0.0
    check: Optional[Callable[[str], Optional[bool]]] = None
    context: Sequence[str] = ()
    context_score: float = 0.9
    shape: Optional[Callable[[str], bool]] = None
    shape_score: float = 0.0
    need_context: bool = False
    window: tuple[int, int] = (25, 10)
    group: int | str = 0
    accept: Optional[Callable[[re.Match], bool]] = None

    def score_match(self, text: str, m: re.Match) -> Optional[float]:
        value = m.group(self.group)
        start, end = m.span(self.group)
        if self.accept is not None and not self.accept(m):
            return None
        verdict = self.check(value) if self.check else None
        if verdict is True:
            return 1.0
        near = bool(self.context) and _context_near(text, start, end, self.context, *self.window) is not None
        if near:
            return max(self.context_score, self.score)
        if self.need_context:
            return None
        if verdict is False:
            ok = self.shape is not None and self.shape(value)
            return self.shape_score if ok and self.shape_score > 0 else None
        return self.score or None


class RuleRecognizer(EntityRecognizer):
    """A presidio recognizer for one entity type from :class:`Rule` s (scores computed here, so it
    declares no presidio context words)."""

    def __init__(self, entity: str, rules: Sequence[Rule]) -> None:
        self.entity = entity
        self.rules = tuple(rules)
        super().__init__(supported_entities=[entity], name=f"bizmemory_{entity.lower()}_rules",
                         supported_language=LANGUAGE)

    def load(self) -> None:  # regular expressions only
        pass

    def analyze(self, text, entities, nlp_artifacts=None):
        if entities and self.entity not in entities:
            return []
        best: dict[tuple[int, int], float] = {}
        for rule in self.rules:
            for m in rule.pattern.finditer(text):
                score = rule.score_match(text, m)
                if score:
                    span = m.span(rule.group)
                    best[span] = max(best.get(span, 0.0), score)
        meta = {RecognizerResult.RECOGNIZER_NAME_KEY: self.name, RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id}
        return [RecognizerResult(self.entity, s, e, sc, recognition_metadata=dict(meta)) for (s, e), sc in sorted(best.items())]


# ------------------------------------------------------------------ context words

ID_CONTEXT = ("身份证", "证件号", "公民身份", "身份号码", "身份证号", "证件", "id card", "identity", "resident id",
              "id number", "id no", "national id", "citizen id", "chinese id")
CARD_KEYWORDS = ("银行卡", "卡号", "借记卡", "信用卡", "储蓄卡", "工资卡", "bank card", "card number", "card no",
                 "card #", "card#", "debit card", "credit card", "my card", "the card")
CARD_WORDS = ("卡", "card", "cc", "visa", "mastercard", "amex", "maestro", "jcb", "unionpay", "银联")
PASSPORT_CONTEXT = ("护照", "passport", "旅行证件")
IBAN_CONTEXT = ("iban", "国际银行账号", "bank account", "account", "wire", "汇款", "账户", "账号")
PLATE_CONTEXT = ("车牌", "牌照", "车号", "plate", "licence", "license", "registration", "车")

F = re.IGNORECASE

# ------------------------------------------------------------------ patterns

_ID18 = re.compile(r"(?<![0-9A-Za-z_\-])[1-9]\d{5}[ ]?\d{8}[ ]?\d{3}[0-9Xx](?![0-9A-Za-z_])")
_ID15 = re.compile(r"(?<![0-9A-Za-z_\-])[1-9]\d{14}(?![0-9A-Za-z_])")
_CARD_CONTIGUOUS = re.compile(_NUM_BEFORE + r"[3-69]\d{15,18}" + _NUM_AFTER)
# Not the groups of a grouped IBAN ("DE89 3704 0044 …").
_CARD_GROUPED = re.compile(_NUM_BEFORE + r"(?<![A-Z]{2}\d\d )\d{4}([ \-])\d{4}\1\d{4}\1\d{4}(?:\1?\d{1,3})?" + _NUM_AFTER)
_CARD_AMEX = re.compile(_NUM_BEFORE + r"3[47]\d\d[ \-]\d{6}[ \-]\d{5}" + _NUM_AFTER)
# Only next to a card word: Mastercard's 2-series (it reads like "yymmdd…" order numbers) and
# 12-15 digit cards (Amex, Maestro, JCB-15); any 13-19 digits right next to an explicit card word.
_CARD_2_SERIES = re.compile(_NUM_BEFORE + r"2(?:22[1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)\d{12}" + _NUM_AFTER)
_CARD_SHORT = re.compile(_NUM_BEFORE + r"\d{12,15}" + _NUM_AFTER)
_CARD_ANY = re.compile(
    _NUM_BEFORE + r"(?:\d{13,19}|\d{4}([ \-])\d{4}\1\d{4}\1\d{1,4}(?:\1\d{1,3})?|\d{4}([ \-])\d{6}\2\d{4,5})" + _NUM_AFTER
)
_CN_PASSPORT = re.compile(r"(?<![0-9A-Za-z])(?:[EG]\d{8}|E[A-HJ-NP-Z]\d{7})(?![0-9A-Za-z])")
_CN_PASSPORT_OTHER = re.compile(r"(?<![0-9A-Za-z])[DSP]E?\d{7,8}(?![0-9A-Za-z])")
# Any 6-9 capital letters and digits with at least one digit, next to a passport word
# (German passports mix both: "C01X00T47", "CMYHW8XKW").
_PASSPORT_GENERIC = re.compile(r"(?<![0-9A-Za-z])(?=[A-Z]*\d)[A-Z0-9]{6,9}(?![0-9A-Za-z])")
_IBAN = re.compile(r"(?<![0-9A-Za-z])[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?(?![0-9A-Za-z])")

# WeChat ids: 6-20 letters, digits, "_" or "-", opening with a letter, right after a WeChat
# word. After an English word ("WeChat account") the id must hold a digit, "_" or "-" unless a
# joiner names it ("WeChat ID is", "wechat:"); after a Chinese one ("加我微信abc") any id shape.
_WECHAT = re.compile(
    r"(?P<kw>微信|薇信|v信|威信|(?<![A-Za-z])(?:vx|wx|wechat|weixin)(?![A-Za-z]))"
    r"(?P<join>\s*(?:号码?|账号|id|ID)?\s*(?:是|为|:|：|is|-)?)\s*"
    r"(?P<v>[A-Za-z][A-Za-z0-9_\-]{5,19})(?![A-Za-z0-9_\-])",
    F,
)


def _wechat_accept(m: re.Match) -> bool:
    kw, join, value = m.group("kw").lower(), m.group("join").strip().lower(), m.group("v")
    if not kw.isascii() or re.search(r"[\d_\-]", value):
        return True
    if re.search(r"[\u4e00-\u9fff]", m.string):  # "vx abcdef 加一下": Chinese text around an ASCII keyword
        return True
    return join not in ("", "is", "-")


_QQ = re.compile(
    r"(?<![A-Za-z])(?:qq|扣扣|企鹅号)(?![A-Za-z])(?:\s*(?:号码?|账号|number|no\.?))?\s*(?:是|为|:|：|is)?\s*"
    r"(?P<v>[1-9]\d{4,11})(?!\d)",
    F,
)
_PLATE_PROVINCES = "京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼使领"
_PLATE = re.compile(
    "[" + _PLATE_PROVINCES + r"][A-HJ-NP-Z][·•・ ]?"
    r"(?:[DF][A-HJ-NP-Z0-9]\d{4}|\d{5}[DF]|[A-HJ-NP-Z0-9]{4}[A-HJ-NP-Z0-9挂学警港澳])(?![A-Za-z0-9])"
)


def _plate_accept(m: re.Match) -> bool:
    tail = re.sub(r"^.[A-Z][·•・ ]?", "", m.group())
    return any(ch.isdigit() for ch in tail)  # never five letters: "沪ABCDE" is a word, not a plate


# Foreign plates only next to a plate word: 5-8 letters and digits, both present ("7ABC123",
# "AB12 CDE", "ABC-1234").
_PLATE_FOREIGN = re.compile(r"(?<![0-9A-Za-z])(?=[A-Z0-9 \-]*\d)(?=[A-Z0-9 \-]*[A-Z])[A-Z0-9]{2,4}[ \-]?[A-Z0-9]{2,4}(?![0-9A-Za-z])")


# Identity numbers of other places, only next to an identity word (no check digit: a wrong one
# is still the user's id — blind set 8's "my HKID is Z683365(5)" has one): Hong Kong HKID
# (A123456(7)), Taiwan (A123456789), Singapore NRIC/FIN (S1234567D), UK National Insurance
# (QQ 12 34 56 C), India Aadhaar (1234 5678 9012).
_FOREIGN_ID = re.compile(
    r"(?<![A-Za-z0-9])(?:[A-Z]{1,2}\d{6}\s?\(?[0-9A]\)?|[A-Z][12]\d{8}|[STFGM]\d{7}[A-Z]"
    r"|[A-CEGHJ-PR-TW-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]|\d{4}[ -]?\d{4}[ -]?\d{4})(?![A-Za-z0-9])"
)
FOREIGN_ID_CONTEXT = ID_CONTEXT + ("hkid", "香港身份证", "身份證", "identity card", "nric", "fin number", "ic number", "ic no",
                                   "national insurance", "nino", "ni number", "aadhaar", "aadhar", "統一編號", "身分證")


def kind_recognizers() -> list[EntityRecognizer]:
    """The recognizers of this module: ids, cards, passports, IBANs, WeChat, QQ, plates."""
    return [
        RuleRecognizer("CN_RESIDENT_ID", [
            Rule("cn_id_18", _ID18, check=resident_id_ok, context=ID_CONTEXT, context_score=0.95,
                 shape=resident_id_shaped, shape_score=0.6, window=(30, 10)),
            Rule("cn_id_15", _ID15, check=resident_id_ok, context=ID_CONTEXT, context_score=0.9,
                 need_context=True, window=(30, 10)),
        ]),
        RuleRecognizer("NATIONAL_ID", [
            Rule("foreign_id_with_context", _FOREIGN_ID, context=FOREIGN_ID_CONTEXT, context_score=0.85,
                 need_context=True, window=(30, 10)),
        ]),
        RuleRecognizer("BANK_CARD", [
            Rule("card_contiguous", _CARD_CONTIGUOUS, check=luhn_ok, context=CARD_WORDS + CARD_KEYWORDS,
                 shape=card_shaped, shape_score=0.55),
            Rule("card_grouped", _CARD_GROUPED, check=luhn_ok, context=CARD_WORDS + CARD_KEYWORDS,
                 shape=card_shaped, shape_score=0.6),
            Rule("card_amex", _CARD_AMEX, check=luhn_ok, context=CARD_WORDS + CARD_KEYWORDS, need_context=True),
            Rule("card_2_series", _CARD_2_SERIES, check=None, context=CARD_WORDS, context_score=0.85, need_context=True),
            Rule("card_short", _CARD_SHORT, check=None, context=CARD_WORDS, context_score=0.85, need_context=True,
                 window=(25, 10)),
            Rule("card_any_with_keyword", _CARD_ANY, context=CARD_KEYWORDS, context_score=0.85, need_context=True),
        ]),
        RuleRecognizer("CN_PASSPORT", [
            Rule("cn_passport_e_g", _CN_PASSPORT, score=0.6, context=PASSPORT_CONTEXT + ("证件", "签证", "visa"),
                 context_score=0.95),
            Rule("cn_passport_d_s_p", _CN_PASSPORT_OTHER, context=PASSPORT_CONTEXT + ("证件", "签证", "visa"),
                 context_score=0.9, need_context=True),
        ]),
        RuleRecognizer("PASSPORT", [
            Rule("passport_with_context", _PASSPORT_GENERIC, context=PASSPORT_CONTEXT, context_score=0.85,
                 need_context=True, window=(30, 10)),
        ]),
        RuleRecognizer("IBAN_CODE", [
            Rule("iban", _IBAN, check=iban_ok, context=IBAN_CONTEXT, context_score=0.9, shape=iban_shaped,
                 shape_score=0.0, window=(30, 10)),
        ]),
        RuleRecognizer("WECHAT_ID", [
            Rule("wechat_after_keyword", _WECHAT, score=0.85, group="v", accept=_wechat_accept),
        ]),
        RuleRecognizer("QQ_NUMBER", [Rule("qq_after_keyword", _QQ, score=0.85, group="v")]),
        RuleRecognizer("LICENSE_PLATE", [
            Rule("cn_plate", _PLATE, score=0.8, context=PLATE_CONTEXT, context_score=0.95, accept=_plate_accept),
            Rule("plate_with_context", _PLATE_FOREIGN, context=("licence plate", "license plate", "plate number",
                                                                "number plate", "registration", "车牌", "plate is"),
                 context_score=0.8, need_context=True, window=(30, 5)),
        ]),
    ]
