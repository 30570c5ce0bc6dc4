"""English rules of the extractor: sentence/clause splitting, subject detection, never-rules
(questions, hypotheticals, emotions, temporary states, negation, past), profile / preference /
fact patterns and relative-date resolution (last fall, two years ago ...). Entry: :func:`extract_en`.
"""
from __future__ import annotations

import datetime as _dt
import re

from . import extraction_lexicon as L
from .extraction_common import (
    _EN_NUM, _MONTHS, _PII_LIKE, _PROJECT, _TOOLS_RE, _alt, _cand, _shift_month, _skills, _strip_discourse, _tool_prefs,
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
    mm = re.search(r"\b(a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a couple of|several|a few)\s+(years?|months?)\s+ago\b", s)
    if mm:
        n = _EN_NUM.get(mm.group(1)) or int(mm.group(1))
        if mm.group(2).startswith("month"):
            y, m = _shift_month(at.year, at.month, -n)
            return _dt.date(y, m, 1), "month"
        return _dt.date(at.year - n, 1, 1), "year"
    # "in March", "last September", "this June", "March 2024": a bare or "last" month is the
    # most recent one not after the message month; "this"/"next" look ahead within the year.
    mm = re.search(r"\b(in|last|this|next|since|back in)\s+(" + "|".join(_MONTHS) + r")(?:\s+(?:of\s+)?(\d{4}))?\b", s)
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
    mm = re.search(r"\bin\s+((?:19|20)\d\d)\b", s)
    if mm:
        return _dt.date(int(mm.group(1)), 1, 1), "year"
    if re.search(r"\blast year\b", s):
        return _dt.date(at.year - 1, 1, 1), "year"
    if re.search(r"\bthis year\b", s):
        return _dt.date(at.year, 1, 1), "year"
    return None


_EN_EMOTION = re.compile(r"\b(fed up|walk out|stressed|anxious|exhausted|frustrat\w*|burn(ed|t) out|sick of|tired of|annoyed|furious|overwhelmed|miserable|depressed|losing my mind|so done|quit my job|pissed)\b", re.I)
_EN_TEMP = re.compile(r"\b(today|tonight|tomorrow|this week(end)?|next week|next month|this afternoon|this morning|right now|at the moment|for a while|for now|temporarily|off sick|on leave|on vacation|this time)\b", re.I)
_EN_HYPO = re.compile(r"\b(if i were|if i was|if i had|were i|imagine|suppose|supposing|hypothetically|what if)\b", re.I)
_EN_NEG = re.compile(r"\b(i'm not|i am not|not an?|i don't work|i do not work|never been|isn't|i'm no longer|i am no longer)\b", re.I)
_EN_PAST = re.compile(r"\b(used to|previously|formerly|before that|migrated off|moved off)\b", re.I)
_EN_REQUEST = re.compile(r"^(please|can you|could you|would you|help me|write|draft|make|give|show|book|open|rank|turn|set|tidy|break|explain|walk|find|check|send|create|add|fix|summari[sz]e|translate)\b", re.I)

_EN_DISCOURSE = re.compile(
    r"^(hi|hey|hello|ok|okay|also|and|but|so|yes|yeah|thanks|thank you|great|good|nice|fine|anyway|right|morning|well|honestly|"
    r"unrelated|for context|quick update on me|heads up|personal milestone|btw|by the way|actually|oh|sure|cool|got it|going forward)\b[,:!.\s—-]*",
    re.I,
)
_EN_FAMILY_RE = re.compile(r"^my\s+(" + _alt(L.EN_FAMILY) + r")\b", re.I)
_EN_OTHER_RE = re.compile(
    r"^((?:my|our)\s+(" + _alt(L.EN_OTHERS) + r")|he|she|they|his|her|their|the (client|customer|candidate)|a (candidate|colleague|client)|"
    r"[A-Z][a-z]+\s+(is|has|was|said|says|will|wants))\b", re.I)


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


def extract_en(text: str, at: _dt.datetime, out: list) -> None:
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
