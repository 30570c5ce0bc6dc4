"""Spans that have the shape of a memory but say something else (the precision stage, beside
:mod:`consolidation.extractor.vetoes`): a title used as a form of address or a level, a verb read as
a title, a place or employer the sentence says the user left, an organisation read as a city.

Rule source: blind 14 a+b (stop 28), after their untouched run — each of these replaced a value the
user had said plainly ("Lead installer …" by "lead" from "asking me to lead the BRT corridor
scheduling", "Mud engineer" by "supervisor" from "WellSharp at supervisor level", 张掖 玉米育种 by
"周老师" from "别一口一个周老师的", Lodwar by Nairobi from "joined … in the Nairobi office, then came
up to Lodwar"). Depends on :mod:`consolidation.extractor.text` only.
"""
from __future__ import annotations

import re

from .text import Span, clause_at

# "叫我老周就行，别一口一个周老师的", "call me Mags, not Ms Okafor": how the user is addressed.
# "岗位叫成果转化专员" names the title: only "叫我"/"别叫" is addressing.
_ADDRESS_BEFORE = re.compile(r"(?:叫|喊|称呼|称)\s*(?:我|俺)\s*$|一口一个\s*$|(?:别|不要|不用)\s*(?:叫|喊|称呼)\s*(?:我|俺)?\s*$"
                             r"|\b(?:call(?:ing)? me|address(?:ing)? me as|refer to me as)\s+$", re.I)
# "at supervisor level", "a senior-level course": a level, not the user's title.
_LEVEL_AFTER = re.compile(r"^[\s-]*(?:level|grade|standard|tier)\b|^\s*(?:级别|等级|水平|层级)", re.I)
# "asking me to lead the BRT corridor scheduling": a verb with its object, not a title.
_VERB_TITLE = re.compile(r"^(?:lead|head|manage|run|coordinate|supervise|direct|chair|coach|support|own)$", re.I)
_OBJECT_AFTER = re.compile(r"^\s+(?:the|a|an|our|my|this|that|their|his|her|all|some|it)\b", re.I)
# "通告单之后交给新来的助理弄", "handed the rota over to the new coordinator": the person work is handed
# to is someone else (blind 15 a+b: the user's promotion to 执行制片 was replaced by 助理).
_HANDED_TO = re.compile(r"(?:交给|交接给|转给|移交给|丢给|甩给|交咗畀|交畀)(?:了)?(?:新来的|新的|新招的|我们|咱们)?\s*$"
                        r"|\b(?:hand(?:ed|ing)?|pass(?:ed|ing)?|gave|give|giving)\b[^.;!?]{0,25}?\b(?:over\s+)?to\s+(?:the|our|a|my)?\s*(?:new\s+)?$", re.I)


def role_misread(text: str, sentence: Span, start: int, end: int) -> str | None:
    """Why a role span is no title of the user's, or None: ``"address_form"`` (how the user wants
    to be called: "别一口一个周老师的", "call me …"), ``"level"`` ("passed WellSharp at supervisor
    level"), ``"verb"`` ("asking me to lead the BRT corridor scheduling"), ``"third_party"`` (the one work is
    handed to: "交给新来的助理弄"). Input: the turn, the
    span's sentence and character offsets. Output: a veto code or None. Rule source: blind 14 a+b;
    ``third_party``: blind 15 a+b."""
    before = text[max(sentence.start, start - 12):start]
    after = text[end:sentence.end]
    value = text[start:end].strip()
    if _ADDRESS_BEFORE.search(before):
        return "address_form"
    if _HANDED_TO.search(text[max(sentence.start, start - 40):start]):
        return "third_party"
    if _LEVEL_AFTER.match(after):
        return "level"
    if _VERB_TITLE.match(value) and _OBJECT_AFTER.match(after):
        return "verb"
    return None


# "joined Mwangaza in 2021 in the Nairobi office, then came up to Lodwar January last year", "先在
# 东莞厂干了三年，后来调到长沙": the place (or employer) before "then … moved to Y" is the past one.
_THEN_EN = r"^[^.;!?]{0,60}?\b(?:then|later|after that|afterwards|until|till|before)\b[^.;!?]{0,20}?"
_LEFT_FOR = {
    "city": (re.compile(_THEN_EN + r"\b(?:came|come|moved|move|went|go|shifted|relocated|transferred|posted|got (?:moved|transferred|posted))\b"
                        r"(?:\s+(?:up|down|over|back|across|out))?\s+(?:to|into)\s+(?:the\s+|our\s+)?(?-i:[A-Z])", re.I),
             re.compile(r"^[^。；！？!?]{0,24}?(?:后来|然后|之后|再|又|才)[^。；！？!?]{0,6}?(?:调到|调去|调来|搬到|搬去|去了|来了|派到|回到|到了)")),
    "company": (re.compile(_THEN_EN + r"\b(?:joined|join|switched|moved|jumped|went)\s+(?:over\s+)?(?:to|into)?\s*(?:a|an|another|the)?\s*"
                           r"(?:[A-Z]\w+|company|firm|employer|agency|startup)\b"),
                re.compile(r"^[^。；！？!?]{0,24}?(?:后来|然后|之后|再|又|才)[^。；！？!?]{0,6}?(?:跳到|跳槽|跳去|换到|去了另|进了)")),
}


def left_behind(text: str, sentence: Span, end: int, key: str) -> bool:
    """True when the sentence goes on, after a city or employer (``key`` ``"city"`` or
    ``"company"``) ending at ``end``, to say the user then moved on to another ("…in the Nairobi
    office, then came up to Lodwar", "在东莞干了三年，后来调到长沙", "spent a year at Deloitte, then
    joined KPMG"). Input: the turn, the span's sentence, the span's end offset, the key. Output: bool.
    Rule source: blind 14 a+b (stop 28)."""
    after = text[end:sentence.end]
    return any(rx.match(after) for rx in _LEFT_FOR[key])


# An organisation's name is no city ("Mud engineer here, Karoo Offshore Services, I work out of
# Saldanha Bay": the classifier tagged both names city, and the bay as the company).
_ORG_TAIL = re.compile(r"\b(?:services|solutions|systems|technologies|tech|ltd|limited|inc|llc|plc|gmbh|group|holdings|company|co|corp"
                       r"|corporation|bank|logistics|consulting|partners|industries|relief|foundation|trust|solar|energy|motors"
                       r"|pharma|labs?|studios?|hospital|university|college|agency|airlines?|airways)\.?$"
                       r"|(?:公司|集团|银行|医院|大学|学院|工厂|厂|研究院|研究所|事务所|酒店)$", re.I)


def org_shaped(value: str) -> bool:
    """True when ``value`` ends with an organisation word ("Karoo Offshore Services", "恒丰银行"):
    such a span is an employer, whatever the tagger's label. Rule source: blind 14 a+b (stop 28)."""
    return bool(_ORG_TAIL.search(value.strip()))


# A month or time phrase the tagger ran into: "Lodwar January last year" → "Lodwar".
_TIME_TAIL = re.compile(r"\s+(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr"
                        r"|jun|jul|aug|sep|sept|oct|nov|dec|last|this|next|since|in|on|from|around|early|late|back)\b.*$", re.I)


def place_without_time(value: str) -> str:
    """A place value without a time phrase the span ran into ("Lodwar January" → "Lodwar"); the
    value itself when nothing would be left."""
    return _TIME_TAIL.sub("", value).strip() or value


# A signature line starts with the signer's name: "my signature: Ngozi Eze, Programmes Officer, Hope
# Springs Foundation, Abuja", "落款：王芳，招生办". The name is never an employer or a city.
_SIGNED_NAME_BEFORE = re.compile(r"(?:\bsignature|\bsign(?:ed)?\s+(?:it|off|this)?\s*(?:as|with)|\bregards|\bcheers|\bbest|\bthanks"
                                 r"|署名|落款|签名)\s*(?:is|as)?\s*[:：,，\-–—]?\s*$", re.I)
_TITLE_TAIL = re.compile(r"\b(?:officer|manager|director|engineer|lead|head|assistant|coordinator|analyst|consultant|specialist"
                         r"|executive|administrator|supervisor|pharmacist|nurse|teacher|developer|designer)s?$", re.I)
# A bare generic head names nothing of the user's: "my department", "sector", "a fantastic combination"
# (MSC out-of-domain run, stop 29). An employer said by its type ("a gold mine", "the studio") is kept.
_GENERIC_HEAD = re.compile(r"^(?:(?:my|our|the|this|that|a|an|same|new|whole|entire)\s+)*(?:department|dept|team|group|unit"
                           r"|division|section|sector|industry|field|space|area|company|firm|office|place|job|work|business"
                           r"|organi[sz]ation|combination|skills?|role|position)$", re.I)
_GENERIC_EMPLOYER = re.compile(r"^[\d年进来到入了的在这那家个我们本]*(?:公司|单位|厂|集团|企业|司)$")


def profile_misread(text: str, sentence: Span, start: int, end: int, name: str) -> str | None:
    """The veto code for a profile value of key ``name`` at ``text[start:end]`` that says something
    else (:func:`role_misread` for a role; ``"past"`` for a city or employer the sentence says the
    user left, :func:`left_behind`), or None. What the model's spans and the rules' candidates both
    pass (consolidation.extractor.service)."""
    if name == "role":
        return role_misread(text, sentence, start, end)
    value = text[start:end].strip()
    if name in ("city", "company") and left_behind(text, sentence, end, name):
        return "past"
    if name in ("company", "city") and _SIGNED_NAME_BEFORE.search(text[max(sentence.start, start - 40):start]):
        return "name"  # "end it with my signature: Ngozi Eze, Programmes Officer, …": the user's own name (blind 15)
    if name in ("city", "company") and _TITLE_TAIL.search(value):
        return "shape"  # "Programmes Officer" read as the city or employer of a signature line (blind 15)
    if _GENERIC_HEAD.match(value):
        return "shape"  # "just a shift manager in my department", "Financial sector" → "sector" (MSC, stop 29)
    if name == "company" and re.search(r"(?i)\b(?:industry|sector)$|行业$|产业$", value):
        return "shape"  # "I work in the construction industry": the industry, never the employer
    if name == "company" and _GENERIC_EMPLOYER.match(value):
        return "shape"  # "我2019年进的公司" tagged "年进的公司" (blind 15): no name
    return None


# A Chinese job change names its change: "调去配载组", "升执行制片", "跳槽到字节", "2019年进的公司". A noun
# with no change word before or inside it is the task around the change ("我上个月升执行制片了，通告单之后交给
# 新来的助理弄" tagged 通告单 as the change: blind 15 a+b).
_ZH_CHANGE_WORD = re.compile(r"调|升|去|到|进|做|当|入职|跳槽|转|加入|当上|换|离开|离职|辞|退休|聘|任|接手|接任|回|来|提拔|晋")


_ZH_FORMERLY = re.compile(r"原(?:在|任|为|是|先|来)|之前|以前|曾经|过去|当时")


def job_change_misread(text: str, sentence: Span, start: int, end: int) -> str | None:
    """``"shape"`` when a Chinese job-change span at ``text[start:end]`` has no change word in it
    or in the sixteen characters before it within its clause ("升了风控策略组的组长"), ``"past"`` when its clause says it
    was before ("原在…任生鲜主管"), else None. English spans are not
    judged. Input: the turn, the span's sentence and character offsets. Output: a veto code or None.
    Rule source: blind 15 a+b."""
    value = text[start:end]
    if not re.search(r"[\u4e00-\u9fff]", value):
        return None
    clause = clause_at(text, sentence, start)
    if _ZH_FORMERLY.search(text[clause.start:start]):
        return "past"  # "原在苏州门店任生鲜主管，去年7月调至南京总部": the title before the move (blind 15)
    if _ZH_CHANGE_WORD.search(text[max(clause.start, start - 16):end]):
        return None
    if re.search(r"现在|目前|如今|眼下", text[clause.start:start]) and _ZH_CHANGE_WORD.search(text[sentence.start:clause.start]):
        return None  # "上礼拜俺升了，现在是造价部主管": the change said, then what it is now (blind 14)
    return "shape"

