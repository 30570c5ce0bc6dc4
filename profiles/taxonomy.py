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
"""
from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = ("profile", "preference", "fact")


@dataclass(frozen=True)
class KeySpec:
    """One registered key. ``name`` is unique within ``kind``; ``label_zh`` / ``label_en`` are the
    labels shown to users and agents; ``learned`` marks the keys the trained extractor predicts."""

    kind: str
    name: str
    label_zh: str
    label_en: str
    merge: str = "latest"
    confirm: bool = False
    learned: bool = False

    @property
    def prefix(self) -> str:
        """The stored key's first part: ``role``, ``pref:format``, ``fact:relocation``."""
        return {"profile": "", "preference": "pref:", "fact": "fact:"}[self.kind] + self.name

    @property
    def label(self) -> str:
        """The classifier's label for this key: ``<kind>/<name>``."""
        return f"{self.kind}/{self.name}"


def _p(name, zh, en, merge="latest", confirm=False, learned=True):
    return KeySpec("profile", name, zh, en, merge, confirm, learned)


def _pref(name, zh, en, merge="latest", learned=False):
    return KeySpec("preference", name, zh, en, merge, False, learned)


def _f(name, zh, en, learned=True):
    return KeySpec("fact", name, zh, en, "event", False, learned)


REGISTRY: tuple[KeySpec, ...] = (
    _p("role", "职位", "Role", confirm=True),
    _p("department", "部门", "Department", confirm=True),
    _p("company", "公司", "Company", confirm=True),
    _p("industry", "行业", "Industry"),
    _p("city", "城市", "City", confirm=True),
    _p("skill", "技能", "Skill", merge="set"),
    _p("education", "教育背景", "Education"),
    _p("seniority", "职级", "Seniority"),
    _p("language", "语言能力", "Languages", merge="set"),
    _p("responsibility", "负责", "Responsibility"),
    _pref("answer_length", "回答长度", "answer length", learned=True),
    _pref("format", "格式", "format", learned=True),
    _pref("tone", "语气", "tone", learned=True),
    _pref("language", "语言", "language", learned=True),
    _pref("tool", "工具", "tool", learned=True),
    _pref("code_language", "编程语言", "code language", learned=True),
    _pref("units", "单位", "units", learned=True),
    _pref("instruction", "长期要求", "standing instruction", merge="set", learned=True),
    _pref("diet", "饮食", "diet", merge="set", learned=True),
    _pref("drink", "饮品", "drink", merge="set", learned=True),
    _pref("hobby", "爱好", "hobby", merge="set", learned=True),
    _pref("structure", "结构", "structure"),
    _pref("currency", "货币", "currency"),
    _pref("rounding", "取整", "rounding"),
    _pref("code_completeness", "代码完整性", "code completeness"),
    _pref("code_comments", "代码注释", "code comments"),
    _pref("citation", "引用", "citations"),
    _pref("terminology", "术语", "terminology"),
    _pref("transport", "出行", "transport"),
    _pref("schedule", "作息", "schedule"),
    _pref("spelling", "拼写", "spelling"),
    _pref("punctuation", "标点", "punctuation"),
    _pref("emoji", "表情符号", "emoji"),
    _pref("filler", "客套与免责声明", "filler"),
    _pref("date_format", "日期格式", "date format"),
    _pref("number_format", "数字写法", "number format"),
    _pref("sort_order", "排序", "sort order"),
    _pref("grouping", "分组", "grouping"),
    _pref("visual_style", "风格", "style"),
    _pref("content", "内容", "content"),
    _pref("answer_style", "回答风格", "answer style"),
    _f("relocation", "迁居", "relocation"),
    _f("job_change", "工作变动", "job change"),
    _f("certificate", "证书与考试", "certificate"),
    _f("graduation", "毕业", "graduation"),
    _f("birth", "生育", "birth"),
    _f("marriage", "婚姻", "marriage"),
    _f("school", "就学", "schooling"),
    _f("award", "获奖", "award"),
    _f("home", "置业", "home"),
    KeySpec("fact", "pet", "宠物", "pet", "set", False, False),  # undated, several coexist
)

_BY_KIND_NAME = {(s.kind, s.name): s for s in REGISTRY}
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
