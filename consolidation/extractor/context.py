"""Context checks of the precision stage: who a task is addressed to, and whether a chit-chat
sentence holds the work, place or answer words a memory of that key needs.

Split from :mod:`consolidation.extractor.vetoes` (which calls these) so that each file stays
readable; this module depends on :mod:`consolidation.extractor.text` only.
"""
from __future__ import annotations

import re

from .text import FIRST_PERSON, Span, around_sentence, is_cjk

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
