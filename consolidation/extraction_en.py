"""English rules of the extractor: sentence/clause splitting, subject detection, never-rules
(questions, hypotheticals, emotions, temporary states, negation, past), profile / preference /
fact patterns and relative-date resolution (last fall, two years ago ...). Entry: :func:`extract_en`.
"""
from __future__ import annotations

import datetime as _dt
import re

from . import extraction_lexicon as L
from .extraction_common import (
    _EN_NUM, _MONTHS, _PII_LIKE, _PROJECT, _TOOLS_RE, _alt, _cand, _shift_month, _skills, _strip_discourse, _tool_prefs, days_back_date,
)


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
    mm = re.search(r"\b(a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a couple of|several|a few)\s+(years?|months?)\s+(?:ago|back)\b", s)
    if mm:
        n = _EN_NUM.get(mm.group(1)) or int(mm.group(1))
        if mm.group(2).startswith("month"):
            y, m = _shift_month(at.year, at.month, -n)
            return _dt.date(y, m, 1), "month"
        return _dt.date(at.year - n, 1, 1), "year"
    # "in March", "last September", "this June", "March 2024": a bare or "last" month is the
    # most recent one not after the message month; "this"/"next" look ahead within the year.
    mm = re.search(r"\b((?:19|20)\d\d)-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b", s)
    if mm:
        return _dt.date(int(mm.group(1)), int(mm.group(2)), 1), "month"
    mm = re.search(r"\b(in|last|this|next|since|back in|over|during|on|early|late|mid|end of|start of|beginning of)\s+"
                   r"(?:the\s+)?(?:(?:early|late|mid|end of|start of)[\s-]+)?(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?)?"
                   r"(" + "|".join(_MONTHS) + r")(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:,?\s+(?:of\s+)?(\d{4}))?\b", s)
    if mm:
        m = _MONTHS.index(mm.group(2)) + 1
        if mm.group(3):
            y = int(mm.group(3))
        elif mm.group(1) == "next":
            y = at.year if m > at.month else at.year + 1
        elif mm.group(1) == "this":
            y = at.year
        else:
            y = at.year if m <= at.month else at.year - 1
        return _dt.date(y, m, 1), "month"
    mm = re.search(r"\b(?:in|since)\s+((?:19|20)\d\d)\b", s)
    if mm:
        return _dt.date(int(mm.group(1)), 1, 1), "year"
    if re.search(r"\blast year\b", s):
        return _dt.date(at.year - 1, 1, 1), "year"
    if re.search(r"\bthis year\b", s):
        return _dt.date(at.year, 1, 1), "year"
    return days_back_date(s, at, "en")


_EN_EMOTION = re.compile(r"\b(fed up|walk out|stressed|anxious|exhausted|frustrat\w*|burn(ed|t) out|sick of|tired of|annoyed|furious|overwhelmed|miserable|depressed|losing my mind|so done|quit my job|pissed|ugh|i hate(?!\s+(?:it when|when|long|lengthy|short|wordy|verbose|jargon|emojis|bullet|tables|walls? of|(?:\w+\s+)?(?:answers|replies|responses|emails|paragraphs|explanations))))\b", re.I)
_EN_TEMP = re.compile(r"\b((?<!as of )(?<!effective )(?<!starting )(?<!from )today|tonight|tomorrow|this week(end)?|next week|next month|this afternoon|this morning|right now|at the moment|for a while|for now|temporarily|off sick|on leave|on vacation|this time|for this one|for the next (?:few |couple of |\w+ )?(?:days?|weeks?|nights?)|until (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|next|i'?m back|the end of)|till (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|next|i'?m back))\b", re.I)
# Counterfactuals: "if I were", "if I worked at Google I'd ...", "had I known".
_EN_HYPO = re.compile(r"\b(if i were|if i was|if i had|were i|had i|imagine|suppose|supposing|hypothetically|what if|"
                      r"if i (?:\w+ed|went|got|took|ran|became|knew|did|could|lived|left|quit|made|spent|led|ran|sold|built)|"
                      r"if i (?:still |ever )?(?:worked|moved|joined|switched|managed|studied))\b", re.I)
_EN_NEG = re.compile(r"\b(i'm not|i am not|not an?|i (?:don't|do not|no longer) live|any ?more|i don't work|i do not work|never been|never lived|never worked|isn't|i'm no longer|i am no longer)\b", re.I)
# Plans and wishes are not stable facts ("I'm thinking about moving", "maybe I'll try Vim one day").
_EN_PLAN = re.compile(r"\b(planning to|plan to|thinking (?:about|of)|might|maybe|considering|someday|one day|hoping to|"
                      r"want to (?:learn|try|move|become|switch)|going to (?:learn|try)|i'll try|i should)\b", re.I)
_EN_PAST = re.compile(r"\b(used to|previously|formerly|before that|migrated off|moved off)\b", re.I)
_EN_REQUEST = re.compile(r"^(please|can you|could you|would you|help me|write|draft|make|give|show|book|open|rank|turn|set|tidy|break|explain|walk|find|check|send|create|add|fix|summari[sz]e|translate|reply|respond|answer|cite|round|avoid|skip|stop|don't|do not|format|rewrite|shorten)\b", re.I)

_EN_DISCOURSE = re.compile(
    r"^(remember that|note that|hi|hey|hello|ok|okay|also|and|but|so|yes|yeah|thanks|thank you|great|good|nice|fine|anyway|right|morning|well|honestly|"
    r"unrelated|for context|quick update on me|heads up|personal milestone|btw|by the way|actually|oh|sure|cool|got it|going forward|"
    r"quick background|background|a bit about me|about me|fyi|for the record|just so you know|at work|these days|nowadays|"
    r"professionally|day to day|in my job|in my role|in future|in the future)\b[,:!.\s—-]*",
    re.I,
)
# Job titles that name a person when the user says "my/our <title>"; words that also name software
# ("my editor of choice", "our agent") are left out.
_PEOPLE_TITLES = [t for t in L.EN_TITLE_NOUNS if t not in {"editor", "agent", "assistant", "admin", "administrator", "operator", "driver", "owner"}]
_EN_FAMILY_RE = re.compile(r"^my\s+(" + _alt(L.EN_FAMILY) + r")\b", re.I)
_EN_OTHER_RE = re.compile(
    r"^((?:my|our)\s+(?:new\s+|old\s+|former\s+)?(" + _alt(L.EN_OTHERS + _PEOPLE_TITLES) + r")(?!\s+of choice)|he|she|they|his|her|their|the (client|customer|candidate)|a (candidate|colleague|client)|"
    r"[A-Z][a-z]+\s+(is|has|was|said|says|will|wants))\b", re.I)


def _en_subject(c: str) -> str | None:
    if _EN_FAMILY_RE.match(c):
        return "family:" + _EN_FAMILY_RE.match(c).group(1).lower()
    if _EN_OTHER_RE.match(c):
        return "other"
    if re.match(r"^(i|i'm|i've|i'd|i'll|im|my|me)\b", c, re.I) or re.match(
            r"^(?:most|much|all|half|a lot|the bulk) of my (?:day|days|time|week|work|job)\b", c, re.I):
        return "self"
    if re.match(r"^(we|we're|we've|our|us)\b", c, re.I):
        return "we"
    if re.match(r"^(you|please|always|never|for|keep|use|default|switch)\b", c, re.I) or _EN_REQUEST.match(c):
        return "you"
    return None


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


# --------------------------------------------------------------------------- English patterns
_EN_CITY_RE = re.compile(r"\b(" + _alt(L.WORLD_CITY_LIST) + r")\b")
_EN_CITY_BAD_BEFORE = re.compile(
    r"\b(flying to|fly to|flight to|going to|trip to|travel(l?ing)? to|visit(ing)?|(?<!working )(?<!work )(?<!remotely )from|heading to|off to|"
    r"university of|college of|institute of|school of)\s+(our\s+|the\s+)?$", re.I)
# A residence / workplace anchor makes a city on its own ("based in Leeds"); a bare "in Leeds" only
# counts in a clause that also states the user's job ("I'm a nurse in Leeds") — "a show in Tokyo" does not.
_EN_CITY_STRONG = re.compile(
    r"\b(live in|living in|lives in|based in|located in|reside in|residing in|moved to|relocated to|working out of|work out of|"
    r"out of|(?:working|work) (?:remotely |full[- ]time |part[- ]time )?from|here in|home in|(?:'ve|have) lived in|been living in)\s+(?:our\s+|the\s+|their\s+)?$", re.I)
_EN_CITY_WEAK = re.compile(r"\b(in|at|of|to|for)\s+(?:our\s+|the\s+)?$", re.I)
_EN_CITY_AFTER = re.compile(r"\s+(office|plant|site|HQ|headquarters|branch|team|campus|hub|centre|center|factory|warehouse|store)\b", re.I)
_EN_TITLE_ALT = _alt(L.EN_TITLE_PHRASES + L.EN_TITLE_NOUNS)
_EN_TITLE_RE = re.compile(
    r"\bI(?:'m| am)\s+(?:now\s+|currently\s+|still\s+|also\s+)?(?:a|an|the|our|one of the)\s+(?:only\s+|new\s+|sole\s+|current\s+)?"
    r"(?P<t>(?:[\w&/+\-]+\s+){0,4}?(?:" + _EN_TITLE_ALT + r"))s?\b"
    r"|\b(?:I\s+)?(?:now\s+|currently\s+)?work as (?:a|an|the)\s+(?P<t2>(?:[\w&/+\-]+\s+){0,4}?(?:" + _EN_TITLE_ALT + r")"
    r"|[\w&/+\-]+(?:\s+[\w&/+\-]+){0,2}?(?=\s+(?:in|at|for|on|with|and|based)\b|\s*$))\b"
    r"|\bI(?:'m| am)\s+(?:an?\s+|the\s+)?(?P<t3>SRE|DBA|PM|QA engineer|DevOps engineer|(?:head|director|vp|VP) of [A-Za-z&]+(?: [A-Za-z&]+)?(?= at| in| for|$))\b"
    r"|\bI(?:'ve| have) been (?:working as )?(?:a|an|the)\s+(?P<t4>(?:[\w&/+\-]+\s+){0,4}?(?:" + _EN_TITLE_ALT + r"))s?\b(?=\s+(?:for|since|at|in)\b|$)"
    r"|\bmy (?:current )?(?:role|title|job title|position|job) is (?:a |an |the )?(?P<t5>[A-Za-z&/+\- ]{2,40}?)(?=\s+(?:at|in|for|on|and|but|with)\b|$)"
    r"|\b(?:I\s+(?:\w+\s+)?work(?:ing)?|I(?:'ve| have) been working|I\s+(?:also\s+)?(?:act|serve|double)|acting|serving|doubling)\b[^,;]{0,40}?\bas\s+(?:a|an|the|our)\s+"
    r"(?:part-time\s+|acting\s+|interim\s+)?(?P<t6>(?:[\w&/+\-]+\s+){0,3}?(?:" + _EN_TITLE_ALT + r"))s?\b"
    r"|\b(?:promoted|moved up|stepped up)\s+to\s+(?:a\s+|an\s+|the\s+)?(?P<t7>(?:[\w&/+\-]+\s+){0,3}?(?:" + _EN_TITLE_ALT + r"))s?\b"
    r"|\bI\s+(?:recently\s+|just\s+)?became\s+(?:a|an|the|our)\s+(?P<t8>(?:[\w&/+\-]+\s+){0,3}?(?:" + _EN_TITLE_ALT + r"))s?\b"
    # a new job named with its title: "I joined Northwind Grid two weeks ago as a procurement lead"
    r"|\bI(?:'ve| have)?\s+(?:just\s+|recently\s+)?(?:joined|started at|moved to|signed with)\s+[^,;]{1,60}?\bas\s+(?:a|an|the|their|its)\s+"
    r"(?:new\s+)?(?P<t9>(?:[\w&/+\-]+\s+){0,3}?(?:" + _EN_TITLE_ALT + r"))s?\b",
    re.I)
_TITLE_GROUPS = ("t", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9")
# A career switch into a field of work: "I switched from marketing to product management".
_EN_SWITCH_RE = re.compile(
    r"\bI(?:'ve| have)?\s+(?:recently\s+|just\s+)?(?:switched|moved|transitioned|changed careers?|pivoted)\s+(?:over\s+)?from\s+[\w\- ]{2,30}?\s+(?:to|into)\s+"
    r"(?P<f>(?:[\w\-]+\s+){0,2}(?:" + _alt(L.EN_FIELDS) + r"))\b", re.I)
# A second title in the same clause: "I'm a product manager and a part-time scrum master".
_EN_TITLE_MORE_RE = re.compile(
    r"^\s*(?:,\s*)?(?:and|&|as well as|plus)\s+(?:also\s+)?(?:(?:serve|act|double|work)\s+as\s+)?(?:a|an|the|our|my)\s+(?:[\w\-]+'s\s+)?(?:part-time\s+|acting\s+|interim\s+|de facto\s+)?"
    r"(?P<t>(?:[\w&/+\-]+\s+){0,3}?(?:" + _EN_TITLE_ALT + r"))s?\b", re.I)
# A named employer: "I work at Siemens", "I'm an accountant at Unilever", "I joined Stripe last month".
_EN_ORG_NAME = r"(?P<co{}>(?-i:[A-Z][\w&.'\-]*(?:\s+(?:&\s+)?[A-Z][\w&.'\-]*){{0,3}}))"
_EN_COMPANY_RE = re.compile(
    r"\bI\s+(?:\w+\s+)?work(?:ing)?\s+(?:remotely\s+|full[- ]time\s+|part[- ]time\s+)?(?:at|for)\s+" + _EN_ORG_NAME.format(1)
    + r"|\bI(?:'ve| have)?\s+(?:just\s+|recently\s+)?joined\s+" + _EN_ORG_NAME.format(2)
    + r"|\bI(?:'m| am)\s+(?:a|an|the)\s+(?:[\w&/+\-]+\s+){0,4}?(?:" + _EN_TITLE_ALT + r")s?\s+(?:at|with)\s+" + _EN_ORG_NAME.format(3), re.I)
_EN_NOT_ORG = re.compile(r"^(?:I|I'm|The|A|An|My|Our|Home|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|"
                         + "|".join(m.capitalize() for m in _MONTHS) + r"|Christmas|Easter|Night|Weekends?)$")
_EN_TITLE_NEXT_RE = re.compile(r"\s+(" + _alt(L.EN_TITLE_NOUNS) + r")\b", re.I)
_RESP_VERBS = (r"run|lead|manage|coordinate|document|own|handle|oversee|support|cover|head|look after|work on|maintain|"
               r"supervise|administer|teach|train")
_RESP_GERUNDS = (r"running|leading|managing|coordinating|documenting|owning|handling|overseeing|supporting|covering|heading|"
                 r"looking after|working on|maintaining|supervising|teaching")
_RESP_END = r"(?=\s+(?:in|out of|based|from|at the|at an?|here)\b|\s+(?-i:at [A-Z])|\s+for (?:our|the|my) (?:company|firm|employer|business)\b|$)"
# Responsibility needs the user as subject ("I run ...", "I'm responsible for ..."): a subject-less
# clause such as "Running can really boost your mood" is a generic statement, not a duty.
_EN_RESP_RE = re.compile(
    r"\bI\s+(?:also\s+|mainly\s+|mostly\s+|now\s+|currently\s+|still\s+|basically\s+)?(?P<v>" + _RESP_VERBS + r")\s+(?P<o>[^,;]+?)" + _RESP_END
    + r"|\bI(?:'m| am)\s+(?:also\s+|mainly\s+|now\s+)?(?P<v3>responsible for|in charge of)\s+(?P<o3>[^,;]+?)" + _RESP_END
    + r"|\bI(?:'m| am)\s+(?:currently\s+|now\s+)?(?P<v4>running|leading|managing|heading|overseeing|coordinating)\s+(?P<o4>(?:the|our)\s+[^,;]+?)" + _RESP_END
    + r"|^(?:I|I'm|I am|I've)\b[^,;]*?\s+and\s+(?:also\s+|mainly\s+|now\s+)?(?P<v5>" + _RESP_VERBS + r")\s+(?P<o5>[^,;]+?)" + _RESP_END
    # the job named by what the user does for an employer: "I plan fleet maintenance for a trucking company"
    + r"|\bI\s+(?:also\s+|mainly\s+|mostly\s+)?(?P<v6>plan|schedule|design|build|sell|source|buy|audit|inspect|repair|install|test|"
      r"develop|write|analy[sz]e|forecast|underwrite|recruit|hire|price|market|dispatch|process)\s+(?P<o6>(?!to\b|my\b|it\b|them\b)[^,;]+?)"
      r"(?=\s+for\s+(?:an?|our|the)\s+(?:[\w\-]+\s+){0,3}?(?:company|firm|business|group|contractor|agency|employer|startup|practice|clinic|"
      r"hospital|bank|insurer|chain|retailer|manufacturer|operator|provider|line|winery|brewery|installer|homebuilder|builder|developer|"
      r"fintech|carrier|airline|utility|council|school|university)\b)"
    + r"|\bI(?:'ve| have)?\s+(?:also\s+|just\s+|recently\s+)?(?:started|begun|began|taken over|took over|picked up)\s+(?P<v7>covering|running|managing|leading|handling|supporting|overseeing|looking after)\s+"
      r"(?P<o7>(?:the|our|a|an|all|both|two|three|several|some|another)\s+[^,;]+?)(?=\s+(?:this|last) (?:month|week|year|quarter)\b|\s+(?:as well|too|now|recently)\b|" + _RESP_END[3:],
    re.I)
# A gerund clause continuing a first-person clause of the same sentence ("I've moved to Dublin, same role,
# running EMEA sales out of the Irish office").
_EN_RESP_CONT = re.compile(r"^(?:also\s+|mainly\s+|mostly\s+|now\s+)?(?P<v>" + _RESP_GERUNDS + r")\s+(?P<o>[^,;]+?)" + _RESP_END, re.I)
_EN_RESP_BAD_OBJ = re.compile(
    r"^(?:(?:a|an)\s+\w+$|my\s+(?:" + _alt(L.EN_FAMILY) + r")\b|myself|yourself|you\b|it\b|this\b|that\b|them\b|things\b|a lot\b|lots\b|"
    r"every\b|each\b|to\b|into\b|out\b|around\b|away\b|late\b|home\b)", re.I)
_EN_GENERIC_PRED = re.compile(r"\b(is|are|was|were|has been|have been|can|could|must|will|would|should|makes?|takes?|feels?)\b", re.I)
_EN_INDUSTRY_RE = re.compile(r"\b(" + _alt(L.EN_INDUSTRIES) + r")\b", re.I)
_EN_INDUSTRY_CTX = re.compile(r"\b(company|firm|vendor|contractor|provider|startup|industry|sector|agency|bank|hospital|plant|retailer|manufacturer|operator|group|chain|business|clinic|winery|brewery|distillery|fintech|insurer|line|terminal|installer|practice|lab|studio|homebuilder)\b", re.I)
_EN_WORK_CTX = re.compile(r"\b(work|working|job|employer|company|firm|startup)\b", re.I)
_EN_FIRST_PERSON = re.compile(r"\b(I|I'm|I've|my|our|we)\b", re.I)
_EN_EDU_RE = re.compile(
    r"\b(?:graduated from|studied (?:\w+\s+){0,3}at|(?i:have|got|did|hold|earned|completed|finished) (?i:an? |my )?"
    r"(?P<deg>(?i:master'?s|bachelor'?s|phd|ph\.d\.|mba|degree|doctorate|msc|bsc))(?: (?i:in) [\w\s]+?)? (?i:from|at))\s+"
    r"(?P<u>(?:the\s+)?[A-Z][\w&.\-]*(?:\s+(?:of|[A-Z][\w&.\-]*))*)")
_EN_DEPT_RE = re.compile(
    r"\bon the ([\w&\- ]{2,40}? team)\b|\bin (?:the |our )?(?:[A-Z][\w]+ )?([\w&\- ]{2,30}? (?:centre|center|department|division))\b"
    r"|\bI\s+(?:\w+\s+)?work\s+(?:in|on|for)\s+(?:the|our)\s+([\w&\- ]{2,40}? (?:department|team|division|unit))\b"
    r"|\bI(?:'m| am)\s+(?:in|on|part of)\s+(?:the|our)\s+([\w&\- ]{2,40}? (?:department|team|division|unit))\b"
    r"|\b(?:moved|moved over|switched|transferred|rotated|joined|been moved|been transferred)\s+(?:over\s+)?(?:to\s+|into\s+)?(?:the|our)\s+"
    r"([\w&\- ]{2,40}? (?:department|team|division|unit|group))\b", re.I)
_EN_DIRECTIVE = re.compile(
    r"\b(always|never|any|every|default|by default|prefer|going forward|from now on|for any|for all|instead|everything|switch|i work in|give me|use|"
    r"lives in|keep|all my|of choice|go-to|preferred|favou?rite|rather than)\b", re.I)
_EN_PREF_MARK = re.compile(
    r"\b(always|never|going forward|from now on|by default|default|prefer|preferably|preferred|i like|i love|i want|i'd like|i'd rather|"
    r"i'd prefer|rather than|all|any|every|everything|for good|can't stand|cannot stand|don't like|hate it when|unless|whenever|"
    r"how i want|instead|in future|in the future|work best|works best|best for me|easier for me|of choice|go-to|"
    r"in your (?:answers|replies|responses|writing|drafts|emails)|"
    r"keep (?:it|things|answers|replies|responses|them|everything|your|code|explanations|the tone)|don't use|do not use|stop using|"
    r"avoid|no need to|less|fewer|(?:i'm|i am) (?:fine|ok|okay|happy|comfortable) with|works? for me|suits me|"
    r"i take my|i (?:only |usually |normally )?drink|i usually|i normally|i tend to|i hate|"
    r"when you (?:cite|write|answer|reply|quote|explain|give|send|draft|list|summari[sz]e|report|mention|translate|review|describe|compare|recommend)|"
    r"should (?:always |never )?(?:stay|be kept|be under|be no (?:longer|more))|stay under|keep (?:\w+ )?under)\b", re.I)
# A standing rule overrides a deictic one-off ("always answer like this"); without one, "for this one",
# "this paragraph" or "that email" make a request about one artefact, not a preference.
_EN_STANDING = re.compile(
    r"\b(always|never|going forward|from now on|by default|default|in future|in the future|every time|whenever|all my|unless|"
    r"for good|prefer|i like|i'd rather|can't stand|don't like|i hate|"
    r"when you (?:cite|write|answer|reply|quote|explain|give|send|draft|list|summari[sz]e|report|mention|translate|review|describe|compare|recommend))\b", re.I)
_EN_ONE_OFF = re.compile(
    r"\b(?:this|that|these|those)\s+(?:one|time|email|draft|paragraph|answer|reply|message|doc|document|post|section|sentence|"
    r"list|table|text|version|intro|slide|report|letter|script|query|function|file)s?\b|\b(?:for|in|with) (?:this|that|it)$|"
    r"\bthe (?:above|previous|last) (?:one|answer|reply|draft|paragraph)\b", re.I)
_CUR = _alt(L.CURRENCIES)
_LANGS = (r"English|Chinese|Mandarin|Cantonese|Spanish|French|German|Japanese|Korean|Portuguese|Italian|Dutch|Russian|Arabic|"
          r"Hindi|Vietnamese|Thai|Indonesian|Malay|Polish|Turkish|Swedish|Greek|Hebrew")
_EN_PREF_TOPICS = [
    ("currency", re.compile(r"\b(?:figures|amounts|numbers|prices|everything|all|reporting|values|costs|money)\b[^.]{0,24}?\b(?:in|to)\s+(?P<v>" + _CUR + r")\b|\bswitch\b[^.]{0,24}?\bto\s+(?P<v2>" + _CUR + r")\b", re.I), "cur"),
    ("units", re.compile(r"\b(?:metric|imperial)\b(?!\s+(?-i:[A-Z]))(?: units| system| measurements)?|\bkilograms\b|\bcelsius\b|\bfahrenheit\b", re.I), "span"),
    ("rounding", re.compile(r"\bnearest (?:thousand|million|hundred|dollar|whole number|\w+)\b|\b(?:one|two|three|\d) decimal places?\b", re.I), "span"),
    ("spelling", re.compile(r"\b(?:British|American|UK|US|Australian|Canadian)\s+(?:English\s+)?spelling\b", re.I), "span"),
    ("punctuation", re.compile(r"\b(?:no|never use|avoid|without|skip the)\s+exclamation (?:marks|points)\b|\bexclamation (?:marks|points)\b|\boxford comma\b|\bem[- ]dashes\b", re.I), "span"),
    ("emoji", re.compile(r"\b(?:no|never use|without|avoid)?\s*emojis?\b", re.I), "span"),
    ("code_comments", re.compile(r"\b(?:code\s+)?comments\b|\bdocstrings?\b", re.I), "clause"),
    ("citation", re.compile(r"\b(?:cite|citations?|sources?|references|footnotes?)\b", re.I), "clause"),
    ("language", re.compile(r"\b(?:in|reply in|respond in|answer in|write in)\s+(?:" + _LANGS + r")\b", re.I), "marked"),
    ("schedule", re.compile(
        r"\b\d{1,2}(?::\d\d)?\s*(?:am|pm)?[- ]to[- ]\d{1,2}(?::\d\d)?\s*(?:am|pm)?\s+(?:working\s+|work\s+)?(?:schedule|day|shift)\b"
        # standing rules about working days and hours: "I don't work weekends", "no meetings before 10am"
        r"|\b(?:don't|do not|never|no|won't)\s+(?:work|meetings?|calls?|messages?|emails?|pings?)\s+(?:on\s+)?(?:weekends|saturdays|sundays)\b"
        r"|\b(?:never|don't|do not)\s+(?:schedule|book|plan|put)\b[^.;]{0,30}?\bon\s+(?:weekends|saturdays|sundays|mondays|fridays)\b"
        r"|\b(?:no|never|don't (?:book|schedule)|avoid)\s+(?:meetings?|calls?)\s+(?:before|after)\s+\d{1,2}(?::\d\d)?\s*(?:am|pm)\b"
        r"|\b(?:focus time|deep work|meetings?|calls?)\s+(?:before|after|until)\s+\d{1,2}(?::\d\d)?\s*(?:am|pm)\b"
        r"|\b(?:a\s+)?(?:morning|night|evening) (?:person|owl)\b|\bearly (?:riser|bird)\b", re.I), "span"),
    # Diet is about the user ("I'm vegan", "I don't eat pork"), never a dish someone else ate.
    ("diet", re.compile(
        r"\bI(?:'m| am)\s+(?:a\s+)?(?:strict\s+|strictly\s+|fully\s+|mostly\s+)?(?P<v>vegetarian|vegan|pescatarian|gluten[- ]free|lactose[- ]intolerant|coeliac|celiac|teetotal)\b"
        r"|\bI\s+(?P<v2>(?:don't|do not|never|can't|cannot)\s+eat\s+\w+|(?:only\s+)?eat\s+(?:halal|kosher)|keep\s+(?:halal|kosher))\b"
        r"|\bI(?:'m| am)\s+(?P<v3>allergic to (?:tree nuts|nuts|peanuts|shellfish|seafood|gluten|dairy|eggs|soy|wheat|fish|sesame|lactose))\b", re.I), "grp"),
    ("drink", re.compile(r"\b(?:coffee|tea|espresso|latte|decaf)\b", re.I), "clause"),
    ("structure", re.compile(
        r"\b(?:lead with|start with|(?:the\s+)?(?:figures|numbers|conclusion|summary|answer|bottom line|code|result|recommendation|"
        r"key points?|headline|tl;?dr|steps|example) first)\b"
        r"|\b(?:summary|tl;?dr|recap|conclusion)\s+(?:at the (?:top|start|beginning)|up ?front)\b"
        r"|\b(?:with|include|add|give me|show me)\s+(?:an?\s+|some\s+|concrete\s+|real\s+|worked\s+|real-world\s+)*examples?\b"
        r"|\b(?:put|give me|show me|list|state)\s+(?:the\s+|a\s+)?[\w\- ]{2,30}?\s+first\b", re.I), "clause"),
    ("format", re.compile(r"\b(?:bullet points?|bullets|tables?|numbered (?:lists?|steps|points|items)|markdown|headings|step[- ]by[- ]step|one-pager|checklists?"
                          r"|PDFs?(?: attachments?)?|plain[- ](?:email|text)(?: summar(?:y|ies))?|email summar(?:y|ies)|slide decks?)\b", re.I), "clause"),
    ("answer_length", re.compile(
        r"\b(?:short|brief|concise|detailed|in depth|in-depth|long-form|one-line|succinct|shorter|longer|"
        r"waffle|rambl\w*|to the point|straight to the (?:point|answer)|wall of text|long paragraphs|word limit)\b"
        r"|\bunder \d+ (?:words|characters|chars|lines|sentences)\b|\b\d+ (?:words|characters|chars|lines) or (?:less|fewer)\b"
    r"|\b(?:long|lengthy|wordy|verbose) (?:answers|replies|responses|emails|explanations)\b", re.I), "clause"),
    ("filler", re.compile(r"\b(?:pleasantries|small talk|fluff|filler|preamble|disclaimers?|caveats?|apologi[sz]\w*|sign-offs?|"
                          r"(?:the |any )?(?:intro|outro)s?)\b", re.I), "clause"),
    ("date_format", re.compile(r"(?-i:\b(?:DD|MM|YYYY|YY)([/\-.])(?:DD|MM)\1(?:YYYY|YY|DD)\b)|\bdates?\s+(?:as|in|like)\s+(?:[A-Z]{1,4}[/\-.][A-Z]{1,4}[/\-.][A-Z]{2,4}|ISO(?: 8601)?|\w+ format)\b", re.I), "span"),
    ("tone", re.compile(r"\b(?:second person|first person|plain English|formal|informal|casual|relaxed|friendly|jargon|tone|blunt|polite)\b", re.I), "tone"),
    # Leisure habits: "I go hiking most weekends", "I love sailing" (not "I love running the stand-ups").
    ("hobby", re.compile(
        r"\bI\s+(?:really\s+|also\s+)?(?:love|like|enjoy)\s+(?P<v>" + _alt(L.EN_HOBBIES) + r")\b(?=\s*$|\s*[,.;!]|\s+(?:and|on|at|in|every|most|with|whenever|when|outdoors|together)\b)"
        r"|\bI\s+(?:usually\s+|often\s+|always\s+|also\s+)?(?:go|do)\s+(?P<v2>" + _alt(L.EN_HOBBIES) + r")\s+(?:every|most|on|at)\s+(?:weekends?|saturdays?|sundays?|week|mornings?|evenings?)\b",
        re.I), "grp"),
    # standing content rules: "always list the ICD-10 codes next to each line", "never include ..."
    ("content", re.compile(r"\b(?:always|never)\s+(?:list|include|show|add|mention|put|quote|flag|note|state|highlight|mark)\s+[^,;.]{3,60}", re.I), "span"),
    ("transport", re.compile(r"\b(?:by train|take the train|window seat|aisle seat|drive to work|cycle to work|bike to work)\b", re.I), "span"),
]
_EN_FACT_EVENTS = [
    ("school", re.compile(r"\b(?:started|starts|starting|began|entered|graduated from|finished|is in|goes to)\s+(?:(?:his|her|their)\s+)?(?:first year (?:of|at)\s+)?(university|college|kindergarten|preschool|nursery|primary school|middle school|high school|elementary school|school|grade \w+|first grade)\b", re.I)),
    ("birth", re.compile(
        r"\b(?:had|welcomed|adopted)\s+(?:a|our|my|their)\s+(?:(?:first|second|third|fourth|new|little|baby)\s+)?(?:baby|son|daughter|child|kid|boy|girl|twins|grandson|granddaughter)\b"
        r"|\bbecame (?:a )?(?:first-time )?(?:father|mother|dad|mom|mum|parent|grandfather|grandmother|grandparent|grandma|grandpa|granny|aunt|uncle)\b"
        r"|\b(?:was|were) born\b|\bgave birth\b", re.I)),
    ("marriage", re.compile(r"\b(?:got married|married|got engaged|got divorced|tied the knot)\b", re.I)),
    ("relocation", re.compile(r"\b(?:moved|relocated)\s+(?:here\s+|back\s+)?(?:to|from)\s+(?P<p>[A-Z][\w'.\-]*(?:\s+[A-Z][\w'.\-]*)*)", re.I)),
    ("graduation", re.compile(r"\bgraduated\b", re.I)),
    ("certificate", re.compile(
        r"\b(?:passed|cleared|got|earned|obtained|received|completed|achieved|been awarded|was awarded)\s+(?:my|the|an?|our)\s+(?:final\s+)?"
        r"(?P<n>(?-i:[A-Z][\w\-&/]*(?:\s+[A-Z][\w\-&/]*){0,3}))(?:\s+(?:exams?|certification|certificate|licen[cs]e|credential|qualification|designation))?\b"
        r"|\b(?:held|had)\s+(?:my|the|an?)\s+(?P<n2>(?-i:[A-Z][\w\-&/]*(?:\s+[A-Z][\w\-&/]*){0,2}))(?:\s+(?:certification|certificate|licen[cs]e|credential|charter|designation))?\s+since\b"
        r"|\b(?:passed|cleared)\s+(?:my|the|an?)\s+(?:final\s+)?(?P<n3>[\w\-]+(?:\s+[\w\-]+){0,2}?)\s+(?:exams?|boards)\b"
        # blind 12: "finished the Cornell revenue management certificate in November", "got through the higher
        # rights of audience assessment last autumn", "cleared NISM Series XXI-A last month", "went chartered with the IMechE"
        r"|\b(?:finished|completed|passed|got through|earned|obtained|did)\s+(?:my|the|an?)\s+(?P<n4>[\w\-&/.]+(?:\s+[\w\-&/.]+){0,4}?)"
        r"\s+(?:certificate|certification|cert|course|assessment|diploma|accreditation|programme|program)\b"
        r"|\b(?:passed|cleared)\s+(?P<n5>(?-i:[A-Z][A-Z0-9][\w\-&/]*(?:\s+[A-Z0-9][\w\-&/]*){0,3}))"
        r"|\b(?:went|became|got)\s+chartered(?:\s+(?:with|by|through)\s+(?:the\s+)?(?P<n6>(?-i:[A-Z][\w\-&]+)))?", re.I)),
    ("job_change", re.compile(r"\b(?:joined|retired|got promoted|was promoted|started a new job|got a new job|changed jobs|switched jobs|went freelance|"
                              r"started (?:at|with) (?:this|the|a|my new) (?:company|firm|job|team)|started working (?:at|for|here))\b", re.I)),
]
_EN_RETRACT = re.compile(
    r"\b(?:I\s+)?no longer\s+(?P<v>manage|lead|run|handle|own|cover|work on|look after|support|coordinate|oversee|do)\s+(?P<o>[^,;.]+)"
    r"|\bI(?:'m| am) no longer (?:a|an|the)\s+(?P<r>[^,;.]+)"
    r"|\bI (?:don't|do not) (?P<v2>manage|lead|run|handle|own|cover) (?P<o2>[^,;.]+?) any ?more\b"
    r"|\bI (?:don't|do not) (?:live|work|stay) in (?P<city>[A-Z][\w'.\-]*(?:\s+[A-Z][\w'.\-]*){0,2}) any ?more\b"
    r"|\bI (?:no longer|don't|do not) (?:live|work|stay) in (?P<city2>[A-Z][\w'.\-]*(?:\s+[A-Z][\w'.\-]*){0,2})(?=\s*$|\s+(?:any ?more|now)\b)"
    r"|\bI(?:'ve| have)? moved (?:away )?(?:out of|away from) (?P<city3>[A-Z][\w'.\-]*(?:\s+[A-Z][\w'.\-]*){0,2})\b", re.I)


_EN_REGION_RE = re.compile(r"\b(?:live in|living in|based in|located in|moved to|relocated to|reside in)\s+(?:the\s+)?(" + _alt(L.EN_REGION_LIST) + r")\b", re.I)
_EN_WORKPLACE_RE = re.compile(r"\bI\s+(?:\w+\s+)?work\s+(?:part[- ]time\s+|full[- ]time\s+)?(?:at|in|for)\s+(?:a|an|the)\s+(?P<w>(?:[\w&'\-]+\s+){0,3}?[\w&'\-]+?)(?=\s+(?:as|in|at|and|but|so|with|for|near|downtown)\b|$)", re.I)


def _en_city(c: str, relocating: bool = False) -> tuple[str | None, bool]:
    """The city or region named in clause ``c`` and whether a residence/workplace anchor names it."""
    rm = _EN_REGION_RE.search(c)
    if rm:
        return next((r for r in L.EN_REGION_LIST if r.lower() == rm.group(1).lower()), rm.group(1)), True
    for m in _EN_CITY_RE.finditer(c):
        before = c[max(0, m.start() - 30):m.start()]
        if _EN_CITY_BAD_BEFORE.search(before):
            continue
        if relocating or _EN_CITY_STRONG.search(before) or _EN_CITY_AFTER.match(c[m.end():m.end() + 14]):
            return m.group(1), True
        if _EN_CITY_WEAK.search(before):
            return m.group(1), False
    return None, False


def _en_resp(c: str, continuing: bool):
    """(verb, object) of a responsibility stated by the user, or None."""
    r = _EN_RESP_RE.search(c)
    if r:
        v = next(g for g in ("v", "v3", "v4", "v5", "v6", "v7") if r.group(g))
        o = r.group({"v": "o", "v3": "o3", "v4": "o4", "v5": "o5", "v6": "o6", "v7": "o7"}[v])
        verb = r.group(v)
    elif continuing:
        r = _EN_RESP_CONT.match(c)
        if not r or _EN_GENERIC_PRED.search(c[r.end("v"):]):
            return None
        verb, o = r.group("v"), r.group("o")
    else:
        return None
    o = o.strip()
    if _EN_RESP_BAD_OBJ.match(o) and not o.lower().startswith("the "):
        return None
    return verb, o


def _en_profile(c: str, lang: str, out: list, continuing: bool = False) -> None:
    rel = re.search(r"\b(?:relocated|moved|transferred)\s+(?:back\s+)?to\s+", c, re.I)
    city, strong = _en_city(c[rel.end():], True) if rel else _en_city(c)
    m = _EN_TITLE_RE.search(c)
    resp = _en_resp(c, continuing)
    dm = _EN_DEPT_RE.search(c)
    w = _EN_WORKPLACE_RE.search(c)
    org = _en_org(c)
    works = bool(m or resp or dm or w or org)
    if city and (strong or works):
        out.append(_cand("profile", "city", city, lang))
    else:
        city = None
    if m:
        g = next(g for g in _TITLE_GROUPS if m.group(g))
        t = m.group(g).strip()
        hm = re.search(r"\bI(?:'m| am)\s+(?:the\s+|an?\s+)?((?:head|director|VP|vp|manager) of [A-Za-z&]+)", c)
        if hm:
            t = hm.group(1)
        nxt = _EN_TITLE_NEXT_RE.match(c[m.end(g):])
        if nxt and g != "t5":
            t += " " + nxt.group(1)
        out.append(_cand("profile", "role", t, lang))
        sen = next((s for s in L.EN_SENIORITY if t.lower().startswith(s + " ")), None)
        if sen:
            out.append(_cand("profile", "seniority", sen, lang))
        more = _EN_TITLE_MORE_RE.match(c[m.end():])
        if more:
            out.append(_cand("profile", "role", more.group("t"), lang))
    if not m:
        sw = _EN_SWITCH_RE.search(c)
        if sw:
            out.append(_cand("profile", "role", sw.group("f"), lang))
    if dm and (m or dm.group(3) or dm.group(4) or dm.group(5)):
        dep = next(x for x in dm.groups() if x)
        if city:
            dep = dep.replace(city + " ", "")
        out.append(_cand("profile", "department", dep, lang))
    if resp:
        o = resp[1]
        if city:
            o = re.sub(r"\s+(?:in|out of|at)\s+(?:the\s+|our\s+)?" + re.escape(city) + r".*$", "", o)
        out.append(_cand("profile", "responsibility", (resp[0] + " " + o).strip(), lang))
    # An industry word inside the title ("Director of Finance") is the title's field, not the employer's industry.
    if m:
        a, b = m.span(next(g for g in _TITLE_GROUPS if m.group(g)))
        c_ind = c[:a] + " " * (b - a) + c[b:]
    else:
        c_ind = c
    ind = _EN_INDUSTRY_RE.search(c_ind)
    if ind and _EN_INDUSTRY_CTX.search(c) and (works or (_EN_WORK_CTX.search(c) and _EN_FIRST_PERSON.search(c))):
        out.append(_cand("profile", "industry", ind.group(1).lower(), lang))
    for e in _EN_EDU_RE.finditer(c):
        out.append(_cand("profile", "education", re.sub(r"^the\s+", "", e.group("u")), lang))
    if org:
        out.append(_cand("profile", "company", org, lang))
    elif w and not _TOOLS_RE.search(w.group("w")) and not _EN_INDUSTRY_RE.fullmatch(w.group("w")) and not (city and city in w.group("w")) and not (dm and w.group("w") in dm.group(0)):
        out.append(_cand("profile", "company", w.group("w"), lang))


def _en_org(c: str) -> str | None:
    """The named employer in clause ``c`` ("I work at Siemens", "I'm a data engineer at Shopify"), or None.
    Places, tools, weekdays and months are not employers."""
    for mm in _EN_COMPANY_RE.finditer(c):
        co = mm.group("co1") or mm.group("co2") or mm.group("co3")
        co = re.sub(r"(?:'s)$", "", co).strip(" .")
        if not co or _EN_NOT_ORG.match(co) or _TOOLS_RE.fullmatch(co) or _EN_CITY_RE.fullmatch(co) or _EN_REGION_RE.search("in " + co) \
                or co.lower() in {r.lower() for r in L.EN_REGION_LIST}:
            continue
        return co
    return None


def _en_pref_topics(c: str, topics: list, out: list) -> bool:
    """Append the first preference topic of ``topics`` found in clause ``c``; True when one was."""
    for key, rx, mode in topics:
        m = rx.search(c)
        if not m:
            continue
        if mode == "cur":
            v = m.group("v") or m.group("v2")
            v = L.CURRENCIES.get(v, L.CURRENCIES.get(v.lower(), v.upper()))
        elif mode in ("span", "marked"):
            v = m.group(0).strip()
        elif mode == "grp":
            v = next(x for x in m.groups() if x)
        elif mode == "tone":
            v = ", ".join(dict.fromkeys(x.group(0) for x in rx.finditer(c)))
        else:
            v = re.sub(r"^(?:and|also|please|so)\s+", "", c, flags=re.I)[:80]
        out.append(_cand("preference", "pref:" + key, v, "en"))
        return True
    return False


_EN_POLITE_RULE = re.compile(
    r"^(?:(?:ok|okay|so|and|also|hey|hi)\W+)*(?:could|can|would|will) you\s+(?:please\s+)?"
    r"(?=.*\b(?:always|never|from now on|going forward|in future|by default|default to|every time)\b)", re.I)
_UNMARKED_OK = {"currency", "units", "rounding", "spelling", "punctuation", "schedule", "diet", "hobby"}
# Answer-style topics must be about what the assistant produces for the user ("your answers", "write",
# "for me", "I prefer ..."): "All you need is to be friendly" describes the listener, not a style.
_STYLE_TOPICS = {"format", "structure", "answer_length", "tone", "language", "code_comments", "citation", "emoji", "punctuation",
                 "filler", "date_format"}
_EN_STYLE_CUE = re.compile(
    r"\b(?:you (?:write|answer|reply|respond|give|send|draft|explain|suggest|compare|summari[sz]e|use|format|show|list|present)|"
    r"your (?:answers?|repl(?:y|ies)|responses?|writing|drafts?|explanations?|summar(?:y|ies)|output|code|messages?)|"
    r"answers?|repl(?:y|ies)|respon(?:d|ses?)|write|writing|written|drafts?|explain|explanations?|give me|send me|show me|tell me|"
    r"format|output|summar\w*|reports?|updates?|emails?|docs|documents?|code|scripts?|cite|sources|for me|with me|to me|"
    r"i (?:read|skim)|i prefer|i'd prefer|i like|i'd like|i'd rather|i want|work best|works best|use|tone|style|"
    r"you (?:quote|mention|state|cite)|quot(?:e|ing)|links?|sources?|please|jargon|caveats?|disclaimers?|emojis?|pleasantries|fluff|"
    r"captions?|tweets?|posts?|headlines?|subject lines?)\b", re.I)


_EN_CONDITION = re.compile(r"^(?:when|whenever|if|each time|every time)\s+you\s+\w+(?:\s+[\w\-'/]+){0,5}$", re.I)


def extract_en(text: str, at: _dt.datetime, out: list) -> None:
    """Append the candidates of one English message ``text`` (sent at ``at``) to ``out``."""
    for sent, clauses in _split_en(text):
        # The subject is resolved per sentence: "I'm here for you! Go create something" must not
        # lend the "I" of the first sentence to the second.
        subject = None
        tm = re.search(r"\b(?:when I say|by)\s+[\"'“‘]?(?P<t>[\w\- ]{1,30}?)[\"'”’]?,?\s+I mean\s+(?P<d>[^.!?]+)", sent, re.I)
        if tm and not sent.rstrip().endswith("?"):
            out.append(_cand("preference", "pref:terminology:" + tm.group("t").lower(), tm.group("d"), "en"))
            continue
        pm = _EN_POLITE_RULE.match(sent) if sent.rstrip().endswith("?") else None
        if pm:
            # "Could you always format dates as DD/MM/YYYY?" is a standing rule asked politely.
            sent = sent[pm.end():].rstrip(" ?")
            clauses = _split_en(sent)[0][1] if sent else []
        elif sent.rstrip().endswith("?"):
            keep = []
            for cl in clauses[:-1]:
                cl2 = _strip_discourse(cl, _EN_DISCOURSE)
                if not re.match(r"^(i|i'm|i've|my|we)\b", cl2, re.I) or re.match(r"^i\s+(wonder|was wondering)\b", cl2, re.I):
                    break
                keep.append(cl)
            if not keep:
                continue
            clauses = keep
        for ci, raw in enumerate(clauses):
            c = _strip_discourse(raw, _EN_DISCOURSE)
            if not c:
                continue
            if ci < len(clauses) - 1 and _EN_CONDITION.match(c):
                continue  # "When you cite a clause, put the section number first": the rule is in the next clause
            continuing = subject == "self"
            s = _en_subject(c)
            if s is not None:
                subject = s
            if _EN_HYPO.search(c):
                break
            if _EN_EMOTION.search(c) or _PII_LIKE.search(c):
                continue
            subj = subject or "none"
            if subj in ("self", "none", "we") or subj.startswith("family:"):
                _en_fact(c, subj, at, out)
            if _EN_TEMP.search(c) or _PROJECT.search(c) or _EN_PAST.search(c) or _EN_PLAN.search(c):
                continue
            if subj == "other" or subj.startswith("family:"):
                continue
            r = _EN_RETRACT.search(c)
            if r and subj in ("self", "none"):
                place = r.group("city") or r.group("city2") or r.group("city3")
                if place:
                    if _EN_CITY_RE.fullmatch(place) or place.lower() in {x.lower() for x in L.EN_REGION_LIST}:
                        out.append(_cand("profile", "city", place, "en", operation="retract"))
                    continue
                if r.group("r"):
                    out.append(_cand("profile", "role", r.group("r"), "en", operation="retract"))
                else:
                    obj = r.group("o") or r.group("o2")
                    out.append(_cand("profile", "responsibility", obj, "en", operation="retract"))
                continue
            standing = _EN_STANDING.search(c) or _EN_STANDING.search(sent)
            one_off = _EN_ONE_OFF.search(c) and not standing
            used = set()
            if not one_off:
                used = _tool_prefs(c, sent, "en", out, _EN_DIRECTIVE, code_ok=subj != "self" or bool(standing))
            got_pref = bool(used) and bool(out) and out[-1].kind == "preference" and out[-1].value.lower() in used
            marked = _EN_PREF_MARK.search(c) or _EN_PREF_MARK.search(sent)
            if not got_pref and not one_off and subj in ("self", "you", "none", "we"):
                styled = subj == "you" or _EN_STYLE_CUE.search(c) or _EN_STYLE_CUE.search(sent)
                topics = [t for t in _EN_PREF_TOPICS if (marked or t[0] in _UNMARKED_OK) and (styled or t[0] not in _STYLE_TOPICS)]
                got_pref = _en_pref_topics(c, topics, out)
            if got_pref or subj == "you":
                continue
            neg = _EN_NEG.search(c)
            if subj in ("self", "none") and not neg:
                _en_profile(c, "en", out, continuing)
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
            value = re.sub(r"\s+since$", "", (member + " " if member else "") + m.group(0))
        key = "fact:" + topic + (":" + member if member else "")
        if topic == "certificate":
            if member:
                return
            name = next((m.group(g) for g in ("n", "n2", "n3", "n4", "n5", "n6") if m.group(g)), "chartered")
            key = "fact:certificate:" + name.lower()
        out.append(_cand("fact", key, value, "en", d[0], d[1]))
        return
