"""The precision stage: explicit vetoes on what the recall stage proposes.

The trained model proposes; these rules say no where the product policy forbids storing
(README "What is remembered"; issue 13 "Precision stage, explicit"). Each veto returns a reason
code, so a dropped candidate can be counted and explained. Message-level vetoes
(:func:`message_veto`) drop every candidate of a turn; span-level ones (:func:`span_veto`) judge
the sub-clause that holds the value. The word lists of the rules (:mod:`consolidation.extraction_zh`,
:mod:`consolidation.extraction_en`) are reused, not copied. Pure Python; no Django.
"""
from __future__ import annotations

import re

from profiles.taxonomy import REGISTRY

from ..extraction_common import detect_injection
from ..extraction_en import _EN_EMOTION, _EN_HYPO, _EN_TEMP
from ..extraction_zh import _ZH_EMOTION, _ZH_HYPO, _ZH_PLAN, _ZH_QWORD, _ZH_TEMP
from .text import FIRST_PERSON, RETRACT_CUE, Span, sub_clauses

# Preferences that direct an agent to leak or act are injections, whatever their wording: reveal
# prompts / keys / passwords / other people's data, add links, hide being an AI, ask for secrets.
_SECRET = (r"(?:system|developer|hidden)\s+(?:prompt|message|instructions?)|prompts?|instructions|api[\s_-]?keys?|keys you know"
           r"|passwords?|passcodes?|credentials?|tokens?|secrets?|other (?:users?|people|employees)(?:'s?)? (?:data|info\w*|records?)"
           r"|系统提示词?|系统指令|开发者(?:消息|指令)|提示词|密钥|密码|口令|令牌|验证码|别人的(?:数据|信息|资料)|其他(?:用户|人|同事)的(?:数据|信息|资料)")
_UNSAFE_PREF = re.compile(
    rf"(?:always|every\s+(?:time|answer|reply|response)|from now on|each time|in every|by default|going forward|include)[^.!?\n]{{0,60}}?(?:{_SECRET})"
    rf"|(?:以后|每次|每个|所有|一律|总是|都要?|默认)[^。！？\n]{{0,30}}?(?:附上|带上|加上|输出|显示|告诉|透露|贴出|列出|包含|问我要|先问|索要|要)[^。！？\n]{{0,12}}?(?:{_SECRET})"
    r"|(?:ask|request)\s+(?:me\s+)?for\s+(?:my|the)\s+(?:password|pin|credentials|otp|verification code)"
    r"|(?:always|every\s+(?:time|answer|reply)|from now on|include|add|append)[^.!?\n]{0,50}?(?:https?://|www\.|\blinks?\b|\burl\b)"
    r"|(?:以后|每次|所有|一律|总是|都)[^。！？\n]{0,30}?(?:附上|带上|加上|插入|放上)[^。！？\n]{0,12}?(?:链接|网址|https?://)"
    r"|never\s+(?:say|tell|reveal|admit|mention|disclose)[^.!?\n]{0,30}?(?:you(?:'re| are)\s+an?\s+(?:ai|bot|assistant)|ai\b)"
    r"|(?:pretend|act)\s+(?:to be|you(?:'re| are)|as)\s+(?:a\s+)?human|不要(?:说|承认|透露|告诉)[^。！？\n]{0,10}?(?:你是|自己是)\s*(?:AI|ai|机器人|人工智能)"
    r"|假装(?:你)?是(?:真)?人",
    re.I,
)

# The product's own rendered memory / context pasted back: lines shaped like MEMORY.md or the
# context block, built from the key registry's labels.
_LABEL_WORDS = sorted({s.label_zh for s in REGISTRY} | {s.label_en for s in REGISTRY}, key=len, reverse=True)
_RENDERED_LINE = re.compile(
    r"^\s*(?:[-*•]\s*)?(?:(?:偏好|事实|不再)\s*·\s*|(?:Preference|Fact|No longer)\s*·\s*)"
    r"|^\s*(?:[-*•]\s*)?(?:" + "|".join(re.escape(w) for w in _LABEL_WORDS) + r")\s*[:：]\s*\S"
    r"|^\s*#{1,3}\s*(?:用户记忆|用户画像|Memory|User memory|Profile|Preferences|Facts|偏好|事实|画像)"
    r"|^\s*-\s*(?:user|assistant)\s*:",
    re.I | re.M,
)

# A cue that what follows is someone else's text to work on: "summarize this email: …", "翻译：…".
_PASTE_CUE = re.compile(
    r"(?:summari[sz]e|translate|proofread|polish|rewrite|reword|paraphrase|reply to|respond to|answer this|fix the grammar"
    r"|check (?:this|the) (?:email|text|message)|here(?:'s| is) (?:the|an?|my draft|what)[^:\n]{0,30}"
    r"|翻译|总结|概括|润色|改写|校对|回复(?:这|一下)|帮我回|转述|摘要|整理一下)[^:：\n]{0,40}[:：\n]",
    re.I,
)
_QUOTES = re.compile(r"“[^”]{4,}”|\"[^\"]{4,}\"|「[^」]{4,}」|『[^』]{4,}』|‘[^’]{6,}’|(?<![A-Za-z])'[^'\n]{12,}'(?![A-Za-z])")

_EN_QUESTION = re.compile(r"\?\s*$|^\s*(?:should|shall|can|could|would|do|does|did|am|is|are|was|were|will|have|has|how|what|why|which|where|who|when)\b[^.!]*$", re.I)
_EN_PLAN = re.compile(r"\b(?:planning to|plan to|going to|thinking (?:about|of)|considering|might|maybe|want to|wanna|hope to|hoping to|will try|someday|one day|eventually|until|till|through (?:friday|monday|the end))\b", re.I)
_EN_REPORTED = re.compile(r"\b(?:i heard|heard that|apparently|they say|people say|rumou?r|according to|he said|she said|they said|was told)\b", re.I)
_ZH_REPORTED = re.compile(r"听说|据说|听人说|他说|她说|他们说|传言|网上说|据报道|据悉")
_THIRD_EN = re.compile(r"\b(?:he|she|they|his|her|their|him|it|its)\b|\bmy\s+(?:wife|husband|partner|boss|manager|colleague|coworker|co-worker|friend|sister|brother|mom|mum|dad|mother|father|son|daughter|kid|kids|team ?mate|client|cousin|uncle|aunt|neighbou?r|girlfriend|boyfriend|roommate|flatmate|lead|teacher|doctor)\b|\bthe\s+(?:film|movie|actor|actress|director|singer|band|author|ceo|founder|company|team|player|show|series|book|album)\b", re.I)
_THIRD_ZH = re.compile(r"(?<![其])他|她|它|他们|她们|我(?:的)?(?:同事|老板|领导|上司|老婆|老公|妻子|丈夫|爱人|对象|女朋友|男朋友|朋友|爸|妈|父亲|母亲|哥|姐|弟|妹|儿子|女儿|孩子|客户|经理|主管|闺蜜|室友|邻居|表哥|表姐|老师)|该片|这部|那部|这位|那位|这个(?:演员|导演|歌手)|主角|导演|演员|歌手|作者")
_FAMILY_EVENT = {"fact/birth", "fact/school", "fact/marriage"}
_NEG_FACT = re.compile(r"没有?(?:考|拿|通过|搬|结婚|买)|没能|未能|\b(?:didn'?t|did not|never|haven'?t|have not|failed)\b", re.I)


def message_veto(text: str) -> str | None:
    """Why no candidate of this whole user turn may be stored, or None.

    Codes: ``injection`` (:func:`consolidation.extraction_common.detect_injection`),
    ``unsafe_preference`` (a 'preference' that directs the agent to leak or act, issue 13),
    ``pasted_memory`` (≥ 2 lines shaped like the product's own MEMORY.md / context block).
    """
    if detect_injection(text):
        return "injection"
    if _UNSAFE_PREF.search(text):
        return "unsafe_preference"
    if len(_RENDERED_LINE.findall(text)) >= 2:
        return "pasted_memory"
    return None


def quoted_regions(text: str) -> list[Span]:
    """Regions of ``text`` that are someone else's words: quotations, and everything after a
    paste cue ("summarize this email:", "翻译：")."""
    out = [Span(m.start(), m.end()) for m in _QUOTES.finditer(text)]
    m = _PASTE_CUE.search(text)
    if m:
        out.append(Span(m.end(), len(text)))
    return out


def span_veto(text: str, sentence: Span, start: int, end: int, label: str, *, quoted: list[Span] | None = None) -> str | None:
    """Why the value at ``text[start:end]`` (read from ``sentence``, registry ``label``
    ``<kind>/<name>``) may not be stored, or None.

    Codes: ``quoted``, ``question``, ``hypothetical``, ``temporary``, ``plan``, ``reported_speech``,
    ``third_party``, ``no_first_person`` (profile and fact values with no first-person subject in
    the message: knowledge talk such as "1956年出生"), ``emotion``, ``negated_fact``.
    """
    if any(q.start <= start < q.end for q in (quoted if quoted is not None else quoted_regions(text))):
        return "quoted"
    sub = next((c for c in sub_clauses(text, sentence) if c.start <= start < c.end), sentence)
    clause = text[sub.start:sub.end]
    sent = text[sentence.start:sentence.end]
    kind = label.split("/", 1)[0]
    before = text[sub.start:start]
    value = text[start:end]
    if _ZH_QWORD.search(clause) or _EN_QUESTION.search(clause):
        return "question"
    if _ZH_HYPO.search(sent[: start - sentence.start + 1]) or _EN_HYPO.search(sent) or re.search(
            r"\b(?:pretend|role-?play|let'?s say|say i(?:'m| am))\b|扮演|假装", sent, re.I):
        return "hypothetical"
    if _ZH_REPORTED.search(sent) or _EN_REPORTED.search(sent):
        return "reported_speech"
    if kind != "fact" and (_ZH_TEMP.search(clause) or _EN_TEMP.search(clause)):
        return "temporary"
    if _ZH_PLAN.search(before) or _EN_PLAN.search(clause):
        return "plan"
    if (_ZH_EMOTION.search(value) or _EN_EMOTION.search(value)):
        return "emotion"
    family = label in _FAMILY_EVENT
    third = _THIRD_ZH.search(before) or _THIRD_EN.search(before)
    if third and not family and not FIRST_PERSON.search(before[third.end():]):
        return "third_party"
    if kind in ("profile", "fact") and not FIRST_PERSON.search(text) and (_THIRD_ZH.search(sent) or _THIRD_EN.search(sent)):
        return "no_first_person"
    if kind == "fact" and not FIRST_PERSON.search(sent):
        return "no_first_person"
    if kind == "fact" and _NEG_FACT.search(clause):
        return "negated_fact"
    return None


def is_retraction(text: str, sentence: Span, start: int, end: int) -> bool:
    """True when the value's sub-clause says it no longer holds ("我现在不喝咖啡了", "I now hate
    hiking", "don't live in Berlin anymore") rather than stating it."""
    sub = next((c for c in sub_clauses(text, sentence) if c.start <= start < c.end), sentence)
    return bool(RETRACT_CUE.search(text[sub.start:sub.end]))
