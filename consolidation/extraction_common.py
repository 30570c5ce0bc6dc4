"""Shared pieces of the rule extractor: :class:`Candidate`, injection detection, rendering of a
candidate's text from its key and value, number/month helpers, never-rules common to both
languages, and the skill / tool-preference matchers. Pure Python, no Django.
Used by :mod:`consolidation.extraction_zh`, :mod:`consolidation.extraction_en` and the public
entry point :mod:`consolidation.extraction_rules`.
"""
from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass

from profiles.taxonomy import key_label

from . import extraction_lexicon as L



@dataclass(frozen=True)
class Candidate:
    """One memory candidate. ``key`` is the attribute (latest value per key wins downstream);
    ``value`` is the tight span in the user's words; ``text`` is the rendered line built only
    from key and value; ``operation`` is ``"set"`` or ``"retract"``."""

    kind: str
    key: str
    value: str
    text: str
    lang: str
    fact_date: _dt.date | None = None
    operation: str = "set"
    precision: str | None = None  # "year" / "month" for facts: how precisely fact_date is known
    stage: str = ""  # what produced it: "rule:<rules version>" or "model:<model version>:<score>"


# --------------------------------------------------------------------------- helpers
def _alt(words) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


_CJK = re.compile(r"[\u4e00-\u9fff]")
_ZH_NUM = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_EN_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "a couple of": 2, "couple of": 2, "several": 3, "a few": 3}
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]


def _zh_int(s: str) -> int | None:
    if s.isdigit():
        return int(s)
    if not s or any(c not in _ZH_NUM for c in s):
        return None
    if s == "十":
        return 10
    if s.startswith("十"):
        return 10 + _ZH_NUM[s[1]]
    if s.endswith("十"):
        return _ZH_NUM[s[0]] * 10
    if "十" in s:
        a, b = s.split("十", 1)
        return _ZH_NUM[a] * 10 + _ZH_NUM[b]
    return _ZH_NUM[s] if len(s) == 1 else None


def _shift_month(y: int, m: int, delta: int) -> tuple[int, int]:
    t = y * 12 + (m - 1) + delta
    return t // 12, t % 12 + 1


# Day- and week-level relative dates ("上礼拜", "琴日", "last Saturday", "three weeks ago"): a fact
# keeps month precision, so each resolves to the month of the day it names, counted back from the
# message time. (Blind sets 4-7: "我上礼拜刚拿到执照", "I got married last Saturday" were dropped as
# undated facts.) Days back per cue; a bare weekday ("on Monday") is at most six days back.
_ZH_DAYS_BACK = (
    (re.compile(r"上上个?(?:周|星期|礼拜)"), 14),
    (re.compile(r"上个?(?:周|星期|礼拜)|上(?:周|星期|礼拜)[一二三四五六日天]"), 7),
    (re.compile(r"前[两几]天|前些天|大前天"), 3),
    (re.compile(r"前天|前日"), 2),
    (re.compile(r"昨天|昨日|昨晚|琴日|寻日|尋日|噚日|夜晚"), 1),
    (re.compile(r"这(?:周|星期|礼拜)|本周|今天|今日|今早|刚刚|刚才|(?:周|星期|礼拜)[一二三四五六日天]"), 0),
)
_ZH_N_BACK = re.compile(r"([一二两三四五六七八九十\d]{1,3})(天|日|个?(?:周|星期|礼拜))(?:之?前|以前)")
_EN_WEEKDAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|wed|thurs?|fri|sat|sun"
_EN_DAYS_BACK = (
    (re.compile(r"\bthe week before last\b"), 14),
    (re.compile(r"\blast (?:week|weekend)\b|\blast (?:" + _EN_WEEKDAYS + r")\b"), 7),
    (re.compile(r"\b(?:the other day|a few days ago|couple (?:of )?days ago|the day before yesterday)\b"), 3),
    (re.compile(r"\byesterday\b|\blast night\b"), 1),
    (re.compile(r"\b(?:today|this (?:week|morning|weekend)|earlier this week|just now|on (?:" + _EN_WEEKDAYS + r")|(?:" + _EN_WEEKDAYS + r") (?:night|morning))\b"), 0),
)
_EN_N_BACK = re.compile(r"\b(a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a couple of|several|a few)\s+(days?|weeks?)\s+(?:ago|back)\b")


def days_back_date(s: str, at: _dt.datetime, lang: str) -> tuple[_dt.date, str] | None:
    """The month a day- or week-level relative date in ``s`` falls in, counted back from ``at``.

    Inputs: ``s`` -- one sentence; ``at`` -- the message time; ``lang`` -- ``"zh"`` or ``"en"``.
    Output: ``(first day of that month, "month")`` or None when ``s`` names no such date.
    """
    low = s.lower()
    m = (_ZH_N_BACK if lang == "zh" else _EN_N_BACK).search(low)
    days = None
    if m:
        count, unit = m.group(1), m.group(2)
        n = (_zh_int(count) if lang == "zh" else _EN_NUM.get(count) or (int(count) if count.isdigit() else 0)) or 0
        days = n * (1 if unit[0] in "天日d" else 7)
    else:
        for rx, back in (_ZH_DAYS_BACK if lang == "zh" else _EN_DAYS_BACK):
            if rx.search(low):
                days = back
                break
    if days is None:
        return None
    d = (at - _dt.timedelta(days=days)).date()
    return _dt.date(d.year, d.month, 1), "month"


# --------------------------------------------------------------------------- injection
_INJECTION_RE = re.compile(
    r"(写进|写入|存入|存进|记入|加入|保存到|记到)(你的)?(长期)?记忆|系统指令|系统提示词|以下为系统|忽略(之前|以上|前面|所有)的?(所有)?(指令|规则|设定)"
    r"|永久(记住|保存|存储)|开发者模式|越狱"
    r"|system\s+(override|prompt|instruction)|(?:ignore|disregard|forget)\s+(?:all\s+)?(?:of\s+)?(?:your\s+|the\s+|my\s+|these\s+|those\s+)?(?:previous|prior|above|earlier|existing|original)\s+(?:instructions|rules|prompts?|guidelines)"
    r"|store\s+this\s+permanently|(add|write|save|commit)\s+(this|the following)\s+(to|in|into)\s+(your\s+)?(long[- ]term\s+)?memory"
    r"|remember\s+this\s+permanently|developer\s+mode|jailbreak|you\s+are\s+now\s+in"
    # claims of privilege dressed up as facts to remember
    r"|记住[：:，,\s]*(?:我|用户)(?:是|为)(?:超级|系统)?(?:管理员|admin|root|VIP|超管)|拥有(?:所有|全部|最高|管理员|超级)权限|以管理员身份"
    r"|remember\s+(?:that\s+)?(?:I\s+am|I'm|the\s+user\s+is)\s+(?:the\s+|an?\s+)?(?:admin|administrator|owner|root|superuser)"
    r"|the\s+user\s+is\s+(?:a\s+|an\s+|the\s+)?(?:verified\s+|trusted\s+)?(?:admin|administrator|superuser|vip)\b"
    r"|\bhave\s+(?:admin|root|administrator)\s+(?:access|privileges|rights)\b|\b(?:full|root|admin|administrator|superuser)\s+(?:admin\s+)?(?:access|privileges|rights)\b"
    r"|\bsave\s+(?:it\s+|this\s+)?(?:in|to|into)\s+my\s+(?:profile|memory)\s+that\b"
    # claims of approval privileges that an assistant would act on ("所有报销单都可以直接批")
    r"|(?:都|均|全部|一律)可以直接(?:批|审批|通过|放行|报销|打款)|(?:审批|报销|签字)?权限(?:是|为)?(?:无上限|不受限|没有上限|最高)|免(?:审批|审核)权"
    r"|\bunlimited\s+(?:approval|spending|signing)\s+(?:authority|limits?|rights)\b|\bapprovals?\s+(?:are|is)\s+waived\b"
    r"|\b(?:can|may)\s+approve\s+(?:anything|everything|any amount)\b|\bbypass(?:es)?\s+(?:the\s+)?(?:approval|review)s?\b",
    re.I,
)


def detect_injection(text: str) -> bool:
    """Return True when ``text`` (any length, any language) contains an instruction that tries
    to write into the assistant's memory or override its rules, anywhere in the text.
    Never raises; ``None``/empty input returns False."""
    return bool(text) and bool(_INJECTION_RE.search(text))



_PROJECT = re.compile(
    r"\d+(?:\.\d+)?\s*(?:%|元|块|万|亿|台|单|个工作日|k\b|m\b)|[£$€¥]\s*\d|\b(?:USD|EUR|GBP|RMB|CNY|AUD)\s*\d|#\d+|(?-i:\b(?!ICD-|ISO-|IEC-|IFRS-|IAS-|HL7-)[A-Z]{2,}-\d+)"
    r"|项目代号|代号|提测|上线|定稿|二期|一期|[\"“「][^\"”」]{1,10}[\"”」]项目|\bdeadline\b|\bdue\b|\bbug\b|(?-i:\bProject [A-Z])|\bticket\b|\bRFP\b",
    re.I,
)
_PII_LIKE = re.compile(r"\d{6,}|[\w.+-]+@[\w-]+\.\w+")

def _lang_of(text: str) -> str:
    cjk = len(_CJK.findall(text))
    return "zh" if cjk >= 4 or (cjk and cjk * 3 >= len(re.findall(r"[A-Za-z]+", text))) else "en"


def _strip_discourse(c: str, rx) -> str:
    prev = None
    while prev != c:
        prev, c = c, rx.sub("", c.strip(), count=1).strip()
    return c


# --------------------------------------------------------------------------- labels & rendering
def _render(kind: str, key: str, value: str, lang: str, fact_date=None, prec=None, operation="set") -> str:
    zh = lang == "zh"
    label = key_label(kind=kind, key=key, lang=lang)  # the key registry's label (profiles.taxonomy)
    if kind == "preference":
        parts = key.split(":")
        topic = parts[1] if len(parts) > 1 else key
        if topic == "terminology" and len(parts) > 2:
            label += ("「%s」" % parts[2]) if zh else (' "%s"' % parts[2])
        elif topic == "tool" and len(parts) > 2:
            label += ("（%s）" % parts[2]) if zh else (" (%s)" % parts[2])
        label = ("偏好·" if zh else "Preference · ") + label
    elif kind == "fact":
        label = ("事实·" if zh else "Fact · ") + label
    if operation == "retract":
        label = ("不再·" if zh else "No longer · ") + label
    text = f"{label}：{value}" if zh else f"{label}: {value}"
    if fact_date:
        if zh:
            text += f"（{fact_date.year}年{fact_date.month}月）" if prec == "month" else f"（{fact_date.year}年）"
        else:
            text += f" ({fact_date:%Y-%m})" if prec == "month" else f" ({fact_date.year})"
    return text


def _cand(kind, key, value, lang, fact_date=None, prec=None, operation="set") -> Candidate:
    value = re.sub(r"\s+", " ", value).strip(" ，,。.：:、")
    return Candidate(kind, key, value, _render(kind, key, value, lang, fact_date, prec, operation), lang, fact_date, operation, prec)


def candidate_reword(cand: Candidate, *, key: str | None = None, value: str | None = None) -> Candidate:
    """A copy of ``cand`` with a new ``key`` and/or ``value`` (kind, language, date and operation kept);
    its ``text`` is rendered again from key and value, as the rules do. Used by the LLM refiner."""
    return _cand(cand.kind, key or cand.key, value or cand.value, cand.lang, cand.fact_date, cand.precision, cand.operation)


_TECH_ALL = sorted(set(L.TECH_SKILLS + [w for w in L.CODE_LANGUAGES if len(w) > 1] + ["C++", "C#"]), key=len, reverse=True)
# A version number may follow a name ("Vue3", "Java 17" stays "Java"): the skill is the name alone.
_TECH_RE = re.compile(r"(?<![A-Za-z0-9_.@])(" + _alt(_TECH_ALL) + r")(?:(?<=[A-Za-z])\d{1,2}(?:\.\d+)?)?(?![A-Za-z0-9_+#]|\.[A-Za-z])")
_TOOLS_RE = re.compile(r"(?<![A-Za-z])(" + _alt(L.TOOLS) + r")(?![A-Za-z])")
_CODE_LANG_SET = {w.lower() for w in L.CODE_LANGUAGES}

# Office / BI / design tools count as skills when the user says they can use them ("我会用Excel",
# "I'm proficient in Power BI"); without such a cue a tool is a preference or nothing.
_SKILL_CUE = re.compile(r"会用|会写|熟悉|熟练|精通|掌握|擅长|用得[很挺比较非常]*[熟溜好]|技术栈|proficient|fluent|experienced (?:with|in)|"
                        r"experience (?:with|in)|skilled|expert (?:in|at|with)|good (?:at|with)|know my way around|\bstack\b", re.I)
_SKILL_TOOL_CATEGORIES = {"spreadsheet", "office", "slides", "bi", "design", "editor", "notebook", "tracker", "sql_dialect", "test_framework"}
_TOOL_SKILL_RE = re.compile(r"(?<![A-Za-z])(" + _alt([t for t, cat in L.TOOLS.items() if cat in _SKILL_TOOL_CATEGORIES]) + r")(?![A-Za-z])")


def _skills(c: str, lang: str, out: list, skip: set) -> None:
    seen = set()
    matches = list(_TECH_RE.finditer(c))
    if _SKILL_CUE.search(c):
        matches += list(_TOOL_SKILL_RE.finditer(c))
    for m in matches:
        name = m.group(1)
        k = name.lower()
        if k in seen or k in skip:
            continue
        seen.add(k)
        out.append(_cand("profile", "skill:" + re.sub(r"\s+", "_", k), name, lang))


_TOOL_NAME_RE = re.compile(r"(?<![A-Za-z])(" + _alt(list(L.TOOLS) + _TECH_ALL) + r")(?![A-Za-z+#])")
TOOL_NAMES_LOWER = frozenset(x.lower() for x in list(L.TOOLS) + _TECH_ALL)


def _tool_prefs(c: str, sent: str, lang: str, out: list, directive, code_ok: bool = True) -> set:
    """Preferred tools / code languages named with a directive in clause ``c``; appends at most one
    preference candidate per key to ``out`` ("give me Cypress examples in TypeScript": a test framework and a
    code language; a tool named as a format, "按飞书文档的格式", is a ``pref:format``) and returns the lower-cased names consumed (also names that
    were explicitly rejected: "not Excel"). ``code_ok=False`` leaves code languages alone (a plain
    "I use SQL every day" is a skill, not a preference)."""
    used, keys = set(), set()
    # A clause continuing a directive one ("平时用Jira管需求，用Confluence写PRD") shares its directive.
    if not (directive.search(c) or (lang == "zh" and c.startswith("用") and directive.search(sent))):
        return used
    for m in _TOOL_NAME_RE.finditer(c):
        name = m.group(1)
        before = c[max(0, m.start() - 30):m.start()].lower()
        if re.search(r"(别|不要|不用|别给我|not|no|instead of|rather than|never|off|不是)\s*(plain\s+)?$", before):
            used.add(name.lower())
            continue
        if lang == "zh" and not re.search(r"(用|按|使用|换成|改用|在)\s*$", before):
            continue
        if lang == "en" and not re.search(r"\b(use|using|in|to|on|with|prefer|for|(?:give|show|send|write) me(?: an?| the| some)?|(?:of choice|(?:preferred|go-to|favou?rite)(?: [\w-]+){1,3}) is)\s*$", before) \
                and not re.match(r"^" + re.escape(name), c):
            continue
        if not code_ok and (name.lower() in _CODE_LANG_SET or L.TOOLS.get(name) == "sql_dialect"):
            continue
        if name.lower() in _CODE_LANG_SET:
            key = "pref:code_language"
        elif name in L.TOOLS:
            key = "pref:tool:" + L.TOOLS[name]
        else:
            continue
        if key.startswith("pref:tool:") and re.match(r"\s*(?:文档|docs?\b)?\s*的?\s*(?:格式|模板|排版|format\b|template\b)", c[m.end():], re.I):
            key = "pref:format"  # "周报按飞书文档的格式给我" replaces an earlier "用Markdown格式"
        if key in keys:
            continue
        keys.add(key)
        out.append(_cand("preference", key, name, lang))
        used.add(name.lower())
    return used
