"""The sanitizer's own presidio recognizers for Chinese and English PII: checksums, context
windows, phone / card / ID / passport / address / e-mail patterns and credentials.

Pure library code (no Django), used by :mod:`audit.sanitizer`, which builds the engine and
resolves overlaps. See that module's docstring for the entity types and the workarounds.
"""

from __future__ import annotations

import os

# tldextract (imported by presidio) must stay offline: see audit.sanitizer.
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")

import re  # noqa: E402
from typing import Callable, Iterable, Optional, Sequence  # noqa: E402

from presidio_analyzer import EntityRecognizer, Pattern, PatternRecognizer, RecognizerResult  # noqa: E402
from presidio_analyzer.context_aware_enhancers import ContextAwareEnhancer  # noqa: E402

from .street_suffixes import USPS_NAMES, suffix_pattern  # noqa: E402

LANGUAGE = "en"  # every recognizer runs under one language code: pattern recognizers ignore it
_LANGUAGE = LANGUAGE

# --------------------------------------------------------------------------
# Checksums: python-stdnum (audit.recognizers_kinds), no hand-written ones
# --------------------------------------------------------------------------


def _digits(s: str) -> str:
    return "".join(ch for ch in s if ch.isdigit())


def _resident_id_ok(candidate: str) -> Optional[bool]:
    """GB 11643 check digit and birth date (``stdnum.cn.ric``); None for 15-digit ids."""
    from .recognizers_kinds import resident_id_ok

    return resident_id_ok(candidate)


def _luhn_ok(candidate: str) -> bool:
    """Luhn check (``stdnum.luhn``) over the digits of ``candidate`` (12-19 digits required)."""
    from .recognizers_kinds import luhn_ok

    return luhn_ok(candidate)


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

# ASCII-only look-arounds so an address glued to Chinese text is still found.
_EMAIL = (
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}@"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![A-Za-z0-9\-])"
)
_FILE_SUFFIXES = ("png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp")

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
# Estate + room with no road ("…南湖新村521室", "翠苑小区12幢1503室", "万科城5-2-301"), optionally
# after the city and district. A bare "12号" counts only after a residential estate word.
_CN_ESTATE_STRICT = r"(?:小区|花园|新村|公寓|家园|大厦|苑|花苑|雅苑|华庭|公馆)"
_CN_ESTATE_WIDE = (
    r"(?:小区|花园|新村|公寓|家园|大厦|苑|华庭|公馆|府|山庄|庄园|城|园|里|坊|湾|大楼|社区|绿洲|天地|名都|豪庭|国际)"
)
_CN_ROOM_TAIL = (
    r"(?<!\d)(?:\d{1,4}(?:号楼|栋|幢|座)\d{0,3}(?:单元)?\d{1,5}(?:室|号|户)?|\d{2,5}(?:室|户)"
    r"|\d{1,4}-\d{1,3}(?:-\d{1,5})?(?:室|号)?)(?!\d)"
)
_CN_ADDRESS_ESTATE = (
    r"(?:" + _CN_ADMIN + r")?(?:" + _HAN + r"{2,10}?" + _CN_ESTATE_WIDE + _CN_ROOM_TAIL
    + r"|" + _HAN + r"{2,10}?" + _CN_ESTATE_STRICT + r"\d{1,4}号(?!线)(?:" + _CN_UNIT + r"){0,3})"
)
# A home named by road and estate with no number, after a living word ("住南开区鞍山西道华苑小区", "家在
# 浦东张杨路金桥新村"): the road plus the residential estate is an address (blind 12, seen by stop 28).
_CN_ADDRESS_HOME = (
    r"(?<=住|家在|住在)(?:在)?(?:" + _CN_ADMIN + r")?" + _CN_ROAD + _HAN + r"{2,8}?" + _CN_ESTATE_STRICT
)
# Words that often precede an address but are not part of it ("寄到我家：…").
_ADDRESS_LEAD = set("我你他她们家住在到寄往是的为于址送发：:，,、 \t\n")
# Particles that never occur inside a road name: cut an address after the last
# one before its first digit ("门店在中山北路1088号" -> "中山北路1088号").
_ADDRESS_CUT = set("在到住是的为于往寄址：:，,、 \t\n")

_EN_UNIT = r"(?:Apt|Apartment|Suite|Ste|Unit|Floor|Fl|Room|Rm|Flat|Studio)\.?[ \t]*#?[ \t]*[A-Za-z0-9\-]+"
_EN_NAMES = r"(?:(?:[A-Z][A-Za-z'\-]*\.?|\d+(?:st|nd|rd|th))[ \t]+){1,4}"
# The suffix is any of the USPS list (audit.street_suffixes), whole word, with or without a stop.
_EN_SUFFIX = suffix_pattern() + r"(?![A-Za-z'\-])\.?(?:[ \t]+(?:NE|NW|SE|SW|N|S|E|W)\b)?"
_EN_STREET = (
    r"(?<![A-Za-z0-9_\-])\d{1,6}[A-Z]?(?:-\d{1,4})?[ \t]+"
    r"(?:(?:N|S|E|W|North|South|East|West)\.?[ \t]+)?"
    + _EN_NAMES + _EN_SUFFIX + r"(?:,?[ \t]+" + _EN_UNIT + r")?"
)
# British form with the flat first and no house number: "Flat 17, Janet Meadows".
_EN_FLAT_STREET = (
    r"(?<![A-Za-z0-9_\-])(?:Flat|Studio|Apartment|Unit)[ \t]+\d{1,4}[A-Za-z]?,?[ \t]+" + _EN_NAMES + _EN_SUFFIX
)

# Any form, when the user says it is their address: "New address is Flat 1204, Tower B, Sunrise Heights,
# Kalyan Shil Road, Dombivli East 421204" (blind 15: Indian tower-and-society addresses fit no street
# shape). The value runs to the end of the sentence and must hold a digit; an e-mail, IP, MAC or web
# address is another thing.
_EN_ADDRESS_SAID = (
    r"(?i:(?<!e-mail )(?<!email )(?<!\bip )(?<!\bmac )(?<!\bweb )(?<!\bmy ip )"
    r"\b(?:(?:new|home|current|postal|mailing|residential|delivery|my)[ \t]+)?address[ \t]*(?:is|:|-|–)[ \t]*)"
    r"(?=[^\n]{0,30}\d)[^\n]{8,160}?(?=\.[ \t]|\.?$|\n|[ \t]+(?:pls|please|thanks|can you|could you)\b)"
)


def _address_value(text: str, start: int, end: int) -> Optional[tuple[int, int]]:
    """The value of an "address is …" match, without its keyword (None when nothing is left)."""
    m = re.match(r"(?i)[^\n]*?address[ \t]*(?:is|:|-|–)[ \t]*", text[start:end])
    start = start + (m.end() if m else 0)
    while end > start and text[end - 1] in " ,;.":
        end -= 1
    return (start, end) if end - start >= 8 else None


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


_PLURAL_SUFFIX = re.compile(r"(?:" + "|".join(n for n in USPS_NAMES if n.endswith("s") and not n.endswith("ss")) + r")\.?$")
_STREET_WORDS = ("address", "live at", "lives at", "living at", "ship", "send", "mail", "moved to", "deliver", "post",
                 "地址", "住", "寄", "送到")


def _street_not_a_count(text: str, start: int, end: int) -> Optional[tuple[int, int]]:
    # "3 National Parks", "2 Blue Mountains": one digit before a plural suffix is a count,
    # unless an address word is near.
    number = re.match(r"\d+", text[start:end])
    core = re.sub(r",?[ \t]+(?:" + _EN_UNIT + r")$", "", text[start:end])
    if (number and len(number.group()) == 1 and _PLURAL_SUFFIX.search(core)
            and not _context_near(text, start, end, _STREET_WORDS, 40, 10)):
        return None
    return start, end


def _email_not_file(text: str, start: int, end: int) -> Optional[tuple[int, int]]:
    # "icon@2x.png" is a file name, not an address.
    return None if text[start:end].rsplit(".", 1)[-1].lower() in _FILE_SUFFIXES else (start, end)


# Credentials: the value after a password / PIN / code / token keyword, and secret
# formats that are recognisable on their own. Only the value is a hit, never the
# keyword ("我的密码是Abc123456" -> "Abc123456").
_CRED_KEY_SHORT = (  # values of 4+ characters: passwords, PINs, one-time codes
    r"password|passwd|passwort|passcode|pass\s?code|pwd|pin(?:\s?code)?|otp|one[\s\-]time\s(?:pass)?code"
    r"|verification\scode|security\scode|auth(?:entication)?\scode"
    # Spanish, Portuguese, French (blind 14: "el password es Norte#2026mx", "código de verificación: 583920")
    r"|contraseña|contrasena|clave|senha|mot\sde\spasse|c[óo]digo\sde\sverificaci[óo]n|c[óo]digo\sde\sverifica[çc][ãa]o"
    r"|code\sde\sv[ée]rification"
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
    r"(?:\s+(?:is|was|es|era|é|est|ist)(?:\s*[:：])?\s+|\s*(?:[:：=]|是|为|為|[改设]为|改成|设成)\s*|\s+"
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
# A one-time code said a few words after "code": "the portal just sent me a code to link my account,
# it's 482913" (blind 15). Only 4-8 digits right after "it's / is / :", and never a zip, area, postal,
# country, error or status code.
_CODE_SAID = re.compile(
    r"(?i)(?<!zip )(?<!area )(?<!postal )(?<!post )(?<!country )(?<!error )(?<!status )(?<!dial )(?<!tax )(?<!product )"
    r"\b(?:code|otp|pin)\b[^\d\n.?!]{0,40}?\b(?:it'?s|it is|is|was|:)[ \t]*(?P<value>\d{4,8})(?![\d,.]\d)\b")
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
        for m in _CODE_SAID.finditer(text):
            spans.setdefault(m.span("value"), 0.85)
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
    """Every recognizer of our own: numbers and identifiers (ids, cards, passports, IBANs, WeChat,
    QQ, plates: :mod:`audit.recognizers_kinds`; international phones:
    :mod:`audit.recognizers_phone`), then contacts and addresses."""
    from .recognizers_kinds import kind_recognizers
    from .recognizers_phone import IntlPhoneRecognizer

    return _number_recognizers() + kind_recognizers() + [IntlPhoneRecognizer()] + _contact_recognizers()


def _number_recognizers() -> list[EntityRecognizer]:
    """Chinese mobile numbers and credentials."""
    return [
        _Recognizer(
            "CN_MOBILE",
            [Pattern("cn_mobile", _MOBILE, 0.7)],
            _PHONE_CONTEXT,
        ),
        _CredentialRecognizer(),
    ]


def _contact_recognizers() -> list[EntityRecognizer]:
    """E-mail addresses, phones written in groups next to a phone word, landlines and street addresses."""
    return [
        _Recognizer(
            "EMAIL_ADDRESS",
            [Pattern("email_ascii_lookaround", _EMAIL, 0.9)],
            ["邮箱", "邮件", "email", "e-mail", "mail"],
            adjust=_email_not_file,
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
             Pattern("cn_address_building", _CN_ADDRESS_BUILDING, 0.55),
             Pattern("cn_address_estate", _CN_ADDRESS_ESTATE, 0.6),
             Pattern("cn_address_home", _CN_ADDRESS_HOME, 0.6)],
            ["地址", "住址", "寄到", "家住", "收货", "address"],
            adjust=_trim_address,
        ),
        _Recognizer(
            "EN_STREET_ADDRESS",
            [Pattern("en_street", _EN_STREET, 0.6), Pattern("en_flat_street", _EN_FLAT_STREET, 0.6),
             Pattern("eu_street", _EU_STREET, 0.6)],
            ["address", "live at", "lives at", "ship to", "mail to"],
            adjust=_street_not_a_count,
            flags=_FLAGS_CASED,
        ),
        _Recognizer(
            "EN_STREET_ADDRESS",
            [Pattern("en_address_said", _EN_ADDRESS_SAID, 0.6)],
            adjust=_address_value,
            flags=_FLAGS_CASED,
            name="bizmemory_en_address_said",
        ),
    ]
