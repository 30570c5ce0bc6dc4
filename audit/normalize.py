"""Text normalisation in front of PII matching, with offsets back to the original text.

People write the same number or address in many ways: full-width digits
(``１３８１２３４５６７８``), digits spelled out in English or Chinese ("one three eight",
"幺三八一二三四…"), e-mail addresses with ``at``/``dot`` spelled out ("zhang at example dot
com", "zhang[at]example[dot]com"). :func:`normalize` rewrites these into the plain ASCII
form the recognizers match and keeps, for every character of the result, the span of the
original text it came from, so a hit found in the normalised text masks the right
characters of the original (:meth:`Normalized.span`).

Pure Python, no Django, no presidio: :mod:`audit.sanitizer` and :mod:`audit.floor` use it.

Rewrites, in this order:

1. character folding: any Unicode decimal digit, and any non-ASCII letter or digit whose NFKC
   form is ASCII (full-width letters and digits, circled digits), becomes that ASCII text, and
   so do the full-width symbols found inside numbers and addresses (``＠ ． － ＋ （ ） ＿ ＃ ／``,
   the ideographic space); sentence punctuation (``，。；！？``) stays;
2. spelled-out digits: a run of English digit words ("zero", "oh", "one" … "nine",
   "double five", "triple eight"), possibly mixed with digit groups, holding four digits or
   more; and a run of Chinese digit characters (``零〇一二三四五六七八九幺`` and the formal
   ``壹贰叁肆伍陆柒捌玖``), possibly glued to ASCII digits, four characters or longer;
3. spelled-out e-mail addresses: ``[at]`` ``(at)`` ``{at}`` ``<at>`` ``艾特`` and ``[dot]``
   ``(dot)`` ``点``… in any address shape; a bare " at " / " dot " only with at least one
   spelled-out dot and a common top-level domain ("zhang at example dot com"), so prose such
   as "look at example.com" is left alone.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

__all__ = ["Normalized", "normalize"]


@dataclass(frozen=True)
class Normalized:
    """``text`` rewritten; ``starts[i]``/``ends[i]`` are the original span of ``text[i]``.

    ``original`` is the input. When nothing was rewritten ``text is original`` and the spans
    are the identity (``starts``/``ends`` empty, :meth:`span` returns its arguments).
    """

    original: str
    text: str
    starts: tuple[int, ...] = ()
    ends: tuple[int, ...] = ()

    @property
    def changed(self) -> bool:
        return self.text is not self.original

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span covering ``text[start:end]`` (``0 <= start <= end <= len(text)``)."""
        if not self.changed:
            return start, end
        if start >= end:
            pos = self.starts[start] if start < len(self.starts) else len(self.original)
            return pos, pos
        return self.starts[start], self.ends[end - 1]


# ------------------------------------------------------------------ rewriting helper

_Pieces = list[tuple[int, int, str]]  # (start, end, replacement) over the current text, sorted, disjoint


def _apply(norm: Normalized, pieces: _Pieces) -> Normalized:
    """Replace ``pieces`` of ``norm.text``; every replacement character maps to the original span
    of the text it replaces, every kept character keeps its own."""
    if not pieces:
        return norm
    text = norm.text
    if norm.changed:
        starts, ends = norm.starts, norm.ends
    else:
        starts = ends = None
    out: list[str] = []
    new_starts: list[int] = []
    new_ends: list[int] = []
    pos = 0
    for start, end, repl in pieces:
        for i in range(pos, start):
            out.append(text[i])
            new_starts.append(starts[i] if starts else i)
            new_ends.append(ends[i] if ends else i + 1)
        if repl:
            lo = starts[start] if starts else start
            hi = ends[end - 1] if ends else end
            out.extend(repl)
            new_starts.extend([lo] * len(repl))
            new_ends.extend([hi] * len(repl))
        pos = end
    for i in range(pos, len(text)):
        out.append(text[i])
        new_starts.append(starts[i] if starts else i)
        new_ends.append(ends[i] if ends else i + 1)
    return Normalized(norm.original, "".join(out), tuple(new_starts), tuple(new_ends))


# ------------------------------------------------------------------ 1. character folding


# Full-width punctuation that belongs inside a number or an address is folded; sentence
# punctuation (，。：；！？) is not: it ends a token, and patterns read it as Chinese text.
_FOLD_SYMBOLS = frozenset("＠﹫．－﹣＋﹢（）＿＃／　    ")


@functools.lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str | None:
    try:
        return str(unicodedata.decimal(ch))
    except ValueError:
        pass
    folded = unicodedata.normalize("NFKC", ch)
    if folded == ch or not folded.isascii() or not folded.isprintable():
        return None
    if folded.isalnum() or ch in _FOLD_SYMBOLS:
        return folded
    return None


def _fold(norm: Normalized) -> Normalized:
    text = norm.text
    if text.isascii():
        return norm
    pieces = [(i, i + 1, f) for i, ch in enumerate(text) if not ch.isascii() and (f := _fold_char(ch)) is not None]
    return _apply(norm, pieces)


# ------------------------------------------------------------------ 2. spelled-out digits

_EN_DIGITS = {
    "zero": "0", "oh": "0", "o": "0", "nought": "0", "one": "1", "two": "2", "three": "3", "four": "4",
    "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
}
_EN_REPEAT = {"double": 2, "triple": 3}
_EN_ITEM = (
    r"(?:(?:double|triple)[ \t]*-?[ \t]*)?(?:zero|nought|one|two|three|four|five|six|seven|eight|nine|oh|o)"
    r"(?![A-Za-z])|\d+(?!\d)"
)
_EN_SEP = r"(?:[ \t]*[,\-][ \t]*|[ \t]+)"
_EN_RUN = re.compile(
    r"(?<![A-Za-z0-9])(?:" + _EN_ITEM + r")(?:" + _EN_SEP + r"(?:" + _EN_ITEM + r"))+(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_EN_TOKEN = re.compile(r"(?:(double|triple)[ \t]*-?[ \t]*)?([A-Za-z]+)|(\d+)", re.IGNORECASE)
_EN_HINT = re.compile(r"(?<![A-Za-z])(?:zero|one|two|three|four|five|six|seven|eight|nine)(?![A-Za-z])", re.IGNORECASE)

_ZH_DIGITS = {
    "零": "0", "〇": "0", "○": "0", "一": "1", "幺": "1", "二": "2", "三": "3", "四": "4", "五": "5",
    "六": "6", "七": "7", "八": "8", "九": "9",
    "壹": "1", "贰": "2", "貳": "2", "叁": "3", "參": "3", "肆": "4", "伍": "5", "陆": "6", "陸": "6",
    "柒": "7", "捌": "8", "玖": "9",
}
_ZH_D = "[0-9" + "".join(_ZH_DIGITS) + "]"
_ZH_RUN = re.compile(_ZH_D + r"(?:[ \-]?" + _ZH_D + "){3,}")
_ZH_HINT = re.compile("[" + "".join(_ZH_DIGITS) + "]")


def _en_run_pieces(text: str, m: re.Match) -> _Pieces:
    """Pieces turning one English run into digits: digit words become digits, separators between
    two words vanish (a comma becomes a space), separators next to a digit group stay."""
    tokens = list(_EN_TOKEN.finditer(text, m.start(), m.end()))
    digits = 0
    words = 0
    pieces: _Pieces = []
    prev_word = False
    prev_end = m.start()
    for n, t in enumerate(tokens):
        if t.group(3):
            digits += len(t.group(3))
            is_word = False
        else:
            word = t.group(2).lower()
            if word not in _EN_DIGITS or (word in ("o", "oh") and n == 0):
                return []  # "o"/"oh" only inside a run, never opening it
            times = _EN_REPEAT.get((t.group(1) or "").lower(), 1)
            digits += times
            words += 1
            is_word = True
        if n and prev_word and is_word:
            sep = text[prev_end : t.start()]
            pieces.append((prev_end, t.start(), " " if "," in sep else ""))
        if is_word:
            pieces.append((t.start(), t.end(), _EN_DIGITS[t.group(2).lower()] * times))
        prev_word, prev_end = is_word, t.end()
    if words == 0 or digits < 4:
        return []
    return [p for p in pieces if p[0] < p[1]]


def _spelled_digits(norm: Normalized) -> Normalized:
    text = norm.text
    pieces: _Pieces = []
    if _EN_HINT.search(text):
        for m in _EN_RUN.finditer(text):
            pieces.extend(_en_run_pieces(text, m))
    if _ZH_HINT.search(text):
        for m in _ZH_RUN.finditer(text):
            pieces.extend((i, i + 1, _ZH_DIGITS[text[i]]) for i in range(m.start(), m.end()) if text[i] in _ZH_DIGITS)
    pieces.sort()
    return _apply(norm, pieces)


# ------------------------------------------------------------------ 3. spelled-out e-mail addresses

_AT_MARKED = r"[ \t]*(?:\[[ \t]*at[ \t]*\]|\([ \t]*at[ \t]*\)|\{[ \t]*at[ \t]*\}|<[ \t]*at[ \t]*>|艾特|@)[ \t]*"
_DOT_MARKED = r"[ \t]*(?:\[[ \t]*dot[ \t]*\]|\([ \t]*dot[ \t]*\)|\{[ \t]*dot[ \t]*\}|<[ \t]*dot[ \t]*>|点|點)[ \t]*"
_AT_PLAIN = r"[ \t]+at[ \t]+"
_DOT_PLAIN = r"[ \t]+dot[ \t]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9_\-]{0,62}[A-Za-z0-9])?"
_LOCAL = r"[A-Za-z0-9][A-Za-z0-9_%+\-]*"
_TLDS = (
    "com|net|org|edu|gov|mil|int|info|biz|io|ai|app|dev|co|me|tv|cc|xyz|top|site|online|tech|email|mail"
    "|cn|hk|tw|mo|sg|jp|kr|in|uk|de|fr|es|it|nl|se|no|dk|fi|ch|at|be|pl|pt|ru|br|mx|ar|ca|us|au|nz|eu|ie|za"
)
_DOT_ANY = "(?:" + _DOT_MARKED + "|" + _DOT_PLAIN + r"|\.)"
# Marked forms: any address shape with a marked at or a marked dot (or both).
_EMAIL_MARKED = re.compile(
    r"(?<![A-Za-z0-9._%+\-])" + _LOCAL + "(?:" + _DOT_ANY + _LOCAL + ")*"
    + "(?:" + _AT_MARKED + "|" + _AT_PLAIN + ")"
    + _LABEL + "(?:" + _DOT_ANY + _LABEL + ")*" + _DOT_ANY + r"[A-Za-z]{2,24}(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_PLAIN_TLD = re.compile(r"(?:" + _TLDS + r")", re.IGNORECASE)
_EMAIL_TOKEN = re.compile(
    "(?P<at>" + _AT_MARKED + "|" + _AT_PLAIN + ")|(?P<dot>" + _DOT_MARKED + "|" + _DOT_PLAIN + r"|\.)",
    re.IGNORECASE,
)
_EMAIL_HINT = re.compile(r"\bat\b|\[|\(|\{|<|艾特|@", re.IGNORECASE)


def _email_pieces(text: str, m: re.Match) -> _Pieces:
    span = m.group()
    marks = list(_EMAIL_TOKEN.finditer(text, m.start(), m.end()))
    ats = [t for t in marks if t.group("at")]
    if len(ats) != 1:
        return []
    at = ats[0]
    marked_at = at.group("at").strip().lower() != "at"
    spelled_dots = [t for t in marks if t.group("dot") and t.group("dot") != "."]
    if not marked_at:
        # A bare " at ": only with a spelled-out dot and a common top-level domain.
        tld = re.search(r"[A-Za-z]+$", span).group()
        if not spelled_dots or not _PLAIN_TLD.fullmatch(tld):
            return []
    elif at.group("at").strip() == "@" and not spelled_dots:
        return []  # a plain address: nothing to rewrite
    pieces = [(at.start(), at.end(), "@")]
    pieces.extend((t.start(), t.end(), ".") for t in spelled_dots)
    return sorted(pieces)


def _spelled_email(norm: Normalized) -> Normalized:
    text = norm.text
    if not _EMAIL_HINT.search(text):
        return norm
    pieces: _Pieces = []
    pos = 0
    while (m := _EMAIL_MARKED.search(text, pos)) is not None:
        found = _email_pieces(text, m)
        pieces.extend(found)
        # A rejected match may hide an address starting inside it ("me at zhang dot wei at …").
        pos = m.end() if found else m.start() + 1
    return _apply(norm, pieces)


# ------------------------------------------------------------------ public


def normalize(text: str) -> Normalized:
    """``text`` with full-width characters folded, spelled-out digits and spelled-out e-mail
    addresses rewritten (see the module docstring), and the original span of each character.

    Input: any ``str``. Output: a :class:`Normalized`; when nothing needed rewriting its ``text``
    is ``text`` itself. Costs a few regular-expression scans (tens of microseconds for a chat
    message). Errors: ``TypeError`` when ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    norm = Normalized(text, text)
    for step in (_fold, _spelled_digits, _spelled_email):
        norm = step(norm)
    return norm
