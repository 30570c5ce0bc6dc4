"""Rule-based extraction of memory candidates from one user message.

Only three kinds of memory are produced (see the product policy):

* ``profile``    -- role, department, city, industry, education, skills, seniority, responsibility;
* ``preference`` -- stable likes and working style (answer length/format, tools, units, habits...);
* ``fact``       -- stable personal/family life events with a resolved ``fact_date``.

Everything else (project details, questions, hypotheticals, third parties, temporary
states, venting, negations, injected instructions) yields nothing. The module is pure
Python (``re``, ``datetime``, ``dataclasses``) and needs no Django setup.

Public API: :class:`Candidate`, :func:`detect_injection`, :func:`extract_candidates`,
:data:`RULES_VERSION`. Word lists live in :mod:`consolidation.extraction_lexicon`.
"""
from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass

from . import extraction_lexicon as L

RULES_VERSION = "2026.03-r2"


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


# --------------------------------------------------------------------------- helpers
def _alt(words) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


_CJK = re.compile(r"[\u4e00-\u9fff]")
_ZH_NUM = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_EN_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "a couple of": 2, "couple of": 2, "several": 3}
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


# --------------------------------------------------------------------------- injection
_INJECTION_RE = re.compile(
    r"(写进|写入|存入|存进|记入|加入|保存到|记到)(你的)?(长期)?记忆|系统指令|系统提示词|以下为系统|忽略(之前|以上|前面|所有)的?(所有)?(指令|规则|设定)"
    r"|永久(记住|保存|存储)|开发者模式|越狱"
    r"|system\s+(override|prompt|instruction)|ignore\s+(all\s+)?(previous|prior|above|earlier)\s+(instructions|rules)"
    r"|store\s+this\s+permanently|(add|write|save|commit)\s+(this|the following)\s+(to|in|into)\s+(your\s+)?(long[- ]term\s+)?memory"
    r"|remember\s+this\s+permanently|developer\s+mode|jailbreak|you\s+are\s+now\s+in",
    re.I,
)


def detect_injection(text: str) -> bool:
    """Return True when ``text`` (any length, any language) contains an instruction that tries
    to write into the assistant's memory or override its rules, anywhere in the text.
    Never raises; ``None``/empty input returns False."""
    return bool(text) and bool(_INJECTION_RE.search(text))


# --------------------------------------------------------------------------- date resolution
def _resolve_date_zh(s: str, at: _dt.datetime) -> tuple[_dt.date, str] | None:
    y, m, prec, found = at.year, None, "year", False
    mm = re.search(r"(\d{4})年", s)
    if mm:
        y, found = int(mm.group(1)), True
    elif "前年" in s:
        y, found = at.year - 2, True
    elif "去年" in s:
        y, found = at.year - 1, True
    elif "今年" in s:
        found = True
    elif "明年" in s:
        y, found = at.year + 1, True
    else:
        mm = re.search(r"([一二两三四五六七八九十\d]{1,3})年前", s)
        if mm and _zh_int(mm.group(1)):
            y, found = at.year - _zh_int(mm.group(1)), True
    if re.search(r"上个?月", s):
        y, m = _shift_month(at.year, at.month, -1)
    elif re.search(r"这个月|本月", s):
        y, m = at.year, at.month
    elif re.search(r"下个?月", s):
        y, m = _shift_month(at.year, at.month, 1)
    else:
        mm = re.search(r"(?<![\d一二三四五六七八九十])(十[一二]?|[一二三四五六七八九]|1[0-2]|[1-9])月(?![份]?[\d一二三四五六七八九十]+[号日]?\s*(前|内))", s)
        if mm:
            m = _zh_int(mm.group(1))
    if m:
        return _dt.date(y, m, 1), "month"
    if found:
        return _dt.date(y, 1, 1), prec
    return None


def _resolve_date_en(s: str, at: _dt.datetime) -> tuple[_dt.date, str] | None:
    s = s.lower()
    seasons = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
    mm = re.search(r"\b(last|this)\s+(spring|summer|fall|autumn|winter)\b", s)
    if mm:
        y = at.year - 1 if mm.group(1) == "last" else at.year
        return _dt.date(y, seasons[mm.group(2)], 1), "month"
    if re.search(r"\blast month\b", s):
        y, m = _shift_month(at.year, at.month, -1)
        return _dt.date(y, m, 1), "month"
    if re.search(r"\bthis month\b", s):
        return _dt.date(at.year, at.month, 1), "month"
    mm = re.search(r"\b(a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a couple of|several)\s+years?\s+ago\b", s)
    if mm:
        n = _EN_NUM.get(mm.group(1)) or int(mm.group(1))
        return _dt.date(at.year - n, 1, 1), "year"
    mm = re.search(r"\bin\s+(" + "|".join(_MONTHS) + r")(?:\s+(\d{4}))?\b", s)
    if mm:
        m = _MONTHS.index(mm.group(1)) + 1
        y = int(mm.group(2)) if mm.group(2) else (at.year if m <= at.month else at.year - 1)
        return _dt.date(y, m, 1), "month"
    mm = re.search(r"\bin\s+((?:19|20)\d\d)\b", s)
    if mm:
        return _dt.date(int(mm.group(1)), 1, 1), "year"
    if re.search(r"\blast year\b", s):
        return _dt.date(at.year - 1, 1, 1), "year"
    if re.search(r"\bthis year\b", s):
        return _dt.date(at.year, 1, 1), "year"
    return None


# --------------------------------------------------------------------------- never-rules
_ZH_EMOTION = re.compile(r"烦死|好烦|真烦|焦虑|心力交瘁|崩溃|郁闷|压力(好|很|太|山)?大|想辞职|辞职算了|受不了|累死|气死|难受|无语|头疼|抓狂|绝望|心累|烦躁|委屈|难过|伤心|火大|憋屈|真想|要命|烦人")
_EN_EMOTION = re.compile(r"\b(fed up|walk out|stressed|anxious|exhausted|frustrat\w*|burn(ed|t) out|sick of|tired of|annoyed|furious|overwhelmed|miserable|depressed|losing my mind|so done|quit my job|pissed)\b", re.I)
_ZH_TEMP = re.compile(r"这周|本周|下周|今天|明天|后天|今晚|今早|这两天|这几天|这阵子|最近|临时|暂时|目前先|这会儿|待会|一会儿?|月底前|周末|下个?月|这次|这趟|刚才")
_EN_TEMP = re.compile(r"\b(today|tonight|tomorrow|this week(end)?|next week|next month|this afternoon|this morning|right now|at the moment|for a while|for now|temporarily|off sick|on leave|on vacation|this time)\b", re.I)
_ZH_HYPO = re.compile(r"如果|假如|(?<![主只])要是|假设|万一|若是|倘若|假使|换做是?我|换作是?我")
_EN_HYPO = re.compile(r"\b(if i were|if i was|if i had|were i|imagine|suppose|supposing|hypothetically|what if)\b", re.I)
_ZH_QWORD = re.compile(r"[吗呢嘛][？?]?$|是不是|要不要|该不该|能不能|可不可以|有没有|应不应该|[？?]")
_ZH_QWORD_WEAK = re.compile(r"怎么|什么|多少|哪|几[天个]|为什么|如何|咋")
_ZH_NEG = re.compile(r"不是|并非|别以为|不算|没在|从没|从来没|不属于|^不$")
_EN_NEG = re.compile(r"\b(i'm not|i am not|not an?|i don't work|i do not work|never been|isn't|i'm no longer|i am no longer)\b", re.I)
_ZH_PAST = re.compile(r"^(之前|以前|原来|过去|曾经|那时候|当时)|之前那种|以前那种|之前一直|以前一直")
_EN_PAST = re.compile(r"\b(used to|previously|formerly|before that|migrated off|moved off)\b", re.I)
_PROJECT = re.compile(
    r"\d+(?:\.\d+)?\s*(?:%|元|块|万|亿|台|单|个工作日|k\b|m\b)|[£$€¥]\s*\d|\b(?:USD|EUR|GBP|RMB|CNY|AUD)\s*\d|#\d+|(?-i:\b[A-Z]{2,}-\d+)"
    r"|项目代号|代号|提测|上线|定稿|二期|一期|[\"“「][^\"”」]{1,10}[\"”」]项目|\bdeadline\b|\bdue\b|\bbug\b|\bProject [A-Z]|\bticket\b|\bRFP\b",
    re.I,
)
_PII_LIKE = re.compile(r"\d{6,}|[\w.+-]+@[\w-]+\.\w+")
_ZH_REQUEST = re.compile(r"^(帮我|帮忙|请你?|麻烦|给我|你帮|能否|可以帮|替我|问一下|想问|问个|顺便把)")
_EN_REQUEST = re.compile(r"^(please|can you|could you|would you|help me|write|draft|make|give|show|book|open|rank|turn|set|tidy|break|explain|walk|find|check|send|create|add|fix|summari[sz]e|translate)\b", re.I)


# --------------------------------------------------------------------------- splitting & subjects
_ZH_DISCOURSE = re.compile(
    r"^(你好|您好|好的|好吧|(?:好|对|早|行|嗯)(?=[，,。！!\s]|$)|嗯+|对了|另外|还有|顺便说一下|顺便说下|顺便|说起来|跟你说下|跟你说个喜事|跟你说|跟你同步一下|更新一下我的情况|先说下背景|"
    r"早上好|其实|不过|但是|但|而且|所以|那么|那|行吧|OK|ok|可以|很好|不错|挺好|算了|哈哈|说实话|老规矩|是的|嗯嗯|没错|然后)[，,：:\s。！]*"
)
_EN_DISCOURSE = re.compile(
    r"^(hi|hey|hello|ok|okay|also|and|but|so|yes|yeah|thanks|thank you|great|good|nice|fine|anyway|right|morning|well|honestly|"
    r"unrelated|for context|quick update on me|heads up|personal milestone|btw|by the way|actually|oh|sure|cool|got it|going forward)\b[,:!.\s—-]*",
    re.I,
)
_ZH_OTHERS_RE = re.compile(r"^(是|因为|就是)?(有个|有位|有一个|有些|我们?的?)?(" + _alt(L.ZH_OTHERS) + r")")
_ZH_FAMILY_RE = re.compile(r"^(我的?|我家)?(" + _alt(L.ZH_FAMILY) + r")")
_ZH_REPORTED = re.compile(r"(客户|领导|老板|同事|他|她|他们|她们|对方|候选人)(说|表示|觉得|认为|要求|反馈)")
_EN_FAMILY_RE = re.compile(r"^my\s+(" + _alt(L.EN_FAMILY) + r")\b", re.I)
_EN_OTHER_RE = re.compile(
    r"^((?:my|our)\s+(" + _alt(L.EN_OTHERS) + r")|he|she|they|his|her|their|the (client|customer|candidate)|a (candidate|colleague|client)|"
    r"[A-Z][a-z]+\s+(is|has|was|said|says|will|wants))\b", re.I)


def _lang_of(text: str) -> str:
    cjk = len(_CJK.findall(text))
    return "zh" if cjk >= 4 or (cjk and cjk * 3 >= len(re.findall(r"[A-Za-z]+", text))) else "en"


def _strip_discourse(c: str, rx) -> str:
    prev = None
    while prev != c:
        prev, c = c, rx.sub("", c.strip(), count=1).strip()
    return c


def _zh_subject(c: str) -> str | None:
    if _ZH_REPORTED.search(c):
        return "other"
    m = _ZH_FAMILY_RE.match(c)
    if m:
        return "family:" + m.group(2)
    if re.match(r"^(我们|咱们|我司|我们公司|公司)(?!的?(" + _alt(L.ZH_OTHERS) + "))", c):
        return "we"
    if _ZH_OTHERS_RE.match(c) and not re.match(r"^我(是|在|做)", c):
        return "other"
    if re.match(r"^(你|请|帮我|麻烦|给我)", c):
        return "you"
    m = re.search(r"(?<![给帮让跟陪叫问诉对和替])(我|本人)(?!们)", c)
    if m and m.start() <= 6:
        return "self"
    return None


def _en_subject(c: str) -> str | None:
    if _EN_FAMILY_RE.match(c):
        return "family:" + _EN_FAMILY_RE.match(c).group(1).lower()
    if _EN_OTHER_RE.match(c):
        return "other"
    if re.match(r"^(i|i'm|i've|i'd|i'll|im|my|me)\b", c, re.I):
        return "self"
    if re.match(r"^(we|we're|we've|our|us)\b", c, re.I):
        return "we"
    if re.match(r"^(you|please|always|never|for|keep|use|default|switch)\b", c, re.I) or _EN_REQUEST.match(c):
        return "you"
    return None


def _split_zh(text: str) -> list[tuple[str, list[str]]]:
    out = []
    for m in re.finditer(r"[^。！？!?；;\n]+[。！？!?；;\n]*", text):
        sent = m.group(0).strip()
        if not sent:
            continue
        body = sent.rstrip("。！？!?；;\n ")
        clauses = [c.strip() for c in re.split(r"[，,：:]", body) if c.strip()]
        out.append((sent, clauses))
    return out


def _split_en(text: str) -> list[tuple[str, list[str]]]:
    out = []
    for sent in re.split(r"(?<=[.!?])\s+|\n+|;\s*", text):
        sent = sent.strip()
        if not sent:
            continue
        body = sent.rstrip(".!? ")
        parts = re.split(r"\s+[—–]\s+|\s+-\s+|:\s+|,\s*|\s+(?:but|so)\s+|\s+and\s+(?=(?:I|I'm|I've|we|my)\b)", body)
        out.append((sent, [p.strip() for p in parts if p and p.strip()]))
    return out


# --------------------------------------------------------------------------- labels & rendering
_LABELS = {
    "role": ("职位", "Role"), "department": ("部门", "Department"), "city": ("城市", "City"),
    "industry": ("行业", "Industry"), "company": ("公司", "Company"), "education": ("教育背景", "Education"),
    "seniority": ("职级", "Seniority"), "responsibility": ("负责", "Responsibility"), "skill": ("技能", "Skill"),
}
_PREF_LABELS = {
    "answer_length": ("回答长度", "answer length"), "format": ("格式", "format"), "structure": ("结构", "structure"),
    "language": ("语言", "language"), "tone": ("语气", "tone"), "units": ("单位", "units"), "currency": ("货币", "currency"),
    "rounding": ("取整", "rounding"), "tool": ("工具", "tool"), "code_language": ("编程语言", "code language"),
    "code_completeness": ("代码完整性", "code completeness"), "code_comments": ("代码注释", "code comments"),
    "citation": ("引用", "citations"), "terminology": ("术语", "terminology"), "diet": ("饮食", "diet"),
    "drink": ("饮品", "drink"), "transport": ("出行", "transport"), "schedule": ("作息", "schedule"),
    "spelling": ("拼写", "spelling"), "punctuation": ("标点", "punctuation"), "emoji": ("表情符号", "emoji"),
}
_FACT_LABELS = {"school": ("就学", "schooling"), "birth": ("生育", "birth"), "marriage": ("婚姻", "marriage"),
                "relocation": ("迁居", "relocation"), "graduation": ("毕业", "graduation"), "job_change": ("工作变动", "job change")}


def _render(kind: str, key: str, value: str, lang: str, fact_date=None, prec=None, operation="set") -> str:
    zh = lang == "zh"
    if kind == "profile":
        base = key.split(":", 1)[0]
        label = _LABELS.get(base, (base, base))[0 if zh else 1]
    elif kind == "preference":
        parts = key.split(":")
        topic = parts[1] if len(parts) > 1 else key
        label = _PREF_LABELS.get(topic, (topic, topic))[0 if zh else 1]
        if topic == "terminology" and len(parts) > 2:
            label += ("「%s」" % parts[2]) if zh else (' "%s"' % parts[2])
        elif topic == "tool" and len(parts) > 2:
            label += ("（%s）" % parts[2]) if zh else (" (%s)" % parts[2])
        label = ("偏好·" if zh else "Preference · ") + label
    else:
        topic = key.split(":")[1] if ":" in key else key
        label = ("事实·" if zh else "Fact · ") + _FACT_LABELS.get(topic, (topic, topic))[0 if zh else 1]
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
    return Candidate(kind, key, value, _render(kind, key, value, lang, fact_date, prec, operation), lang, fact_date, operation)


# --------------------------------------------------------------------------- Chinese patterns
_ZH_CITY_RE = re.compile("(" + _alt(L.ZH_CITIES) + ")(?![大石治小异藤路公园学站]|南站|[东西南北]站|南出发)")
_ZH_PROV_RE = re.compile("(" + _alt(L.ZH_PROVINCES) + ")(?!大学|路)")
_ZH_CITY_BAD_BEFORE = re.compile(r"(去|到|飞|飞往|出差|从|往|赴|离开|前往|来自)$")
_ZH_CITY_MOVE = re.compile(r"(调回|调到|调去|搬到|搬去|搬回|回到|落户|定居|移居|常驻|住在|base在|base|在|到了|是|于)$")
_ZH_TITLE_RE = re.compile(
    r"(?<=[是的做当任个名])(?P<t>(?:(?!的|我|在|是|做|一家|一名|一位|一个|这边|那边|和|跟|，|还)[\u4e00-\u9fffA-Za-z&+#]){0,10}?"
    r"(?:" + _alt(L.ZH_TITLE_SUFFIXES) + r"))"
    r"(?=$|[^\u4e00-\u9fffA-Za-z]|的|了|啊|吧|呢|在|已|[一二三四五六七八九十两几多]+年|和|兼|带|负责|主要|天天|每天|平时|这|那|岗|工作)")
_ZH_DEPT_RE = re.compile(
    r"(?:^|(?<=[是在到的了|]))(?P<d>(?:(?!的|我|在|是|一家|做|这边|那边|，|了|到)[\u4e00-\u9fffA-Za-z&]){1,10}?"
    r"(?:部门|事业部|事业群|研究院|中心|部|组|科室|大区|实验室|工作室))(?=$|的|做|工作|上班|当|任|担任|负责|里|了|，|上|[^\u4e00-\u9fffA-Za-z])")
_ZH_RESP_RE = re.compile(
    r"(?:主要|平时|日常|目前|现在|专门|兼)?(?:负责|对接|主要做|主要管|兼管|管|支持|跟进|服务于?|带着?(?=[^，,。；]{0,10}(?:团队|组|人|团))|覆盖)(?:的是|的)?(?P<o>[^，,。；]{2,24})")
_ZH_RESP_DEAL = re.compile(r"(?:主要|平时|日常)?跟(?P<o>[^，,。；]{2,16}?)打交道|(?:主要|平时|日常)(?:用[A-Za-z+#.\s]{1,20}?)?(?:写|搞|开发|维护)(?P<o2>[^，,。；]{2,16})")
_ZH_INDUSTRY_RE = re.compile("(" + _alt(L.ZH_INDUSTRIES) + ")")
_ZH_INDUSTRY_CTX = re.compile(r"公司|企业|车企|厂|集团|品牌|行业|领域|连锁|门店|总部|机构|医院|银行|工厂|研究院|超市")
_ZH_EDU_RE = re.compile(
    r"(?P<deg>本科|硕士|博士|研究生|MBA|大专|学士|博士后)(?:是|在)?(?P<u>[\u4e00-\u9fffA-Za-z]{2,12}?)(?:读|毕业|念)的?"
    r"|(?P<u2>[\u4e00-\u9fff]{2,10}(?:大学|学院)|" + _alt(L.ZH_UNIVERSITY_SHORT) + r")(?P<deg2>本科|硕士|博士|研究生)?毕业"
    r"|毕业于(?P<u3>[\u4e00-\u9fffA-Za-z]{2,14})")
_TECH_ALL = sorted(set(L.TECH_SKILLS + [w for w in L.CODE_LANGUAGES if len(w) > 1] + ["C++", "C#"]), key=len, reverse=True)
_TECH_RE = re.compile(r"(?<![A-Za-z0-9_.@])(" + _alt(_TECH_ALL) + r")(?![A-Za-z0-9_+#]|\.[A-Za-z])")
_TOOLS_RE = re.compile(r"(?<![A-Za-z])(" + _alt(L.TOOLS) + r")(?![A-Za-z])")
_CODE_LANG_SET = {w.lower() for w in L.CODE_LANGUAGES}
_ZH_DIRECTIVE = re.compile(r"以后|今后|往后|默认|统一|一律|给我|你|更想|更喜欢|偏好|偏爱|习惯|一直用|一向用|都用|只用|换成|改用|按")
_ZH_PREF_MARK = re.compile(r"都|以后|今后|往后|之后|下次|默认|统一|一律|一向|一直|总是|向来|从来|习惯|喜欢|偏好|偏爱|希望|最好|记得|别|不要|不用|只|每天|每次|平时|老规矩|类|所有|任何|全部|更想|更喜欢|宁可|能不")
_ZH_PREF_TOPICS = [
    ("code_completeness", re.compile(r"完整可运行|完整的?代码|完整的类|代码片段|只给片段|可运行")),
    ("code_comments", re.compile(r"注释")),
    ("structure", re.compile(r"先给(结论|数字|数据)|先说结论|再解释|[三四五]段式|[三四五]段来|背景-|按.{0,14}(组织|结构)|结论先行|总分总")),
    ("answer_length", re.compile(r"结论|简短|简洁|简单点|精简|短一点|长段落|长一点|详细|讲细|讲透|展开讲|铺垫|啰嗦|废话|句话|字以内|太长|太短|行以内|字数|篇幅|超过.{1,3}段|一页")),
    ("format", re.compile(r"表格|列表|分点|要点|条目|markdown|Markdown|图表|配图|配个图|编号|大纲|思维导图|摘要")),
    ("citation", re.compile(r"法条|出处|来源|引用|参考文献")),
    ("language", re.compile(r"中文|英文|英语|双语|繁体|简体")),
    ("units", re.compile(r"万元|元为单位|为单位|公制|公斤|小数|千分位")),
    ("tone", re.compile(r"语气|口吻|正式一点|口语化|客气|幽默|委婉")),
    ("emoji", re.compile(r"表情|emoji", re.I)),
]
_ZH_HABITS = [
    ("diet", re.compile(r"吃素|素食|不吃(辣|肉|牛肉|猪肉|海鲜)|忌口|过敏|清真|吃辣|清淡|低糖|低脂")),
    ("drink", re.compile(r"咖啡|美式|拿铁|喝茶|只喝茶|奶茶|喝酒|不喝酒")),
    ("transport", re.compile(r"高铁|动车|火车|飞机|航班|自驾|开车|地铁|打车|骑车|靠窗|过道")),
    ("schedule", re.compile(r"作息|早起|晚睡|上班时间|工作时间|午休")),
]
_ZH_HABIT_MARK = re.compile(r"一向|一直|习惯|总是|向来|从来|每天|每次|平时|都|只|能不|不坐|戒了|现在|喜欢|爱|不吃|不喝")
_ZH_FACT_EVENTS = [
    ("school", re.compile(r"(上|读|念|进)(幼儿园|小学|初中|高中|大学|研究生|[初高][一二三]|[一二三四五六]年级)|高考|中考|小升初|考上")),
    ("birth", re.compile(r"出生|生了?二胎|生了(个|一个)?(儿子|女儿|孩子|宝宝)?|当(了)?(爸爸|妈妈|爹|妈|爸)|添了|生娃|怀孕|二胎")),
    ("marriage", re.compile(r"结婚|结的婚|领证|订婚|离婚|办婚礼")),
    ("relocation", re.compile(r"搬到了?|搬去了?|搬回了?|搬家|定居|落户|移居到?")),
    ("graduation", re.compile(r"毕业")),
    ("job_change", re.compile(r"入职|跳槽|转岗|升职|晋升|退休")),
]
_ZH_RETRACT = re.compile(r"(?:不再|已经不|没再)(?P<v>负责|管|带|做|对接|是)(?P<o>[^，,。；]{2,20}?)了?$")


def _clean_zh_value(v: str) -> str:
    prev = None
    while prev != v:
        prev = v
        v = re.sub(r"^(我|你|以后|今后|往后|之后|下次|也|都|就|还有|另外|对了|回答我|给我|是|的|把|而且|现在|主要)", "", v)
        v = re.sub(r"(就行|就好|就可以|即可|吧|啊|哈|呀|了|。|这块|这一块|这方面|方面|等)$", "", v)
    return v[:40]


def _zh_city(c: str, stop: int = 10 ** 6) -> str | None:
    for rx in (_ZH_CITY_RE, _ZH_PROV_RE):
        for m in rx.finditer(c):
            if m.start() >= stop:
                break
            before = c[max(0, m.start() - 6):m.start()]
            if _ZH_CITY_BAD_BEFORE.search(before) and not _ZH_CITY_MOVE.search(before):
                continue
            after = c[m.end():m.end() + 4]
            if rx is _ZH_PROV_RE and not _ZH_CITY_MOVE.search(before):
                continue
            if _ZH_CITY_MOVE.search(before) or re.match(r"(分公司|总部|办公室|工厂|这边|那边|本地|人|的|一家|[^\u4e00-\u9fff]|$|中心|公司|区|市|做|工作|上班|办公)", after):
                return m.group(1)
    return None


def _zh_profile(c: str, lang: str, out: list) -> None:
    resp = _ZH_RESP_RE.search(c) or _ZH_RESP_DEAL.search(c)
    city = _zh_city(c, resp.start() if resp else 10 ** 6)
    if city:
        out.append(_cand("profile", "city", city, lang))
    masked = c
    for rx in (_ZH_CITY_RE, _ZH_PROV_RE):
        masked = rx.sub("|", masked)
    masked = re.sub(r"\|(分公司|总部|这边|那边|本地|工厂|办公室)?", "|", masked)
    is_resp_clause = bool(re.match(r"^(主要|平时|日常|专门)?(负责|对接|管|支持|跟|兼管|带)", masked))
    for m in _ZH_DEPT_RE.finditer(masked):
        d = m.group("d")
        if d in L.ZH_NOT_DEPT or re.match(r"^(对接|支持|负责|服务|给|跟|和|为|以|一个|这个|那个)", d) or (resp and m.start() >= resp.start()):
            continue
        out.append(_cand("profile", "department", d, lang))
        break
    ind = _ZH_INDUSTRY_RE.search(c)
    if ind and _ZH_INDUSTRY_CTX.search(c):
        out.append(_cand("profile", "industry", ind.group(1), lang))
    if not is_resp_clause:
        for m in _ZH_TITLE_RE.finditer(c):
            t = m.group("t")
            if resp and m.start() >= resp.start():
                continue
            out.append(_cand("profile", "role", t, lang))
            sen = next((s for s in L.ZH_SENIORITY if t.startswith(s)), None)
            if sen:
                out.append(_cand("profile", "seniority", sen, lang))
            break
    if resp:
        o = re.sub(r"^(几家|一些|十几家|多家|各个|一个|整个|所有)", "", resp.group("o") or resp.group("o2"))
        tm = re.search(r"的(?P<t>[^的]{0,10}(?:" + _alt(L.ZH_TITLE_SUFFIXES) + r"))$", o)
        if tm:
            out.append(_cand("profile", "role", tm.group("t"), lang))
            o = o[:tm.start()]
        if _TECH_RE.fullmatch(o.strip()):
            o = ""
        o = _clean_zh_value(o)
        if len(o) >= 2 and not re.search(r"[？?吗呢]", o):
            out.append(_cand("profile", "responsibility", o, lang))
    co = re.search(r"我(?:现在|目前)?在(?P<co>[\u4e00-\u9fffA-Za-z]{2,8}?)(?:做|当|工作|上班|任职)", c)
    if co and not (city or _ZH_CITY_RE.search(co.group("co")) or _ZH_PROV_RE.search(co.group("co")) or _ZH_INDUSTRY_RE.search(co.group("co"))
                   or re.search(r"一家|家里|公司|单位|这边|那边|总部|现场|工地|外面|老家|部|中心|组|院|的|厂", co.group("co"))):
        out.append(_cand("profile", "company", co.group("co"), lang))
    e = _ZH_EDU_RE.search(c)
    if e:
        u = e.group("u") or e.group("u2") or e.group("u3")
        deg = e.group("deg") or e.group("deg2") or ""
        out.append(_cand("profile", "education", u + deg, lang))


def _skills(c: str, lang: str, out: list, skip: set) -> None:
    seen = set()
    for m in _TECH_RE.finditer(c):
        name = m.group(1)
        k = name.lower()
        if k in seen or k in skip:
            continue
        seen.add(k)
        out.append(_cand("profile", "skill:" + re.sub(r"\s+", "_", k), name, lang))


def _tool_prefs(c: str, sent: str, lang: str, out: list, directive) -> set:
    """Preferred tools / code languages named with a directive; returns names consumed."""
    used = set()
    if not directive.search(c):
        return used
    for m in re.finditer(r"(?<![A-Za-z])(" + _alt(list(L.TOOLS) + _TECH_ALL) + r")(?![A-Za-z+#])", c):
        name = m.group(1)
        before = c[max(0, m.start() - 12):m.start()].lower()
        if re.search(r"(别|不要|不用|别给我|not|no|instead of|rather than|never|off|不是)\s*(plain\s+)?$", before):
            used.add(name.lower())
            continue
        if lang == "zh" and not re.search(r"(用|按|使用|换成|改用|在)\s*$", before):
            continue
        if lang == "en" and not re.search(r"\b(use|using|in|to|on|with|prefer)\s*$", before) and not re.match(r"^" + re.escape(name), c):
            continue
        if name.lower() in _CODE_LANG_SET:
            key = "pref:code_language"
        elif name in L.TOOLS:
            key = "pref:tool:" + L.TOOLS[name]
        else:
            continue
        out.append(_cand("preference", key, name, lang))
        used.add(name.lower())
        break
    return used


def _extract_zh(text: str, at: _dt.datetime, out: list) -> None:
    subject = None
    for sent, clauses in _split_zh(text):
        # terminology: 我说的X是指Y / X的口径按Y
        tm = re.search(r"我(?:说|讲|提|指)的\s*[「“\"']?(?P<t>[^，,。\"”」']{1,12}?)[」”\"']?\s*[，,]?\s*(?:是指|指的是|就是指|意思是|是说)(?P<d>[^。！？]+)", sent)
        if not tm:
            tm = re.search(r"(?P<t>[A-Z]{2,6}|[「“\"][^」”\"]{1,10}[」”\"])[^。]{0,12}?[，,]?\s*口径\S{0,4}?按(?P<d>[^。！？]+)", sent)
        if tm and not _ZH_HYPO.search(sent) and not sent.rstrip().endswith(("？", "?")):
            term = tm.group("t").strip("「」“”\"' ")
            out.append(_cand("preference", "pref:terminology:" + term.lower(), _clean_zh_value(tm.group("d").strip("，, ")), "zh"))
            subject = "self"
            continue
        is_q = sent.rstrip().endswith(("？", "?"))
        for i, raw in enumerate(clauses):
            c = _strip_discourse(raw, _ZH_DISCOURSE)
            if not c:
                continue
            s = _zh_subject(c)
            if s is not None:
                subject = s
            if _ZH_HYPO.search(c):
                break
            if _ZH_QWORD.search(c) or (is_q and (i == len(clauses) - 1 or _ZH_QWORD_WEAK.search(c))):
                continue
            if _ZH_EMOTION.search(c) or _PII_LIKE.search(c):
                continue
            subj = subject or "none"
            # facts (self or family) with a time anchor
            if subj == "self" or subj.startswith("family:") or subj == "none":
                _zh_fact(c, subj, at, out)
            if _ZH_TEMP.search(c) or _PROJECT.search(c) or _ZH_PAST.search(c):
                continue
            if subj in ("other",) or subj.startswith("family:"):
                continue
            # retract
            r = _ZH_RETRACT.search(c)
            if r and subj == "self":
                key = "role" if r.group("v") == "是" else "responsibility"
                out.append(_cand("profile", key, _clean_zh_value(r.group("o")), "zh", operation="retract"))
                continue
            used = _tool_prefs(c, sent, "zh", out, _ZH_DIRECTIVE)
            got_pref = bool(used & {x.lower() for x in list(L.TOOLS) + _TECH_ALL}) and any(
                cd.kind == "preference" for cd in out[-1:])
            marked = _ZH_PREF_MARK.search(c) or _ZH_PREF_MARK.search(sent)
            if not got_pref and marked and subj in ("self", "you", "none", "we"):
                for key, rx in _ZH_PREF_TOPICS:
                    if rx.search(c):
                        out.append(_cand("preference", "pref:" + key, _clean_zh_value(c), "zh"))
                        got_pref = True
                        break
            if not got_pref and subj in ("self", "none", "you"):
                for key, rx in _ZH_HABITS:
                    if rx.search(c) and (_ZH_HABIT_MARK.search(c) or (subj == "self" and "我" in c)):
                        out.append(_cand("preference", "pref:" + key, _clean_zh_value(c), "zh"))
                        got_pref = True
                        break
            if got_pref or _ZH_REQUEST.match(c) or subj == "you":
                continue
            if subj == "self" and not _ZH_NEG.search(c):
                _zh_profile(c, "zh", out)
            if subj in ("self", "we") and not _ZH_NEG.search(c):
                _skills(c, "zh", out, used)


def _zh_fact(c: str, subj: str, at, out: list) -> None:
    if re.search(r"今天|明天|这周|下周|去参加|出差", c):
        return
    for topic, rx in _ZH_FACT_EVENTS:
        m = rx.search(c)
        if not m:
            continue
        d = _resolve_date_zh(c, at)
        if not d:
            return
        member = subj.split(":", 1)[1] if subj.startswith("family:") else ""
        if not member:
            fm = re.search("(" + _alt(L.ZH_FAMILY) + ")", c[:m.start()])
            member = fm.group(1) if fm else ""
        if subj == "none" and not member and topic not in ("birth",):
            return
        ev = {"结的婚": "结婚"}.get(m.group(0), m.group(0))
        if topic == "relocation":
            city = _ZH_CITY_RE.search(c, m.end()) or _ZH_PROV_RE.search(c, m.end())
            if city:
                ev = re.sub(r"了$", "", ev) + city.group(1)
                out.append(_cand("profile", "city", city.group(1), "zh"))
        value = member + ev
        key = "fact:" + topic + (":" + member if member else "")
        out.append(_cand("fact", key, value, "zh", d[0], d[1]))
        return


# --------------------------------------------------------------------------- English patterns
_EN_CITY_RE = re.compile(r"\b(" + _alt(L.WORLD_CITY_LIST) + r")\b")
_EN_CITY_BAD_BEFORE = re.compile(r"\b(flying to|fly to|flight to|going to|trip to|travel(l?ing)? to|visit(ing)?|from|heading to|off to)\s+(our\s+|the\s+)?$", re.I)
_EN_TITLE_RE = re.compile(
    r"\bI(?:'m| am)\s+(?:now\s+|currently\s+|still\s+|also\s+)?(?:a|an|the|our|one of the)\s+"
    r"(?P<t>(?:[\w&/+\-]+\s+){0,4}?(?:" + _alt(L.EN_TITLE_PHRASES + L.EN_TITLE_NOUNS) + r"))s?\b"
    r"|\b(?:I\s+)?(?:now\s+|currently\s+)?work as (?:a|an|the)\s+(?P<t2>(?:[\w&/+\-]+\s+){0,4}?(?:" + _alt(L.EN_TITLE_NOUNS) + r"))\b"
    r"|\bI(?:'m| am)\s+(?:an?\s+|the\s+)?(?P<t3>SRE|DBA|PM|QA engineer|DevOps engineer|(?:head|director|vp|VP) of [A-Za-z&]+(?: [A-Za-z&]+)?(?= at| in| for|$))\b", re.I)
_EN_RESP_RE = re.compile(
    r"^(?:I\s+(?:also\s+|mainly\s+|mostly\s+|now\s+)?)?(?P<v>run|running|lead|leading|manage|managing|coordinate|coordinating|document|documenting|"
    r"own|owning|handle|handling|oversee|overseeing|support|supporting|cover|covering|head|heading|look after|looking after|work on|working on|maintain|maintaining)\s+"
    r"(?P<o>[^,;]+?)(?=\s+(?:in|out of|based|from|at the|here)\b|$)", re.I)
_EN_INDUSTRY_RE = re.compile(r"\b(" + _alt(L.EN_INDUSTRIES) + r")\b", re.I)
_EN_INDUSTRY_CTX = re.compile(r"\b(company|firm|vendor|contractor|provider|startup|industry|sector|agency|bank|hospital|plant|retailer|manufacturer|operator|group|chain|business)\b", re.I)
_EN_EDU_RE = re.compile(
    r"\b(?:graduated from|studied (?:\w+\s+){0,3}at|(?:have|got|did) an? (?P<deg>master'?s|bachelor'?s|phd|ph\.d\.|mba|degree)(?: in [\w\s]+?)? (?:from|at))\s+"
    r"(?P<u>(?:the\s+)?[A-Z][\w&.\-]*(?:\s+(?:of|[A-Z][\w&.\-]*))*)")
_EN_DIRECTIVE = re.compile(r"\b(always|never|default|by default|prefer|going forward|from now on|for any|for all|instead|everything|switch|i work in|give me|use|lives in)\b", re.I)
_EN_PREF_MARK = re.compile(r"\b(always|never|going forward|from now on|by default|default|prefer|preferably|i like|i love|i want|i'd like|i'd rather|all|any|every|everything|for good|can't stand|cannot stand|don't like|unless i say otherwise|how i want|instead|keep)\b", re.I)
_CUR = _alt(L.CURRENCIES)
_EN_PREF_TOPICS = [
    ("currency", re.compile(r"\b(?:figures|amounts|numbers|prices|everything|all|reporting|values|costs|money)\b[^.]{0,24}?\b(?:in|to)\s+(?P<v>" + _CUR + r")\b|\bswitch\b[^.]{0,24}?\bto\s+(?P<v2>" + _CUR + r")\b", re.I), "cur"),
    ("units", re.compile(r"\b(?:metric|imperial)(?: units)?\b|\bkilograms\b|\bcelsius\b|\bfahrenheit\b", re.I), "span"),
    ("rounding", re.compile(r"\bnearest (?:thousand|million|hundred|dollar|whole number|\w+)\b|\b(?:one|two|\d) decimal places?\b", re.I), "span"),
    ("spelling", re.compile(r"\b(?:British|American|UK|US|Australian|Canadian)\s+(?:English\s+)?spelling\b", re.I), "span"),
    ("punctuation", re.compile(r"\b(?:no|never use|avoid|without|skip the)\s+exclamation (?:marks|points)\b|\bexclamation (?:marks|points)\b", re.I), "span"),
    ("emoji", re.compile(r"\b(?:no|never use|without|avoid)?\s*emojis?\b", re.I), "span"),
    ("language", re.compile(r"\b(?:in|reply in|respond in|answer in|write in)\s+(?:English|Chinese|Mandarin|Spanish|French|German|Japanese|Korean)\b", re.I), "marked"),
    ("schedule", re.compile(r"\b\d{1,2}(?::\d\d)?\s*(?:am|pm)?[- ]to[- ]\d{1,2}(?::\d\d)?\s*(?:am|pm)?\s+(?:working\s+|work\s+)?(?:schedule|day|shift)\b", re.I), "span"),
    ("diet", re.compile(r"\b(?:vegetarian|vegan|halal|kosher|gluten[- ]free|pescatarian|allergic to \w+|don't eat \w+)\b", re.I), "span"),
    ("drink", re.compile(r"\b(?:coffee|tea|espresso|latte|decaf)\b", re.I), "clause"),
    ("structure", re.compile(r"\b(?:lead with|start with|(?:figures|numbers|conclusion|summary|answer|bottom line) first|tl;?dr first)\b", re.I), "clause"),
    ("format", re.compile(r"\b(?:bullet points?|bullets|tables?|numbered lists?|markdown|headings|step by step|one-pager)\b", re.I), "clause"),
    ("answer_length", re.compile(r"\b(?:short|brief|concise|detailed|in depth|in-depth|long-form|one-line|succinct)\b", re.I), "clause"),
    ("tone", re.compile(r"\b(?:second person|first person|plain English|formal|informal|casual|friendly|jargon|tone)\b", re.I), "tone"),
    ("transport", re.compile(r"\b(?:by train|take the train|window seat|aisle seat|drive to work|cycle to work|bike to work)\b", re.I), "span"),
]
_EN_FACT_EVENTS = [
    ("school", re.compile(r"\b(?:started|starts|starting|began|entered|graduated from|finished|is in|goes to)\s+(?:(?:his|her|their)\s+)?(?:first year (?:of|at)\s+)?(university|college|kindergarten|preschool|nursery|primary school|middle school|high school|elementary school|school|grade \w+|first grade)\b", re.I)),
    ("birth", re.compile(r"\b(?:had (?:a|our|my) (?:baby|son|daughter|first child|second child)|became a (?:father|mother|dad|mom|mum|parent)|was born|gave birth|welcomed (?:a|our) \w+)\b", re.I)),
    ("marriage", re.compile(r"\b(?:got married|married|got engaged|got divorced)\b", re.I)),
    ("relocation", re.compile(r"\b(?:moved|relocated)\s+(?:here\s+|back\s+)?(?:to|from)\s+(?P<p>[A-Z][\w'.\-]*(?:\s+[A-Z][\w'.\-]*)*)", re.I)),
    ("graduation", re.compile(r"\bgraduated\b", re.I)),
    ("job_change", re.compile(r"\b(?:joined|retired|got promoted|was promoted)\b", re.I)),
]
_EN_RETRACT = re.compile(
    r"\b(?:I\s+)?no longer\s+(?P<v>manage|lead|run|handle|own|cover|work on|look after|support|coordinate|oversee|do)\s+(?P<o>[^,;.]+)"
    r"|\bI(?:'m| am) no longer (?:a|an|the)\s+(?P<r>[^,;.]+)"
    r"|\bI (?:don't|do not) (?P<v2>manage|lead|run|handle|own|cover) (?P<o2>[^,;.]+?) any ?more\b", re.I)


_EN_REGION_RE = re.compile(r"\b(?:live in|living in|based in|located in|moved to|relocated to|reside in)\s+(?:the\s+)?(" + _alt(L.EN_REGION_LIST) + r")\b", re.I)
_EN_WORKPLACE_RE = re.compile(r"\bI\s+(?:\w+\s+)?work\s+(?:part[- ]time\s+|full[- ]time\s+)?(?:at|in|for)\s+(?:a|an|the)\s+(?P<w>(?:[\w&'\-]+\s+){0,3}?[\w&'\-]+?)(?=\s+(?:as|in|at|and|but|so|with|for|near|downtown)\b|$)", re.I)


def _en_city(c: str, relocating: bool = False) -> str | None:
    rm = _EN_REGION_RE.search(c)
    if rm:
        return next((r for r in L.EN_REGION_LIST if r.lower() == rm.group(1).lower()), rm.group(1))
    for m in _EN_CITY_RE.finditer(c):
        before = c[max(0, m.start() - 30):m.start()]
        if _EN_CITY_BAD_BEFORE.search(before):
            continue
        after = c[m.end():m.end() + 12]
        if relocating or re.search(r"\b(in|based in|out of|at|of|to|here in|live in|living in|located in)\s+(?:our\s+|the\s+)?$", before, re.I) \
                or re.match(r"\s+(office|plant|site|HQ|headquarters|branch|team|campus|hub|centre|center)\b", after, re.I):
            return m.group(1)
    return None


def _en_profile(c: str, lang: str, out: list) -> None:
    rel = re.search(r"\b(?:relocated|moved|transferred)\s+(?:back\s+)?to\s+", c, re.I)
    city = _en_city(c[rel.end():], True) if rel else _en_city(c)
    if city:
        out.append(_cand("profile", "city", city, lang))
    m = _EN_TITLE_RE.search(c)
    if m:
        t = (m.group("t") or m.group("t2") or m.group("t3")).strip()
        hm = re.search(r"\bI(?:'m| am)\s+(?:the\s+|an?\s+)?((?:head|director|VP|vp|manager) of [A-Za-z&]+)", c)
        if hm:
            t = hm.group(1)
        nxt = re.match(r"\s+(" + _alt(L.EN_TITLE_NOUNS) + r")\b", c[m.end("t" if m.group("t") else ("t2" if m.group("t2") else "t3")):], re.I)
        if nxt:
            t += " " + nxt.group(1)
        out.append(_cand("profile", "role", t, lang))
        sen = next((s for s in L.EN_SENIORITY if t.lower().startswith(s + " ")), None)
        if sen:
            out.append(_cand("profile", "seniority", sen, lang))
        dm = re.search(r"\bon the ([\w&\- ]{2,40}? team)\b|\bin (?:the |our )?(?:[A-Z][\w]+ )?([\w&\- ]{2,30}? (?:centre|center|department|division))\b", c)
        if dm:
            dep = dm.group(1) or dm.group(2)
            if city:
                dep = dep.replace(city + " ", "")
            out.append(_cand("profile", "department", dep, lang))
    r = _EN_RESP_RE.search(c)
    if r and not re.match(r"(a|an|the)\s+\w+$", r.group("o"), re.I) or (r and r.group("o").lower().startswith("the ")):
        o = r.group("o").strip()
        if city:
            o = re.sub(r"\s+(?:in|out of|at)\s+(?:the\s+|our\s+)?" + re.escape(city) + r".*$", "", o)
        out.append(_cand("profile", "responsibility", (r.group("v") + " " + o).strip(), lang))
    ind = _EN_INDUSTRY_RE.search(c)
    if ind and _EN_INDUSTRY_CTX.search(c):
        out.append(_cand("profile", "industry", ind.group(1).lower(), lang))
    e = _EN_EDU_RE.search(c)
    if e:
        out.append(_cand("profile", "education", e.group("u"), lang))
    w = _EN_WORKPLACE_RE.search(c)
    if w and not _TOOLS_RE.search(w.group("w")) and not (city and city in w.group("w")):
        out.append(_cand("profile", "company", w.group("w"), lang))


def _extract_en(text: str, at: _dt.datetime, out: list) -> None:
    subject = None
    for sent, clauses in _split_en(text):
        tm = re.search(r"\b(?:when I say|by)\s+[\"'“]?(?P<t>[\w\- ]{1,30}?)[\"'”]?,?\s+I mean\s+(?P<d>[^.!?]+)", sent, re.I)
        if tm and not sent.rstrip().endswith("?"):
            out.append(_cand("preference", "pref:terminology:" + tm.group("t").lower(), tm.group("d"), "en"))
            continue
        if sent.rstrip().endswith("?"):
            keep = []
            for cl in clauses[:-1]:
                cl2 = _strip_discourse(cl, _EN_DISCOURSE)
                if not re.match(r"^(i|i'm|i've|my|we)\b", cl2, re.I) or re.match(r"^i\s+(wonder|was wondering)\b", cl2, re.I):
                    break
                keep.append(cl)
            if not keep:
                continue
            clauses = keep
        for raw in clauses:
            c = _strip_discourse(raw, _EN_DISCOURSE)
            if not c:
                continue
            s = _en_subject(c)
            if s is not None:
                subject = s
            if _EN_HYPO.search(c):
                break
            if _EN_EMOTION.search(c) or _PII_LIKE.search(c):
                continue
            subj = subject or "none"
            if subj == "self" or subj.startswith("family:") or subj == "none":
                _en_fact(c, subj, at, out)
            if _EN_TEMP.search(c) or _PROJECT.search(c) or _EN_PAST.search(c):
                continue
            if subj == "other" or subj.startswith("family:"):
                continue
            r = _EN_RETRACT.search(c)
            if r and subj in ("self", "none"):
                if r.group("r"):
                    out.append(_cand("profile", "role", r.group("r"), "en", operation="retract"))
                else:
                    obj = r.group("o") or r.group("o2")
                    out.append(_cand("profile", "responsibility", obj, "en", operation="retract"))
                continue
            used = _tool_prefs(c, sent, "en", out, _EN_DIRECTIVE)
            got_pref = bool(used) and bool(out) and out[-1].kind == "preference" and out[-1].value.lower() in used
            marked = _EN_PREF_MARK.search(c) or _EN_PREF_MARK.search(sent)
            if not got_pref and subj in ("self", "you", "none", "we"):
                for key, rx, mode in _EN_PREF_TOPICS:
                    m = rx.search(c)
                    if not m or (not marked and mode not in ("cur", "span")) or (not marked and key in ("emoji", "drink", "transport")):
                        continue
                    if mode == "marked":
                        mode = "span"
                    if mode == "cur":
                        v = m.group("v") or m.group("v2")
                        v = L.CURRENCIES.get(v, L.CURRENCIES.get(v.lower(), v.upper()))
                    elif mode == "span":
                        v = m.group(0).strip()
                    elif mode == "tone":
                        v = ", ".join(dict.fromkeys(x.group(0) for x in rx.finditer(c)))
                    else:
                        v = re.sub(r"^(?:and|also|please|so)\s+", "", c, flags=re.I)[:80]
                    out.append(_cand("preference", "pref:" + key, v, "en"))
                    got_pref = True
                    break
            if got_pref or subj == "you":
                continue
            neg = _EN_NEG.search(c)
            if subj in ("self", "none") and not neg:
                _en_profile(c, "en", out)
            if (subj in ("self", "we") or re.match(r"(mostly|mainly|primarily|largely|also)\b", c, re.I)) and not neg:
                _skills(c, "en", out, used)


def _en_fact(c: str, subj: str, at, out: list) -> None:
    if _EN_TEMP.search(c) and not re.search(r"\bthis month\b", c, re.I):
        return
    for topic, rx in _EN_FACT_EVENTS:
        m = rx.search(c)
        if not m:
            continue
        d = _resolve_date_en(c, at)
        if not d:
            return
        member = subj.split(":", 1)[1] if subj.startswith("family:") else ""
        if topic == "relocation":
            value = re.sub(r"\s+(?:about|around|some|nearly|almost|over)$", "", m.group(0).replace(" here", "").replace(" back", ""))
            value = re.sub(r"\s+(?:about|around)\b.*$", "", value)
        else:
            value = (member + " " if member else "") + m.group(0)
        key = "fact:" + topic + (":" + member if member else "")
        out.append(_cand("fact", key, value, "en", d[0], d[1]))
        return


# --------------------------------------------------------------------------- entry point
def extract_candidates(text: str, *, at: _dt.datetime, lang: str | None = None) -> list[Candidate]:
    """Extract memory candidates from ONE user message.

    Inputs: ``text`` -- the raw user message; ``at`` -- when it was sent (used to resolve
    relative dates such as 去年 / last fall); ``lang`` -- "zh" or "en", detected when None.
    Output: a list of :class:`Candidate` (possibly empty), de-duplicated by (kind, key); when
    a key is stated twice in the message the values are joined (preferences) or the last one
    wins (others). Returns [] for empty input, for messages carrying an injected instruction
    (:func:`detect_injection`) and when nothing matches the policy.
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
    (_extract_zh if lang == "zh" else _extract_en)(text, at, raw)
    merged: dict[tuple[str, str], Candidate] = {}
    for cd in raw:
        k = (cd.kind, cd.key)
        prev = merged.get(k)
        if prev and cd.kind == "preference" and cd.operation == prev.operation and cd.value not in prev.value \
                and not cd.key.startswith(("pref:tool", "pref:code_language", "pref:currency")):
            sep = "，" if cd.lang == "zh" else "; "
            cd = _cand(cd.kind, cd.key, prev.value + sep + cd.value, cd.lang, cd.fact_date, None, cd.operation)
        elif prev and prev.value == cd.value:
            continue
        merged.pop(k, None)
        merged[k] = cd
    return list(merged.values())
