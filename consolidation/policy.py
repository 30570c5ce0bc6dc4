"""The memory policy as applied to stored items (consolidation's self-correction).

Extraction (``consolidation.extraction_rules``) decides what may *enter* the
journal; this module re-checks what *is* in memory, so items that older rule
versions, imports or admin edits let in are removed at the next consolidation.
Rules are generic — word lists, shapes of values — never tied to a test case.

Allowed memory (product policy, README "Pipeline"): ``profile`` items with a key
of the families in :data:`PROFILE_KEY_FAMILIES`; ``preference`` items (keys
``pref:<topic>[:<sub>]``; a bare topic is normalised by :func:`merge_key`);
``fact`` items (keys ``fact:<topic>[:<member>]``) that keep their ``fact_date``.

Not memory: project details (code names, ticket/bug ids, deadlines), knowledge-base
content (prices, limits, policy figures), tool output, emotion, temporary plans
and injected instructions. :func:`item_policy_violation` returns a reason code for
the first rule an item breaks, or ``None``.
"""

from __future__ import annotations

import re

import importlib

from profiles.taxonomy import KINDS as TAXONOMY_KINDS, REGISTRY, key_spec

# Key families allowed for profile items (the part before the first ':'): the key registry's.
PROFILE_KEY_FAMILIES = frozenset(s.name for s in REGISTRY if s.kind == "profile")
KINDS = frozenset(TAXONOMY_KINDS)



def _from_extraction(name: str):
    # Reuse the extraction rules' own word lists where they exist (same words, same
    # behaviour); looked up by name across the extraction modules so this module stays
    # importable while those are reorganised.
    for mod in ("extraction_zh", "extraction_en", "extraction_common", "extraction_rules"):
        try:
            found = getattr(importlib.import_module(f"consolidation.{mod}"), name, None)
        except ImportError:
            continue
        if found is not None:
            return found
    return None


_EMOTION = [rx for rx in (_from_extraction("_ZH_EMOTION"), _from_extraction("_EN_EMOTION")) if rx is not None]
_BARE_WEEKEND = re.compile(r"(?<![这本下上个每])周末")
_TEMPORARY = [rx for rx in (_from_extraction("_ZH_TEMP"), _from_extraction("_EN_TEMP")) if rx is not None]
_detect_injection = _from_extraction("detect_injection") or (lambda text: False)

_CURRENCY_WORDS = r"元|块钱?|美元|欧元|英镑|日元|港币|人民币|万元|亿元|USD|EUR|GBP|RMB|CNY|AUD|SGD|HKD|JPY|dollars?|euros?|pounds?|yuan"
# An amount with a currency or a percentage: "650元", "$30", "30 USD", "15%".
_AMOUNT = re.compile(
    r"[£$€¥￥]\s*\d|\b(?:USD|EUR|GBP|RMB|CNY|AUD|SGD|HKD|JPY)\s*\d|\d[\d,]*(?:\.\d+)?\s*(?:%|％|" + _CURRENCY_WORDS + r")",
    re.I,
)
# An id-like token: ticket / bug / order numbers ("ABC-1234", "#4521", "bug 123").
_ID_TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Z0-9]{1,9}-\d{3,}(?!\d)|#\d{2,}|\b(?:bug|ticket|issue|工单)\s*#?\d{2,}", re.I)
# Deadlines: a deadline word, or a calendar date in a non-fact item (a chain such as 30/60/90 is a set
# of buckets, not a date).
_DEADLINE_WORD = re.compile(r"\b(?:deadline|due\s+(?:by|on|date)|ddl|eta)\b|截止|截至|到期|之前(?:交|提交|完成|上线)|提测|上线|交付日", re.I)
_DATE = re.compile(
    r"\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b|\b(?<!/)\d{1,2}/\d{1,2}\b(?!/)|\d{1,2}月\d{1,2}[日号]"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\b",
    re.I,
)
# Project code names: "Project Phoenix", 「凤凰」项目, 项目代号, sprint/milestone words.
_PROJECT = re.compile(
    r"(?-i:\bProject\s+[A-Z][\w-]+)|[\"“「『][^\"”」』]{1,12}[\"”」』]\s*项目|项目代号|代号|\bsprint\s*\d+|\bmilestone\b|一期|二期|三期",
    re.I,
)
# Knowledge-base figures: a limit / quota / allowance word near a number.
_KB_FIGURE = re.compile(
    r"(?:上限|下限|额度|限额|标准|报销|补贴|审批|起订|免费|价格|报价|单价|费率|limit|cap|quota|allowance|reimburs\w*|per\s+diem|price|pricing|fee|rate)"
    r"[^。；;\n]{0,12}?\d|\d[^。；;\n]{0,6}?(?:上限|下限|额度|限额|以内报销|封顶)",
    re.I,
)
# Tool output: JSON / code / logs pasted into memory.
_TOOL_OUTPUT = re.compile(r"^\s*[{\[<]|Traceback \(most recent call last\)|\b(?:HTTP/\d|status code|stack trace)\b|```|\b\w+Error:|\bexit code\b", re.I)


def merge_key(*, kind: str, key: str) -> str:
    """The key items merge on: one current value per ``(kind, merge_key)``.

    Preferences merge by topic — ``pref:<topic>[:<sub>]``; a bare ``answer_style``
    becomes ``pref:answer_style``. Facts are ``fact:<topic>[:<member>]``. Keys are
    stripped and lower-cased (the member part of a fact keeps its script). Returns str.
    """
    key = (key or "").strip()
    if kind == "preference" and not key.lower().startswith("pref:"):
        key = "pref:" + key
    elif kind == "fact" and not key.lower().startswith("fact:"):
        key = "fact:" + key
    return key.lower()


def key_family(*, kind: str, key: str) -> str:
    """The family of a key: ``city`` for ``city``, ``skill`` for ``skill:python``, ``pref`` / ``fact`` for the others."""
    return merge_key(kind=kind, key=key).split(":", 1)[0]


def item_policy_violation(*, kind: str, key: str, value: str, text: str = "") -> str | None:
    """Why an item does not belong in long-term memory, or ``None`` when it does.

    Inputs: the item's ``kind`` (profile/preference/fact), ``key``, ``value`` and
    rendered ``text``. Returns a reason code: ``kind``, ``key_family``, ``injection``,
    ``tool_output``, ``amount`` (amount with currency or a percentage), ``id_token``
    (ticket/bug ids), ``deadline``, ``project``, ``kb_figure``, ``emotion``,
    ``temporary`` (profile/preference only: facts carry their own dates). Never raises.
    Rule source: the memory policy in consolidation/extraction_rules.py and issue #5.
    """
    value, text = value or "", text or ""
    if kind not in KINDS:
        return "kind"
    if key_spec(kind=kind, key=merge_key(kind=kind, key=key)) is None:
        return "key_family"  # not in the key registry (profiles.taxonomy)
    both = f"{value}\n{text}"
    if _detect_injection(both):
        return "injection"
    if _TOOL_OUTPUT.search(value) or _TOOL_OUTPUT.search(text):
        return "tool_output"
    if _AMOUNT.search(both):
        return "amount"
    if _ID_TOKEN.search(both):
        return "id_token"
    # A fact's text renders its own date ("…（2026年9月）"): look for dates in its value only.
    if _DEADLINE_WORD.search(both) or _DATE.search(value if kind == "fact" else both):
        return "deadline"
    if _PROJECT.search(both):
        return "project"
    if _KB_FIGURE.search(both):
        return "kb_figure"
    if any(rx.search(value) for rx in _EMOTION):
        return "emotion"
    if kind == "preference":
        # A weekend in a preference is a habit ("周末别推送工作提醒", "周末爬山"); only a deictic one
        # ("这个周末", "下周末") makes it a plan.
        value = _BARE_WEEKEND.sub("每周末", value)
    if kind != "fact" and any(rx.search(value) for rx in _TEMPORARY):
        return "temporary"
    return None
