"""Text handling for the trained extractor: sentences, sub-clauses, tokens, token features.

A user turn is split into **sentences** (the unit the classifier reads, so a clause keeps its
context: "我是产品经理，想问下报销标准" stays one unit) and each sentence into **sub-clauses** at
commas (the unit the vetoes judge: the question in "I'm a PM, should I learn SQL?" vetoes only
its own part). Tokens are single CJK characters and Latin words / numbers, with character offsets,
so a predicted span maps back to the user's exact words. jieba supplies word boundaries for CJK
tokens as CRF features (Rasa's ``JiebaTokenizer`` + ``CRFEntityExtractor`` shape).
Pure Python + jieba; no Django.
"""
from __future__ import annotations

import functools
import logging
import re
from dataclasses import dataclass

from .. import extraction_lexicon as L

_CJK_CHAR = r"\u3400-\u9fff\uf900-\ufaff"
# Latin letters include the accented ones ("Keflavík", "São Paulo", "Zürich"): an ASCII-only class cut
# such names at the accent ("Keflav" stored as a company, blind set 8).
_LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
_TOKEN = re.compile(
    rf"[{_CJK_CHAR}]|[{_LATIN}][{_LATIN}0-9+#&'’.\-]*[{_LATIN}0-9+#]|[{_LATIN}]|\d+(?:[.,:]\d+)*|[^\s{_CJK_CHAR}{_LATIN}0-9]"
)
# Sentence ends: CJK/Latin terminal punctuation, new lines; in CJK text a space between two CJK
# characters also ends a clause (voice-input style "俺是做用户增长的 在一家电商公司").
_SENT_END = re.compile(rf"[。！？!?；;…\n]+|(?<=[a-z0-9)\]\"'”])\.(?=\s+|$)|(?<=[{_CJK_CHAR}])\s+(?=[{_CJK_CHAR}])")
_SUB_END = re.compile(r"[，,、：:]|(?:\s+-\s+)|\s+(?:but|and then|so|because|though)\s+", re.I)
_CJK_RE = re.compile(rf"[{_CJK_CHAR}]")


@dataclass(frozen=True)
class Span:
    """A character range ``[start, end)`` of the message."""

    start: int
    end: int


def sentences(text: str) -> list[Span]:
    """Split ``text`` into sentence spans (character offsets into ``text``), dropping empty ones.
    Input: one user message (str). Output: list of :class:`Span` in order. Never raises."""
    out, pos = [], 0
    for m in _SENT_END.finditer(text):
        _add(out, text, pos, m.end())
        pos = m.end()
    _add(out, text, pos, len(text))
    return out


def with_next_sentence(text: str, sentence: Span) -> str:
    """The text of ``sentence`` and of the sentence after it in ``text`` (one space between), for cues
    that may follow the value: "… a flat white with oat milk? That's the only coffee I drink."."""
    after = next((x for x in sentences(text) if x.start >= sentence.end), None)
    return text[sentence.start:sentence.end] + " " + (text[after.start:after.end] if after else "")


# A turn this short is one utterance: a standing wish's cue may sit anywhere in it ("以后回我别老是您您您的
# 看的累 直接说就行", where the value is two sentences after the cue; blind 15).
SHORT_TURN = 100


def around_sentence(text: str, sentence: Span) -> str:
    """The text a cue for the value in ``sentence`` may sit in: the whole of a short turn (at most
    :data:`SHORT_TURN` characters), else the sentences before, at and after ``sentence`` ("Bullet points
    work best for me, … And skip the pleasantries": blind 15). Input: a turn and one of its sentence
    spans. Output: str. Never raises."""
    if len(text) <= SHORT_TURN:
        return text
    spans = sentences(text)
    before = next((x for x in reversed(spans) if x.end <= sentence.start), None)
    return (text[before.start:before.end] + " " if before else "") + with_next_sentence(text, sentence)


def sub_clauses(text: str, span: Span) -> list[Span]:
    """Split one sentence ``span`` of ``text`` at commas / colons / clause conjunctions."""
    out, pos = [], span.start
    for m in _SUB_END.finditer(text, span.start, span.end):
        _add(out, text, pos, m.end())
        pos = m.end()
    _add(out, text, pos, span.end)
    return out or [span]


def clause_at(text: str, sentence: Span, pos: int) -> Span:
    """The sub-clause of ``sentence`` (:func:`sub_clauses`) that holds character offset ``pos`` of
    ``text``; the whole sentence when none does."""
    return next((c for c in sub_clauses(text, sentence) if c.start <= pos < c.end), sentence)


def _add(out: list, text: str, a: int, b: int) -> None:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    if b > a:
        out.append(Span(a, b))


def tokens(text: str, span: Span | None = None) -> list[tuple[str, int, int]]:
    """Tokens of ``text`` (or of ``span`` within it) as ``(token, start, end)`` with offsets into
    ``text``: one token per CJK character, per Latin word (``C++``, ``Node.js``), per number,
    per punctuation mark."""
    a, b = (span.start, span.end) if span else (0, len(text))
    return [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text, a, b)]


def is_cjk(s: str) -> bool:
    """True when ``s`` holds at least one CJK character."""
    return bool(_CJK_RE.search(s))


_jieba = None


def _jieba_cut(s: str) -> list[str]:
    global _jieba
    if _jieba is None:
        import jieba

        jieba.setLogLevel(logging.WARNING)
        _jieba = jieba
    return list(_jieba.cut(s, HMM=True))


def jieba_positions(text: str, span: Span) -> dict[int, tuple[str, str]]:
    """For each CJK character offset in ``span``: ``(word, position)`` where ``word`` is the jieba
    word holding it and ``position`` is B/M/E/S (begin, middle, end, single)."""
    out: dict[int, tuple[str, str]] = {}
    s = text[span.start:span.end]
    if not is_cjk(s):
        return out
    pos = span.start
    for w in _jieba_cut(s):
        n = len(w)
        for i in range(n):
            out[pos + i] = (w, "S" if n == 1 else "B" if i == 0 else "E" if i == n - 1 else "M")
        pos += n
    return out


def _shape(t: str) -> str:
    if is_cjk(t):
        return "C"
    if t.isdigit():
        return "d4" if len(t) == 4 else "d"
    if t[:1].isupper():
        return "A" if t.isupper() else "Aa"
    if t[:1].isalpha():
        return "a"
    return "p"


FIRST_PERSON = re.compile(r"我|俺|咱|本人|(?<![A-Za-z])(?:I|(?i:i'm|i’m|i've|i’ve|i'd|i’d|i'll|me|my|mine|myself|im|ive|we|our|us))(?![A-Za-z])"
                          r"|(?<![A-Za-z'])i(?= [a-z])")  # non-native lowercase "i speak", "i am"
# English without its subject ("Finally finished the NN/g certification this month", "Got my PMP"):
# a sentence that opens on a past-tense verb speaks for the writer.
IMPLIED_FIRST_PERSON_EN = re.compile(
    r"^\W*(?:(?:finally|just|recently|also|so|and|btw|oh|well|actually|officially)\W+)*"
    r"(?:[a-z]+ed|got|passed|moved|bought|sold|won|became|began|started|joined|left|quit|married|finished|earned|made|took|had)\b",
    re.I)


def _alt(words) -> str:
    return "|".join(re.escape(w) for w in sorted({w for w in words if w}, key=len, reverse=True))


@functools.lru_cache(maxsize=1)
def gazetteers() -> list[tuple[str, re.Pattern]]:
    """Word lists of the rules (:mod:`consolidation.extraction_lexicon`) as CRF features — Rasa's
    regex / lookup-table features: cities, regions, titles, fields, industries, seniority words,
    code languages, tech skills, tools, family words, other people, hobbies."""
    def words(x):
        return x.split() if isinstance(x, str) else list(x)

    lists = {
        "city": words(L.ZH_CITIES) + list(L.WORLD_CITY_LIST) + words(L.ZH_PROVINCES) + list(L.EN_REGION_LIST),
        "region": words(L.ZH_REGIONS),
        "title": words(L.ZH_TITLE_SUFFIXES) + words(L.EN_TITLE_NOUNS) + list(L.EN_TITLE_PHRASES),
        "field": words(L.ZH_FIELDS) + words(L.EN_FIELDS),
        "industry": words(L.ZH_INDUSTRIES) + words(L.EN_INDUSTRIES),
        "senior": list(L.EN_SENIORITY) + list(L.ZH_SENIORITY),
        "code": words(L.CODE_LANGUAGES),
        "tech": list(L.TECH_SKILLS),
        "tool": list(L.TOOLS),
        "uni": words(L.ZH_UNIVERSITY_SHORT),
        "family": words(L.ZH_FAMILY) + words(L.EN_FAMILY),
        "others": words(L.ZH_OTHERS) + words(L.EN_OTHERS),
        "hobby": words(L.ZH_HOBBIES) + words(L.EN_HOBBIES),
    }
    out = []
    for name, ws in lists.items():
        latin = [w for w in ws if not is_cjk(w)]
        cjk = [w for w in ws if is_cjk(w)]
        parts = []
        if latin:
            parts.append(r"(?<![A-Za-z0-9])(?:" + _alt(latin) + r")(?![A-Za-z0-9])")
        if cjk:
            parts.append("(?:" + _alt(cjk) + ")")
        out.append((name, re.compile("|".join(parts), re.I)))
    return out


def _lexicon_marks(text: str, span: Span) -> dict[int, list[str]]:
    """Character offset → gazetteer marks (``lex=city:B`` / ``lex=city:I``) for matches in ``span``."""
    marks: dict[int, list[str]] = {}
    for name, rx in gazetteers():
        for m in rx.finditer(text, span.start, span.end):
            for k in range(m.start(), m.end()):
                marks.setdefault(k, []).append(f"lex={name}:{'B' if k == m.start() else 'I'}")
    return marks


def token_features(text: str, span: Span, toks: list[tuple[str, int, int]], labels=()) -> list[list[str]]:
    """CRF features per token of one sentence: the token and its shape, Latin affixes, the jieba
    word and position of CJK characters, neighbours ±2, bigrams, whether the sentence speaks in
    the first person, and the sentence's registry ``labels`` (gold in training, the classifier's
    in prediction: the tagger places values of the kinds the classifier found). Output: one list
    of string features per token (python-crfsuite's format)."""
    jp = jieba_positions(text, span)
    lex = _lexicon_marks(text, span)
    first = "fp" if FIRST_PERSON.search(text[span.start:span.end]) else "nofp"
    low = [t.lower() for t, _, _ in toks]
    feats = []
    n = len(toks)
    lab = ["L=" + lb for lb in sorted(labels)]
    for i, (t, a, _b) in enumerate(toks):
        w = low[i]
        f = ["b", "w=" + w, "sh=" + _shape(t), first, *lab]
        if not is_cjk(t) and len(w) > 2:
            f += ["p3=" + w[:3], "s3=" + w[-3:], "s2=" + w[-2:]]
        f += lex.get(a, ())
        if a in jp:
            word, pos = jp[a]
            f += ["jw=" + word, "jp=" + pos, "jwp=" + word + "|" + pos]
        for d in (-2, -1, 1, 2):
            j = i + d
            f.append(f"w{d}=" + (low[j] if 0 <= j < n else ("BOS" if j < 0 else "EOS")))
        f.append("bg-=" + (low[i - 1] if i else "BOS") + "|" + w)
        f.append("bg+=" + w + "|" + (low[i + 1] if i + 1 < n else "EOS"))
        if i == 0:
            f.append("BOS")
        if i == n - 1:
            f.append("EOS")
        feats.append(f)
    return feats

# A sub-clause that says a value no longer holds ("我现在不喝咖啡了", "I now hate hiking"): a change.
RETRACT_CUE = re.compile(
    r"不再|再也不|已经不|不怎么|没再|戒了|不[喝吃用做干住待在玩]\w{0,6}了|不是\w{0,8}了|退出了|离开了|辞了|换掉了|不喜欢了"
    r"|\bno longer\b|\bnot anymore\b|\bany ?more\b|\bquit\b|\bstopped\b|\bgave up\b|\bnow hate\b|\bditched\b",
    re.I,
)
# A plain negation or dislike ("I don't eat pork", "我不喝酒", "not a fan of golf"): for food and
# drink it is itself the preference (stored with its negation), for a hobby it takes the value
# back, for a profile value it says nothing to store.
NEGATION_CUE = re.compile(
    r"不(?:太|怎么)?(?:喜欢|爱|吃|喝|玩|碰)|讨厌|受不了|没兴趣|不感兴趣|太辛苦|不能|过敏|不是|并非|没在|不在"
    r"|\b(?:i'?m not|i am not|not an?|isn'?t|don'?t|do not|doesn'?t|never|not really|not a fan of|not into|dislike|hate|can'?t stand|can'?t get into|allergic)\b",
    re.I,
)
