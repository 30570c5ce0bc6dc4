"""Context checks of the precision stage: who a task is addressed to, and whether a chit-chat
sentence holds the work, place or answer words a memory of that key needs.

Split from :mod:`consolidation.extractor.vetoes` (which calls these) so that each file stays
readable; this module depends on :mod:`consolidation.extractor.text` only.
"""
from __future__ import annotations

import re

from .text import FIRST_PERSON, Span, around_sentence, clause_at, is_cjk

# The answer-style keys: preferences about the assistant's output.
ANSWER_STYLE = {"preference/instruction", "preference/format", "preference/tone", "preference/answer_length",
                "preference/language", "preference/units", "preference/code_language"}


# An employer or a home city is said with work or place words around it (LoCoMo / MSC out-of-domain
# runs, stop 24: "a Harry Potter fan", "The Legend of Zelda", "Yoga and meditation" were stored as
# companies, a past trip to Rio and a gig in Boston as cities). English only: Chinese names carry
# their own organisation and place shapes.
_COMPANY_WORK_EN = re.compile(
    r"\b(?:work\w*|job|jobs|employ\w*|hired|hire|joined|join|joining|intern\w*|career|office|company|firm|position|role|staff|team"
    r"|boss|colleagues?|managers?|shifts?|clients?|customers?|salary|payroll|contract\w*|here|as (?:a|an|the)|officer|engineer|analyst"
    r"|nurse|teacher|lead|director|consultant|coordinator|assistant|specialist|technician|clerk|agent|associate|partner|supervisor"
    r"|developer|designer|accountant|pharmacist|doctor|lawyer|founder|owner|ceo|cto|cfo|officer|secretary|scientist|researcher"
    r"|technologist|planner|buyer|trader|banker|driver|cashier|chef|operator|admin\w*|executive|head|chief|vp|rep|desk|startup|lab)\b"
    r"|\b(?:i|we)\s+(?:\w+\s+)?(?:run|manage|teach|own|lead|head|coach|drive|serve|operate|cover|write|sell|build|design|handle)\b", re.I)
_CITY_CUE_EN = re.compile(
    r"\b(?:live|lives|living|lived|based|base|home|moved|move|moving|relocat\w*|settled|office|branch|campus|site|plant|hq|headquarters"
    r"|work\w*|job|team|store|hospital|school|company|firm|here|out of|commut\w*|local|from|born|raised|grew up|city|town|area"
    r"|region|district|suburb|near|neighbou?rhood|stationed|posted|transferred|remote|remotely|hub|depot|warehouse|clinic|lab)\b"
    r"|\b(?:i'?m|i am|im|we'?re|we are)\s+(?:\w+\s+){0,3}(?:in|at)\b|\b(?:at|in)\s+(?:our|the)\b"
    r"|\b(?:i|we)\s+(?:\w+\s+)?(?:run|manage|teach|own|lead|head|coach|drive|serve|operate|cover|study|studied|write)\b"
    r"|\b(?:manager|manger|chef|lead|engineer|analyst|nurse|teacher|officer|director|consultant|producer|desk|supervisor|coordinator"
    r"|developer|designer|pharmacist|technician|caseworker|worker|associate|specialist|merchandiser|clerk|agent)\b", re.I)


def context_veto(text: str, sentence: Span, start: int, end: int, label: str) -> str | None:
    """``"no_work_cue"`` for an English company, ``"no_place_cue"`` for an English city, when the
    sentence holds no work or place words (:data:`_COMPANY_WORK_EN`, :data:`_CITY_CUE_EN`), else
    None. The caller applies it to spans the model is less than sure of (chit-chat names: "a Harry
    Potter fan", "like The Legend of Zelda", "I was also in Rio", "perform in Boston"); a Chinese
    sentence carries its own shapes and is never judged here. Rule source: LoCoMo / MSC runs, stop 24."""
    sent = text[sentence.start:sentence.end]
    if is_cjk(sent):
        return None
    value = text[start:end].strip()
    if label == "profile/company" and not _COMPANY_WORK_EN.search(sent):
        return "no_work_cue"
    if label == "profile/city" and not _CITY_CUE_EN.search(sent):
        return "no_place_cue"
    if label in ("profile/responsibility", "profile/department") and not _DUTY_CUE_EN.search(sent):
        return "no_work_cue"  # "fight for trans rights", "just low grade property damage"
    if label == "profile/role" and not (_ROLE_NOUN_EN.search(value) or _ROLE_NOUN_EN.search(_OF_TAIL.sub("", value))):
        return "shape"  # "Having support", "terrible", "Super Mario": no person's title
    # The wish may be addressed in the next sentence: "Dollar figures rounded to whole thousands with
    # a K. That goes for any bid summary you give me." (blind 12).
    if label in ANSWER_STYLE and not _TO_THE_ASSISTANT_EN.search(around_sentence(text, sentence)):
        return "no_answer_cue"  # "some customers were perfectly polite", "conversations we used to have at the table"
    return None


_DUTY_CUE_EN = re.compile(
    r"\b(?:work\w*|job|team|department|dept|office|company|firm|responsible|in charge|charge of|handle\w*|manag\w*|cover\w*|run|running"
    r"|role|duties|desk|unit|shift|clients?|customers?|accounts?|portfolio|projects?|business|i do|we do|my (?:area|beat|patch)"
    r"|wards?|group|section|practice|floor|line|plant|lab|site|clinic|here|i'?m (?:a|an|the|on|in)|i am (?:a|an|the|on|in))\b"
    r"|\b(?:i|we)\s+(?:\w+\s+)?(?:run|manage|teach|own|lead|head|cover|write|sell|build|design|handle|document|support|maintain"
    r"|look after|oversee|coordinate|process|review|test|develop)\b", re.I)
_ROLE_NOUN_EN = re.compile(
    r"(?:er|or|ist|ian|ant|ent|eer|man|woman|person|nurse|major|student|intern|owner|founder|coach|chef|clerk|staff|head|lead|rep"
    r"|analyst|associate|partner|engineer|tutor|guard|medic|pilot|cook|maid|nanny|barista|judge|priest|monk|model|artist|vet|ceo"
    r"|cto|cfo|coo|vp|md|pm|qa|hr|it|ops|admin|assistant|specialist|technician|secretary|executive|trainee|apprentice|fellow"
    r"|graduate|resident|attendant|aide|crew|cadet|sergeant|captain|officer|director|chief|principal|dean|professor|lecturer"
    r"|scientist|therapist|pharmacist|dentist|surgeon|midwife|paramedic|caregiver|carer|volunteer|freelancer|contractor"
    r"|consultant|accountant|auditor|actuary|architect|designer|developer|programmer|photographer|journalist|editor"
    r"|librarian|mechanic|electrician|plumber|carpenter|welder|farmer|driver|courier|soldier|sailor|merchandiser|buyer|deputy"
    r"|eng|dev|postdoc|post-doc|doc|sre|swe)s?\b\W*$"
    r"|(?-i:\b[A-Z][A-Za-z]?[A-Z]{1,4}s?\b)\W*$", re.I)
# "Area Director of Revenue", "Head of Data": the title's head comes before "of" (blind 15).
_OF_TAIL = re.compile(r"\s+(?:of|for)\s+.*$", re.I)
# An answer style is said to the assistant: it names the assistant, its answers or a standing wish.
_TO_THE_ASSISTANT_EN = re.compile(
    r"\b(?:you|your|u|reply|replies|respond|responses?|answers?|write|explain|give me|send me|show me|tell me|keep|make it|format\w*"
    r"|please|pls|plz|always|never|from now on|going forward|in future|i prefer|i'?d prefer|i'?d rather|i like (?:it|answers|replies|things)"
    r"|for me|with me|to me|no need|don'?t|stop|skip|avoid|just)\b", re.I)


# A task's addressee (issue 13, blind 10: "ok also draft an email to the consignee, Nordvik Trading in
# Oslo" replaced the user's employer and city; "帮我写封邮件俾王教授", "帮我给顺丰华南区写个函").
_ADDRESSEE_LABELS = {"profile/company", "profile/city", "profile/department", "profile/industry", "profile/role"}
_TASK_TO_EN = re.compile(
    r"(?:^|[^\w'])(?:e-?mail|write|reply|respond|send|message|draft|text|forward|invite|thank|welcome|notify|remind|cc|ping|call"
    r"|prepare|compose)\b(?P<rest>[^.!?;]{0,60}?)\b(?:to|for|cc)\b[^.!?;]{0,40}$", re.I)
_TASK_TO_ZH = re.compile(r"(?:写|发|回|寄|转)[^，。！？!?]{0,8}(?:给|俾)\s*$|(?:给|俾|向|致)\s*$")
_ZH_TASK_AFTER = re.compile(r"^[^，。！？!?]{0,10}?(?:写|发|回|寄|打电话|报|转)")
_ZH_WORK_FOR = re.compile(r"^[^，。！？!?]{0,10}?(?:打工|干活|做事|工作|上班|卖命|当)")
_SELF_BEFORE_TASK = re.compile(r"\b(?:i|i'?m|im|we|we'?re)\s+(?:\w+\s+){0,2}$", re.I)


def addressee(text: str, sentence: Span, start: int, end: int) -> bool:
    """True when ``text[start:end]`` names whom a task in its sentence is addressed to: an
    imperative writing verb ("draft an email to the consignee, …", "write a note for …") with no
    first-person subject before the verb, or Chinese ``给/俾/向 X 写/发/回``, ``写封邮件俾 X``.
    "I write for the Guardian" and "我给顺丰打工" are the user's own work. Input: the turn, the
    value's sentence and offsets. Output: bool. Rule source: blind 10 (stop 24)."""
    before = text[sentence.start:start]
    m = _TASK_TO_EN.search(before)
    if m and not _SELF_BEFORE_TASK.search(before[:m.start() + 1]) and not FIRST_PERSON.search(m.group("rest")):
        return True
    zh = _TASK_TO_ZH.search(before)
    if zh:
        after = text[end:sentence.end]
        if zh.group(0).rstrip()[-1] in "给俾向致" and not re.search(r"[写发回寄转]", zh.group(0)):
            return bool(_ZH_TASK_AFTER.search(after)) and not _ZH_WORK_FOR.search(after)
        return True
    return False


# The words of a standing instruction or tone (moved from vetoes.py, stop 29).
_STRICT_INSTRUCTION = re.compile(
    r"以后|今后|往后|默认|一律|每次|总是|都(?:要|用|给|按|别|不要)|别|不要|不用|请|记得|麻烦|给我|回我|答我|跟我说|对我|回复|回答|答复|说话|语气|口气"
    r"|直接|就行|就够|就好|就可以|少[扯说讲整来写]|莫|唔好|唔使|你(?:讲|说|写|出|给|列|做|翻)|出题|[讲说写][^，。,]{0,3}点"
    r"|\b(?:whenever|when you|for (?:any|all|every)|can be|be (?:blunt|direct|brief|concise|straight)|stop (?:using|adding|giving|writing)"
    r"|make (?:your|the) (?:answers?|replies|responses)|(?:you|u) keep|no need|don'?t (?:throw|give|explain|simplify|overexplain|be \w+ing)|stick|just)\b"
    r"|\b(?:always|never|from now on|going forward|in future|by default|every time|next time|keep doing|please|pls|kindly"
    r"|give me|send me|show me|tell me|reply|respond|answer|write|explain|format|summari[sz]e|skip|avoid|don'?t (?:use|add|write|include)"
    r"|no (?:need|fluff|emojis?|jargon)|i prefer|i'?d prefer|i'?d rather|i like (?:it|answers|replies)|works? best for me)\b", re.I)
# An instruction or tone is about the assistant's output: it names that output and stands.
_ANSWER_OBJECT = re.compile(
    r"回答|回复|回[我俺咱]|答[我俺咱]|解释|写|格式|注明|写明|标明|列表|表格|代码|例子|举例|引用|来源|邮件|报告|文档|总结|结论|语气|说话|用词|翻译|要点|篇幅|字数|英文|中文"
    r"|答案|解析|讲|出题|题目|版本|文案|表|原理|步骤|术语|通俗|顺序|结构|数字|标题|列|话术|附上|推荐|标注|标出"
    r"|\b(?:spelling|word count|sign-?offs?|formulas?|vocabulary|simplif\w*|english|blunt|direct\w*|sugarcoat\w*|shortcuts?|terms?"
    r"|greetings?|units?|versions?|plain|test cases?|wording|quote|prices?|amounts?|currency|dates?|sentences?)\b"
    r"|\b(?:repl(?:y|ies)|answers?|respon(?:d|ses?)|write|writing|explain|explanations?|summar\w*|format\w*|lists?|tables?|bullets?"
    r"|code|examples?|sources?|cite|citations?|links?|emails?|drafts?|reports?|docs?|documents?|emojis?|jargon|tone|language|words?"
    r"|slides?|decks?|outlines?|translations?|preamble|caveats?|disclaimers?|details?|steps?|numbers?|figures?|headings?)\b", re.I)
# Output words that count only with a wish word in the value's own clause (:func:`_wish_clause`):
# "以后给示例默认用Go就行", "keep field names in English" (blind 12).
_CLAUSE_OBJECT = re.compile(r"文件|导出|示例|客套|废话|寒暄|\b(?:files?|exports?|markups?|field names?|spreadsheets?|memos?"
                            r"|pleasantries|niceties|small talk|fluff|filler|preambles?|disclaimers?|caveats?)\b", re.I)
# A standing wish addressed to the user's own exchanges names no output word but is one all the
# same: "以后给我的文件都导出成docx", "以后跟我唠嗑别整那些客套话", "that goes for any bid summary you
# give me" (blind 12). The standing word and the "me" (the answers given to the user) must both be there.
_STANDING_TO_ME = re.compile(r"(?:以后|今后|往后|从今往后|默认|一律|每次|下次)[^。！？!?]{0,12}(?:[给跟对回答帮][我俺咱]|[我俺]的)"
                             r"|\b(?:from now on|going forward|in future|by default|every time|next time|that goes for|for (?:any|every|all))\b"
                             r"[^.!?]{0,40}\b(?:(?:give|send|show|tell|write|reply|answer|explain)\w*\s+me|for me|to me|with me)\b", re.I)


def _wish_clause(text: str, sentence: Span, start: int) -> bool:
    """True when the value's own clause carries a wish word (:data:`_STRICT_INSTRUCTION`):
    "导出成docx" in "以后给我的文件都导出成docx", not "行里电脑打开PDF还得走审批" beside it (blind 12)."""
    clause = clause_at(text, sentence, start)
    return bool(_STRICT_INSTRUCTION.search(text[clause.start:clause.end]))


def instruction_stands(text: str, sentence: Span, start: int) -> bool:
    """True when an instruction or tone value at ``start`` (in ``sentence`` of ``text``) is a standing
    wish about the assistant's output: a wish word in its sentence and an output word in its window, or
    a wish word in its own clause and a clause-level output word or a standing "to me" in its window.
    The window is :func:`text.around_sentence`: the wish word is the value's own; what it is about may
    sit in the sentence before or after it ("以后回我别老是您您您的 看的累 直接说就行": blind 15).
    Input: the turn, a sentence span, the value's start offset. Output: bool. Rule source: blind 12, 15."""
    sent = text[sentence.start:sentence.end]
    window = around_sentence(text, sentence)
    return bool((_STRICT_INSTRUCTION.search(sent) and _ANSWER_OBJECT.search(window))
                or (_wish_clause(text, sentence, start) and (_CLAUSE_OBJECT.search(window) or _STANDING_TO_ME.search(window))))
