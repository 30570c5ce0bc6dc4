"""The key registry: every memory key the product may store, in one place.

Each :class:`KeySpec` says what a key is (``kind`` and ``name``), how its stored key string is
built (``prefix``), whether several values coexist (``merge``), its zh/en labels, and whether a
change of value asks the user to confirm. Readers: the extraction policy and rules
(:mod:`consolidation.extraction_common`), the trained extractor's labels
(:mod:`consolidation.extractor`), the LLM prompt and its JSON validation
(:mod:`consolidation.llm_refiner`), consolidation's merge rules (:mod:`consolidation.consolidate`),
self-correction (:mod:`consolidation.policy`) and rendering (MEMORY.md, candidate lines).

Merge rules (``merge``):

* ``latest`` -- one current value; a newer statement supersedes the older one (role, city);
* ``set``    -- values coexist, one item per value; the stored key carries the value
  (``skill:python``, ``pref:hobby:hiking``); a retraction names the value it removes;
* ``event``  -- dated facts: several of one key stand side by side (two relocations); the same
  event said again is one item and keeps the date first given.

Stored key strings: profile ``<name>[:<sub>]``; preference ``pref:<name>[:<sub>]``; fact
``fact:<name>[:<sub>]``. Rule source: the product policy (README "What is remembered") and
issue 13 ("One key registry").

Question words (``synonyms_zh`` / ``synonyms_en``): how people ask about a key ("where does the
user live", "住在哪", "做什么的"). :func:`query_keys` finds them, and the key's own labels, in a
search query, so ``memory_search`` can match the key as well as the value (issue 17). English
phrases match whole words, case-insensitively; ``*`` stands for up to three words and a final
``$`` means the phrase ends the question. Chinese phrases match anywhere.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = ("profile", "preference", "fact")


@dataclass(frozen=True)
class KeySpec:
    """One registered key. ``name`` is unique within ``kind``; ``label_zh`` / ``label_en`` are the
    labels shown to users and agents; ``learned`` marks the keys the trained extractor predicts;
    ``synonyms_zh`` / ``synonyms_en`` are the words of a question about the key (module docstring)."""

    kind: str
    name: str
    label_zh: str
    label_en: str
    merge: str = "latest"
    confirm: bool = False
    learned: bool = False
    synonyms_zh: tuple[str, ...] = ()
    synonyms_en: tuple[str, ...] = ()

    @property
    def prefix(self) -> str:
        """The stored key's first part: ``role``, ``pref:format``, ``fact:relocation``."""
        return {"profile": "", "preference": "pref:", "fact": "fact:"}[self.kind] + self.name

    @property
    def label(self) -> str:
        """The classifier's label for this key: ``<kind>/<name>``."""
        return f"{self.kind}/{self.name}"


def _words(phrases: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in phrases.split("|") if p.strip())


def _p(name, zh, en, merge="latest", confirm=False, learned=True, ask_zh="", ask_en=""):
    return KeySpec("profile", name, zh, en, merge, confirm, learned, _words(ask_zh), _words(ask_en))


def _pref(name, zh, en, merge="latest", learned=False, ask_zh="", ask_en=""):
    return KeySpec("preference", name, zh, en, merge, False, learned, _words(ask_zh), _words(ask_en))


def _f(name, zh, en, learned=True, ask_zh="", ask_en=""):
    return KeySpec("fact", name, zh, en, "event", False, learned, _words(ask_zh), _words(ask_en))


REGISTRY: tuple[KeySpec, ...] = (
    _p("role", "职位", "Role", confirm=True,
       ask_zh="做什么的|做什么工作|干什么的|什么工作|职业|岗位|职务|头衔|工作是什么",
       ask_en="job|jobs|occupation|profession|position|job title|for a living|work as|works as|what does * do $|"
              "what do * do $"),
    _p("department", "部门", "Department", confirm=True, ask_zh="部门|哪个组|团队", ask_en="department|division"),
    _p("company", "公司", "Company", confirm=True,
       ask_zh="公司|单位|雇主|东家|就职|上班|在哪工作|在哪儿工作|在哪里工作|哪家",
       ask_en="company|employer|firm|organisation|organization|work for|works for|work at|works at|"
              "employed|where * work|where * works"),
    _p("industry", "行业", "Industry", ask_zh="行业|哪行|领域", ask_en="industry|sector|line of work"),
    _p("city", "城市", "City", confirm=True,
       ask_zh="住在|住哪|住的|居住|哪个城市|什么城市|在哪生活|在哪里生活|家在哪|坐标|常驻",
       ask_en="live|lives|reside|resides|based|city|town|located"),
    _p("skill", "技能", "Skill", merge="set", ask_zh="技能|擅长|特长|会什么|会哪些|会用",
       ask_en="skill|skills|good at|expertise|proficient|know how to"),
    _p("education", "教育背景", "Education",
       ask_zh="学历|教育|学位|毕业于|哪个学校|哪所大学|什么大学|大学|专业",
       ask_en="education|degree|degrees|university|college|studied|study|major|diploma|qualification|"
              "qualifications"),
    _p("seniority", "职级", "Seniority", ask_zh="职级|级别|资历|资深", ask_en="seniority|senior|level|grade"),
    _p("language", "语言能力", "Languages", merge="set", ask_zh="语言|外语|会说|会讲|说什么话|讲什么话",
       ask_en="language|languages|speak|speaks|spoken|fluent|bilingual"),
    _p("responsibility", "负责", "Responsibility", ask_zh="负责|职责|分管|管什么",
       ask_en="responsible|responsibility|responsibilities|in charge|oversee|oversees"),
    _pref("answer_length", "回答长度", "answer length", learned=True, ask_zh="多长|篇幅|长度|简短|详细",
          ask_en="length|how long|brief|concise|verbose|detailed"),
    _pref("format", "格式", "format", learned=True, ask_zh="格式|排版", ask_en="format|formatting|layout"),
    _pref("tone", "语气", "tone", learned=True, ask_zh="语气|口吻|正式|随意", ask_en="tone|formal|casual"),
    _pref("language", "语言", "language", learned=True, ask_zh="回复语言|用什么语言|用中文|用英文",
          ask_en="reply in|answer in|respond in|which language"),
    _pref("tool", "工具", "tool", learned=True, ask_zh="工具|软件", ask_en="tool|tools|software|app"),
    _pref("code_language", "编程语言", "code language", learned=True, ask_zh="编程语言|写代码用|代码用",
          ask_en="programming language|coding language|code in"),
    _pref("units", "单位", "units", learned=True, ask_zh="公制|英制|计量单位|度量", ask_en="units|metric|imperial"),
    _pref("instruction", "长期要求", "standing instruction", merge="set", learned=True, ask_zh="要求|规矩",
          ask_en="instruction|instructions|always|never"),
    _pref("diet", "饮食", "diet", merge="set", learned=True, ask_zh="饮食|忌口|吃什么|吃素|不吃|口味",
          ask_en="diet|eat|eats|food|vegetarian|vegan|meat"),
    _pref("drink", "饮品", "drink", merge="set", learned=True, ask_zh="喝什么|喝的|饮品|饮料|咖啡",
          ask_en="drink|drinks|beverage|coffee|tea"),
    _pref("hobby", "爱好", "hobby", merge="set", learned=True, ask_zh="爱好|兴趣|业余|空闲|闲暇|消遣|运动",
          ask_en="hobby|hobbies|free time|spare time|pastime|pastimes|interests|for fun|weekends|sport|sports"),
    _pref("structure", "结构", "structure"),
    _pref("currency", "货币", "currency", ask_zh="币种", ask_en="money"),
    _pref("rounding", "取整", "rounding", ask_zh="小数", ask_en="decimals|decimal places"),
    _pref("code_completeness", "代码完整性", "code completeness"),
    _pref("code_comments", "代码注释", "code comments", ask_zh="注释", ask_en="comments"),
    _pref("citation", "引用", "citations", ask_zh="出处|来源", ask_en="citation|sources|references"),
    _pref("terminology", "术语", "terminology", ask_zh="叫法|称呼", ask_en="term|terms|wording"),
    _pref("transport", "出行", "transport", ask_zh="通勤|交通|怎么上班",
          ask_en="commute|commutes|transport|get to work|gets to work|travel"),
    _pref("schedule", "作息", "schedule", ask_zh="几点睡|几点起|早睡|晚睡", ask_en="routine|sleep|wake up"),
    _pref("spelling", "拼写", "spelling"),
    _pref("punctuation", "标点", "punctuation"),
    _pref("emoji", "表情符号", "emoji", ask_zh="表情", ask_en="emojis"),
    _pref("filler", "客套与免责声明", "filler", ask_zh="客套|免责声明", ask_en="disclaimers|pleasantries"),
    _pref("date_format", "日期格式", "date format", ask_en="dates"),
    _pref("number_format", "数字写法", "number format", ask_en="numbers"),
    _pref("sort_order", "排序", "sort order", ask_en="sort|sorted|order"),
    _pref("grouping", "分组", "grouping", ask_en="group|grouped"),
    _pref("visual_style", "风格", "style"),
    _pref("content", "内容", "content"),
    _pref("answer_style", "回答风格", "answer style", ask_zh="怎么回答", ask_en="how to answer"),
    _f("relocation", "迁居", "relocation", ask_zh="搬家|搬到|搬来|搬过|迁到",
       ask_en="move|moved|moving|relocate|relocated"),
    _f("job_change", "工作变动", "job change", ask_zh="换工作|跳槽|入职|离职|换过",
       ask_en="changed jobs|change jobs|new job|switched jobs|quit"),
    _f("certificate", "证书与考试", "certificate", ask_zh="证书|考试|考过|认证|资格证",
       ask_en="certificate|certificates|certification|certified|exam|exams"),
    _f("graduation", "毕业", "graduation", ask_zh="毕业", ask_en="graduate|graduated"),
    _f("birth", "生育", "birth", ask_zh="孩子|小孩|宝宝|儿子|女儿|出生|生了",
       ask_en="child|children|kid|kids|baby|babies|son|daughter|born"),
    _f("marriage", "婚姻", "marriage", ask_zh="结婚|已婚|配偶|老公|老婆|丈夫|妻子",
       ask_en="married|wedding|spouse|wife|husband"),
    _f("school", "就学", "schooling", ask_zh="上学|就读|读书|学校", ask_en="school|student|studying"),
    _f("award", "获奖", "award", ask_zh="得奖|奖项", ask_en="awards|prize|prizes|won"),
    _f("home", "置业", "home", ask_zh="买房|房子|购房", ask_en="house|flat|apartment|mortgage"),
    KeySpec("fact", "pet", "宠物", "pet", "set", False, False,  # undated, several coexist
            _words("养了|养狗|养猫|狗|猫"), _words("pets|dog|dogs|cat|cats")),
)

_BY_KIND_NAME = {(s.kind, s.name): s for s in REGISTRY}


_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def _question_index() -> tuple[dict, dict, list, dict]:
    """Question words by shape, each mapped to the indexes (in REGISTRY) of the keys they ask about:
    English single words, English phrases, English patterns (``*``/``$``) and Chinese phrases."""
    words: dict[str, set[int]] = {}
    phrases: dict[str, set[int]] = {}
    patterns: dict[str, set[int]] = {}
    zh: dict[str, set[int]] = {}
    for i, spec in enumerate(REGISTRY):
        for p in {spec.label_en.lower(), *(x.lower() for x in spec.synonyms_en)}:
            toks = p.split()
            if "*" in toks or toks[-1] == "$":
                end = toks[-1] == "$"
                # Tokens are single-space separated: "*" takes up to three whole words.
                body = "".join(r"(?:\S+ ){0,3}" if t == "*" else re.escape(t) + " " for t in toks[: -1 if end else None])
                patterns.setdefault(r"(?<!\S)" + body[:-1] + ("$" if end else r"(?!\S)"), set()).add(i)
            else:
                (words if len(toks) == 1 else phrases).setdefault(" ".join(toks), set()).add(i)
        for p in {spec.label_zh, *spec.synonyms_zh}:
            zh.setdefault(p, set()).add(i)
    compiled = [(re.compile(rx), ids) for rx, ids in patterns.items()]
    return words, phrases, compiled, zh


_Q_WORDS, _Q_PHRASES, _Q_PATTERNS, _Q_ZH = _question_index()
LEARNED_LABELS: tuple[str, ...] = tuple(s.label for s in REGISTRY if s.learned)
CONFIRM_NAMES = frozenset(s.name for s in REGISTRY if s.kind == "profile" and s.confirm)


def key_name(*, kind: str, key: str) -> str:
    """The registered name of a stored key: ``skill:python`` → ``skill``, ``pref:tool:bi`` → ``tool``,
    ``fact:birth:女儿`` → ``birth``. Pure string work (lower-cased); never raises."""
    parts = (key or "").strip().lower().split(":")
    if kind in ("preference", "fact") and parts and parts[0] in ("pref", "fact"):
        parts = parts[1:]
    return parts[0] if parts else ""


def key_spec(*, kind: str, key: str) -> KeySpec | None:
    """The :class:`KeySpec` for a stored key string (any ``:<sub>`` suffix allowed), or None when
    the registry lacks it. A preference or fact key must carry its ``pref:`` / ``fact:`` prefix."""
    key = (key or "").strip().lower()
    if kind == "preference" and not key.startswith("pref:"):
        return None
    if kind == "fact" and not key.startswith("fact:"):
        return None
    if kind == "profile" and key.startswith(("pref:", "fact:")):
        return None
    return _BY_KIND_NAME.get((kind, key_name(kind=kind, key=key)))


def spec_for_label(label: str) -> KeySpec:
    """The spec for a classifier label ``<kind>/<name>``. Raises KeyError when unknown."""
    kind, _, name = label.partition("/")
    return _BY_KIND_NAME[(kind, name)]


def value_slug(value: str) -> str:
    """The part of a ``set``/``event`` key that names the value: lower-cased, spaces to ``_``,
    punctuation dropped, at most 32 characters (CJK kept). ``"Oolong tea"`` → ``oolong_tea``."""
    v = re.sub(r"[^\w\u4e00-\u9fff+#]+", "_", (value or "").strip().lower()).strip("_")
    return v[:32] or "x"


def stored_key(spec: KeySpec, value: str, sub: str = "") -> str:
    """The key string to store for ``value`` under ``spec``: ``role``, ``skill:python``,
    ``pref:hobby:hiking``, ``fact:relocation:toronto``. ``sub`` overrides the value slug (e.g. the
    rules' tool category). The result fits ``MemoryItem.key`` (64 characters)."""
    if sub:
        return f"{spec.prefix}:{sub}"[:64]
    if spec.merge in ("set", "event"):
        return f"{spec.prefix}:{value_slug(value)}"[:64]
    return spec.prefix


def key_label(*, kind: str, key: str, lang: str) -> str:
    """The user-facing label of a stored key in ``lang`` ("zh" or anything else for English);
    an unregistered key falls back to its name."""
    spec = key_spec(kind=kind, key=key)
    if spec is None:
        return key_name(kind=kind, key=key)
    return spec.label_zh if lang == "zh" else spec.label_en


def query_keys(text: str) -> tuple[KeySpec, ...]:
    """The registered keys a search query asks about, in registry order: those whose zh/en label or
    one of whose question words (``synonyms_zh`` / ``synonyms_en``) occurs in ``text``
    ("where does the user live" → city; "他是做什么的" → role). Pure string work (set look-ups and
    substring tests, some microseconds); never raises; empty for an empty or unrelated text."""
    low = (text or "").lower()
    found: set[int] = set()
    toks = _WORD.findall(low)
    if toks:
        joined = " ".join(toks)
        padded = f" {joined} "
        for t in toks:
            found |= _Q_WORDS.get(t, set())
        for phrase, ids in _Q_PHRASES.items():
            if f" {phrase} " in padded:
                found |= ids
        for rx, ids in _Q_PATTERNS:
            if rx.search(joined):
                found |= ids
    if _CJK_CHAR.search(low):
        for phrase, ids in _Q_ZH.items():
            if phrase in low:
                found |= ids
    return tuple(REGISTRY[i] for i in sorted(found))
