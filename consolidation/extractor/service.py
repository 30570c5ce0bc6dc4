"""Candidate generation for a batch of user turns: the trained model proposes, rules guard.

:func:`candidates_extract` is what extraction calls. Per turn:

1. **message vetoes** (:func:`consolidation.extractor.vetoes.message_veto`): injections, unsafe
   'preferences', the product's own memory pasted back → no candidate, and the reason is returned
   so the caller can audit it;
2. **rules** (:func:`consolidation.extraction_rules.extract_candidates`): precise where they fire
   (dates, retractions, superseding); their candidates pass the quoted-text and knowledge-talk vetoes;
3. **model** (:mod:`consolidation.extractor.model`): spans the rules did not produce, each through
   the span vetoes, with the value as said ("oolong tea"), the registry's stored key, a retraction
   when the sub-clause negates it, and a resolved date for facts (a fact needs a time anchor).

Every candidate records its ``stage``: ``rule:<rules version>`` or ``model:<model version>:<score>``.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import itertools
import logging
import re
import threading
from dataclasses import dataclass, field

from profiles.embeddings import USEEmbedder, get_embedder
from profiles.taxonomy import key_name, key_spec, spec_for_label, stored_key

from .. import extraction_lexicon as L
from ..extraction_common import Candidate, _cand, _lang_of, candidate_reword
from ..extraction_en import _resolve_date_en
from ..extraction_rules import RULES_VERSION, extract_candidates
from ..extraction_zh import _resolve_date_zh
from . import model as M
from .text import Span, clause_at, sentences
from .context import addressee, context_veto
from .misreads import job_change_misread, org_shaped, place_without_time, profile_misread
from .vetoes import (BARE_VERB, LANGUAGE_WORDS, JOB_CUE, denied_in_turn, event_veto, message_veto, negation, own_words, quoted_regions,
                     span_veto, value_veto)

log = logging.getLogger("bizmemory.extraction")

_lock = threading.Lock()
_STOP_VALUES = re.compile(r"^(?:我|俺|本人|i|me|my|the|a|an|it|this|that|这个|那个|的|是|在|做)$", re.I)


@dataclass
class TurnCandidates:
    """What :func:`candidates_extract` found in one turn: the ``candidates`` to journal, the
    message-level ``veto`` code (None when the turn was read), and ``vetoed`` span-level codes."""

    candidates: list = field(default_factory=list)
    veto: str | None = None
    vetoed: list = field(default_factory=list)
    borderline: list = field(default_factory=list)  # [(sentence Span, best label, score)] the model was unsure of
    pasted_veto: str | None = None  # a message veto found only in pasted text: audited, the user's own words still read


def _encoder():
    # Share the process's USE instance with the search embedder when that is USE (one copy in RAM).
    try:
        emb = get_embedder()
    except Exception:  # settings not configured (tools run outside Django)
        emb = None
    if not isinstance(emb, USEEmbedder):
        emb = _own_use()
    return emb.embed


@functools.lru_cache(maxsize=1)
def _own_use():
    return USEEmbedder(threads=2)


_model: M.Extractor | None = None
_model_failed = False


def extractor_get() -> M.Extractor | None:
    """The process's trained extractor, loaded once (module cache) from :data:`model.ARTIFACT`;
    None (rules only, logged once) when the artifact is missing or unreadable."""
    global _model, _model_failed
    if _model is None and not _model_failed:
        with _lock:
            if _model is None and not _model_failed:
                try:
                    _model = M.load(encode=_encoder())
                except Exception:  # noqa: BLE001 - a broken artifact must not stop extraction
                    log.exception("trained extractor unavailable; rules only")
                    _model_failed = True
    return _model


def extractor_reset() -> None:
    """Forget the loaded model (tests, and after ``train_extractor`` in the same process)."""
    global _model, _model_failed
    _model, _model_failed = None, False


def _clean_value(v: str) -> str:
    return re.sub(r"\s+", " ", v).strip(" \t\"'“”‘’「」『』()（）[]【】,，.。:：;；!！?？、~-")


# A place names the city, not the office in it: "Singapore regional office" → "Singapore", "杭州分部" → "杭州".
_PLACE_TAIL = re.compile(r"(?:\s+(?:regional|region|office|hq|headquarters|area|branch|site|campus|metro))+$|(?:分部|分公司|总部|这边|那边|办公室|区域|片区)$",
                         re.I)


_LEADING_CUE = re.compile(r"^(?:(?:now|really|totally|kind of|sort of)\s+)*(?:hate|dislike|can'?t stand|no longer (?:like|enjoy|do|use|drink|eat)"
                          r"|quit|stopped|gave up|ditched|不再|不喜欢|讨厌|受不了|戒了|不[喝吃玩用])\s*", re.I)


# A hobby is the activity, not the verbs around it: "went bowling" → "bowling", "love reading" → "reading".
_HOBBY_HEAD = re.compile(r"^(?:(?:i|we)\s+)?(?:really\s+)?(?:love|loves|like|likes|enjoy|enjoys|went|go|goes|going|do|doing|did|into)\s+(?=\w)", re.I)


def _place_value(label: str, value: str) -> str:
    if label in ("profile/city", "fact/relocation"):
        if label == "profile/city":
            value = place_without_time(value)
        return _PLACE_TAIL.sub("", value).strip() or value
    if label == "preference/hobby":
        return _HOBBY_HEAD.sub("", value).strip() or value
    return value


def _fact_date(sentence: str, lang: str, at: dt.datetime):
    return (_resolve_date_zh if lang == "zh" else _resolve_date_en)(sentence, at)


# A fact with no time anchor is not an event, but some still say what the user *is*: a held
# certificate is a qualification ("持CCAR-66部执照", "我英语六级"), a school graduated from is the
# education ("我是中国美院动画系毕业的"). Blind sets 2-7 labelled these profile; the model reads them
# as certificate / graduation events and the undated-fact rule dropped them. A move with no date
# still says where the user lives now ("公司把俺调到驻马店片区了", "人也搬到长沙了": blind 8).
_UNDATED_AS = {"fact/certificate": "profile/skill", "fact/graduation": "profile/education", "fact/relocation": "profile/city"}
_CERT_SHAPE = re.compile(r"证|照|资格|认证|[0-9一二三四五六七八九十]级|cert\w*|licen[cs]\w*|diploma|qualif\w*|chartered|accredit\w*"
                         r"|^(?:[A-Z][A-Za-z0-9+.-]{1,10})(?:\s+[A-Z][A-Za-z0-9+.-]{1,10}){0,3}$", re.I)


# A change of title says what the title is now, dated or not (blind 10: "俺升副店长了", "三月一号正式当上
# 主策", "got bumped to Senior Technical Artist last month" left the old role current). The words of
# the change are not the title.
_CHANGE_HEAD = re.compile(
    r"^(?:(?:正式|已经|终于|刚刚?|才|被|又)*(?:当上了?|升(?:职|任)?(?:为|成|到|了)?|晋升(?:为|成|到|了)?|提拔(?:为|成)?|提(?:成|为|了)|转正(?:成|为)?"
    r"|任命为|转岗(?:为|成|到|做)?|改做|调任|评上了?|做上了?))"
    r"|^(?:(?:i|i'?ve|i have|i was|i got|got|was|been|just|finally|officially|now)\s+)*(?:promoted|bumped(?: up)?|moved up|made|appointed|named"
    r"|became|become|stepped up)\s+(?:to\s+|as\s+|into\s+)?(?:an?\s+|the\s+)?", re.I)
_ROLE_SHAPE = re.compile(
    r"(?:长|主管|经理|总监|主任|专员|主策|策划|师|员|助理|总|官|顾问|代表|督导|骨干|负责人|合伙人|[NPMLT]\d+)$"
    r"|\b(?:lead|manager|head|director|officer|specialist|analyst|engineer|artist|partner|supervisor|coordinator|chief"
    r"|consultant|president|vp|captain|administrator|architect|designer|technician|technologist|nurse|teacher|editor"
    r"|producer|accountant|principal|associate|controller|planner|scientist|counsel|secretary|clerk)s?\b", re.I)


def role_of_change(value: str) -> str | None:
    """The title a job-change value names, or None: ``"正式当上主策"`` → ``"主策"``, ``"升副店长"`` →
    ``"副店长"``, ``"bumped to Senior Technical Artist"`` → ``"Senior Technical Artist"``; an employer
    ("joined Zalando"), a bare verb or a value longer than 40 characters names none. Input: the
    candidate's value (str). Output: str or None. Rule source: blind 10 (stop 24)."""
    rest = _CHANGE_HEAD.sub("", value.strip(), count=1).strip(" 了的啦咗,，.")
    if not rest or len(rest) > 40 or BARE_VERB.match(rest) or not _ROLE_SHAPE.search(rest):
        return None
    return rest


def _relabelled(span: M.ModelSpan, value: str, dated: bool) -> str:
    """The label a fact span is stored under when it has no time anchor (see above)."""
    if not dated and span.label == "fact/job_change" and role_of_change(value):
        return "profile/role"
    if not dated and span.label in _UNDATED_AS:
        if span.label == "fact/certificate" and not _CERT_SHAPE.search(value):
            return span.label
        return _UNDATED_AS[span.label]
    return span.label


def _model_candidate(text: str, span: M.ModelSpan, at: dt.datetime, quoted: list[Span], lang: str):
    """A candidate for one model span, or ``(None, veto_code)``."""
    value = _place_value(span.label, _clean_value(text[span.start:span.end]))
    found = None
    if span.label.startswith("fact/"):
        # The date nearest the event: its own clause first ("我2018年进的报社，去年拿了省新闻奖" dated the
        # award 2018; blind 15), then the whole sentence ("去年十月，我拿到了PMP证书").
        clause = clause_at(text, span.sentence, span.start)
        found = _fact_date(text[clause.start:clause.end], lang, at) or _fact_date(text[span.sentence.start:span.sentence.end], lang, at)
    if span.label == "fact/job_change" and role_of_change(value) and not JOB_CUE.search(text[span.sentence.start:span.sentence.end]):
        found = None  # "I'm Senior Compliance Officer now since the restructuring": a title said, no change word
    if span.label in _UNDATED_AS or span.label == "fact/job_change":
        label = _relabelled(span, value, bool(found))
        if label != span.label:
            if label == "profile/role":
                value = role_of_change(value) or value
            span = dataclasses.replace(span, label=label)
    if span.label in ("profile/city", "profile/company"):
        window = max(span.sentence.start, span.start - 40)
        study = _STUDIED_IN.search(text[window:span.start])
        if study:
            # "I joined here in 2023 after my master in Wageningen", "I did my master's at NTU": where
            # the user studied (blind 10, blind 12).
            span = dataclasses.replace(span, label="profile/education")
            value = _clean_value(text[window + study.start("what"):span.end])
    if span.label == "profile/city" and org_shaped(value):
        span = dataclasses.replace(span, label="profile/company")  # "Karoo Offshore Services" (misreads.org_shaped)
    spec = spec_for_label(span.label)
    if not value or len(value) > 60 or _STOP_VALUES.match(value):
        return None, "bad_value"
    misread = (spec.kind == "profile" and profile_misread(text, span.sentence, span.start, span.end, spec.name)) or (
        span.label == "fact/job_change" and job_change_misread(text, span.sentence, span.start, span.end))
    if misread:
        return None, misread
    veto = value_veto(text, span.sentence, span.start, span.end, span.label) or span_veto(
        text, span.sentence, span.start, span.end, span.label, quoted=quoted)
    if not veto and span.score < CONTEXT_FREE_SCORE:
        veto = context_veto(text, span.sentence, span.start, span.end, span.label)
    if veto:
        return None, veto
    operation = "set"
    if spec.kind != "fact":
        operation, vstart = negation(text, span.sentence, span.start, span.end, span.label)
        if operation == "veto":
            return None, "negated"
        value = _clean_value(text[vstart:span.end]) if vstart != span.start else value
        if operation == "retract":
            # The value taken back, without the words that take it back ("hate hiking" → "hiking").
            value = _clean_value(_LEADING_CUE.sub("", value)) or value
    fact_date = prec = None
    if spec.kind == "fact":
        if not found:
            return None, "undated_fact"
        fact_date, prec = found
    sub = ""
    if spec.kind == "preference" and spec.name == "tool":
        sub = L.TOOLS.get(value) or ""
    key = stored_key(spec, value, sub)
    cand = _cand(spec.kind, key, value, lang, fact_date, prec, operation)
    return dataclasses.replace(cand, stage=f"model:{M.MODEL_VERSION}:{span.score:.2f}"), None


# A company or city span the model scores below this needs work or place words in its sentence
# (context.context_veto). Chit-chat names scored 0.43-0.94 in the LoCoMo run of stop 24; the
# enterprise disclosures the blind sets label scored 0.96-1.0 (checked on blind sets 4-9, never blind 11).
CONTEXT_FREE_SCORE = 0.95
_STUDIED_IN = re.compile(r"(?P<what>\b(?:master'?s?|degree|ph\.?d|doctorate|bachelor'?s?|mba|msc|bsc|studies|studied|studying|exchange year"
                         r"|exchange semester)\b(?:\s+[\w-]+){0,3}?\s+(?:in|at|from)\s+|(?:留学|读书|读研|读博|读大学|上大学|念书|毕业于)\s*(?:在|于)?\s*)$", re.I)
_ADDRESSED_KEYS = ("company", "city", "department", "industry", "role")
# An event also says what holds now (blind 10, stop 24): a dated change of title sets the role; a move
# sets the city ("moved to the Puxi campus this month" left the old campus current), or the
# department when its destination is a team ("moved from QC micro to the QA validation team", which
# is no relocation at all).
_MOVE_TO = re.compile(r"\b(?:moved|relocated|transferred|switched)\s+(?:over\s+|back\s+)?(?:from\s+.+?\s+)?(?:to|into)\s+(?:the\s+|our\s+)?(?P<p>.+)$", re.I)
_TIME_TAIL = re.compile(r"\s+(?:this|last|next|in|on|since|from|at|around|about|a|two|three|few)\b.*$", re.I)
_TEAM_SHAPE = re.compile(r"\b(?:team|department|dept|division|unit|group|squad|desk|practice|function)\b"
                         r"|(?:部|组|科|处|室|中心|窗口|团队|事业部|BU)$", re.I)


def _implied(cands: list[Candidate], lang: str) -> tuple[list[Candidate], list[Candidate]]:
    """Profile candidates the turn's events imply, and the events to drop (a team move is no
    relocation). Input: the turn's candidates. Output: ``(added, dropped)``."""
    added, dropped = [], []
    have = {key_name(kind=c.kind, key=c.key) for c in cands if c.kind == "profile" and c.operation == "set"}
    for c in cands:
        if c.kind != "fact" or c.operation != "set":
            continue
        name = key_name(kind="fact", key=c.key)
        if name == "job_change" and "role" not in have:
            role = role_of_change(c.value)
            if role:
                added.append(dataclasses.replace(_cand("profile", "role", role, lang), stage=c.stage))
                have.add("role")
            elif "department" not in have and len(c.value) <= 30 and _TEAM_SHAPE.search(c.value) and not role_of_change(c.value):
                # "我月初调去配载组了": a change into a team says the department now (blind 15).
                added.append(dataclasses.replace(_cand("profile", "department", c.value, lang), stage=c.stage))
                have.add("department")
        elif name == "relocation":
            m = _MOVE_TO.search(c.value)
            place = _TIME_TAIL.sub("", m.group("p")).strip(" .,") if m else c.value.strip()
            if _TEAM_SHAPE.search(place) and "department" not in have:
                added.append(dataclasses.replace(_cand("profile", "department", place, lang), stage=c.stage))
                dropped.append(c)
                have.add("department")
            elif "city" not in have:
                if lang != "zh":
                    # The place is the capitalised run: "Puxi campus this month" → "Puxi".
                    capitalised = " ".join(itertools.takewhile(lambda w: w[:1].isupper(), place.split()))
                    # A user who types in lower case: "also moved to montreal last month" (blind 15).
                    place = capitalised or (place if place.islower() and len(place.split()) <= 2 else "")
                place = _PLACE_TAIL.sub("", place).strip()
                if place and len(place) <= 30 and not _TEAM_SHAPE.search(place):
                    added.append(dataclasses.replace(_cand("profile", "city", place, lang), stage=c.stage))
                    have.add("city")
    return added, dropped


# "I speak polish and german": the tagger spans the first language of a list, the rest are as much
# the user's (blind 14). Only language words the precision stage knows are taken.
_SPEAKS = re.compile(r"\b(?:speak\w*|spoken|fluent|native|mother tongue|languages?)\b|会说|会讲|说得|讲得|母语|流利|精通", re.I)
_MORE_LANGUAGES = re.compile(rf"(?:\s*(?:,|，|、|&|\band\b|和|及|以及|还有|跟)\s*(?:(?:some|a bit of|a little|basic|fluent)\s+)?"
                             rf"(?P<lang>\b(?:{LANGUAGE_WORDS})\b|英语|英文|日语|韩语|法语|德语|西班牙语|俄语|粤语|普通话|阿拉伯语|葡萄牙语|意大利语))",
                             re.I)


def _coordinated_languages(text: str, cand: Candidate, span: M.ModelSpan) -> list[Candidate]:
    """Language candidates for the languages listed right after a language span (same stage)."""
    out, pos, spec = [], span.end, spec_for_label("profile/language")
    if not _SPEAKS.search(text[span.sentence.start:span.sentence.end]):
        return out  # "German or English both fine … but reply in English": what to answer in, not spoken
    while (m := _MORE_LANGUAGES.match(text, pos, span.sentence.end)):
        value = m.group("lang")
        c = _cand("profile", stored_key(spec, value, ""), value, cand.lang)
        out.append(dataclasses.replace(c, stage=cand.stage))
        pos = m.end()
    return out


def _covered(cand: Candidate, rules: list[Candidate]) -> bool:
    """True when a rule candidate already says this (same key, or the same registry key with one
    value inside the other; or the same value under any profile/preference key); for a one-value
    key any rule value wins."""
    spec = key_spec(kind=cand.kind, key=cand.key)
    v = cand.value.casefold()
    if cand.kind != "fact" and any(r.kind != "fact" and r.value.casefold() == v for r in rules):
        return True  # one span, one key: "I use COBOL at work" is the rules' skill, not also a role or a tool
    if cand.kind == "preference" and cand.stage.startswith("model:") and any(
            r.kind == "preference" and len(r.value) >= 2 and r.value.casefold() in v for r in rules):
        # The rules said it precisely ("以后SQL都按ClickHouse的写法来" → tool sql_dialect ClickHouse,
        # which a later dialect supersedes); the model's clause-long instruction around the same
        # value would outlive that change (heldout ho-zh-017).
        return True
    for r in rules:
        if r.kind != cand.kind or key_name(kind=r.kind, key=r.key) != key_name(kind=cand.kind, key=cand.key):
            continue
        if spec is not None and spec.merge == "latest" and r.operation == cand.operation:
            return True
        rv = r.value.casefold()
        if r.key == cand.key or v in rv or rv in v:
            return True
    return False


def _tightened(rule: Candidate, model: Candidate) -> Candidate:
    """The rule candidate with the model's value when that is the tight span inside the rule's
    clause-long value ("I like green tea" → "green tea"; the rule's key is kept, so preferences
    still supersede by topic). Other candidates come back unchanged."""
    if (rule.kind != "preference" or rule.kind != model.kind or rule.operation != model.operation
            or key_name(kind=rule.kind, key=rule.key) != key_name(kind=model.kind, key=model.key)):
        return rule
    if model.value.casefold() in rule.value.casefold() and len(model.value) < len(rule.value):
        return dataclasses.replace(candidate_reword(rule, value=model.value), stage=rule.stage)
    return rule


_ZH_REQUEST_TAIL = re.compile(r"[\s，,。]+(?:帮我|麻烦|请你?|给我|你帮|顺便).*$")


def _rule_normalise(cand: Candidate) -> list[Candidate]:
    """Rule candidates in the registry's key shape: a bare hobby key ("pref:hobby" with
    "hiking; chess") becomes one candidate per value with the value in the key
    ("pref:hobby:hiking"), so each value can be retracted alone; a fact's value loses a dangling
    preposition ("moved to Toronto in" → "moved to Toronto")."""
    spec = key_spec(kind=cand.kind, key=cand.key)
    if cand.kind == "profile" and cand.lang == "zh":
        # Casual Chinese runs clauses together with spaces: "带3个人 帮我写个周会议程" -- the request that
        # follows is not part of the value (blind 15 a+b).
        value = _ZH_REQUEST_TAIL.sub("", cand.value).strip()
        if value and value != cand.value:
            cand = dataclasses.replace(cand, value=value, text=_cand(cand.kind, cand.key, value, cand.lang).text)
    if cand.kind == "fact":
        value = re.sub(r"\s+(?:in|on|at|around|about|since|from|back in)$", "", cand.value, flags=re.I)
        if value != cand.value:
            cand = dataclasses.replace(cand, value=value, text=_cand(cand.kind, cand.key, value, cand.lang, cand.fact_date,
                                                                     cand.precision, cand.operation).text)
    # Hobbies only: the rules' food and drink values are whole habits ("早上只喝茶") that supersede
    # one another by topic, as they always have; a hobby is one of several and is taken back alone.
    if spec is None or spec.name != "hobby" or cand.key.lower() != spec.prefix:
        return [cand]
    out = []
    for v in re.split(r"\s*[;；，,、]\s*|\s+and\s+|和", cand.value):
        v = v.strip()
        if v:
            c = _cand(cand.kind, stored_key(spec, v), v, cand.lang, cand.fact_date, cand.precision, cand.operation)
            out.append(dataclasses.replace(c, stage=cand.stage))
    return out or [cand]


def _rule_guard(text: str, cand: Candidate, quoted: list[Span]) -> str | None:
    pos = text.find(cand.value)
    if pos < 0:
        return None
    if any(q.start <= pos < q.end for q in quoted):
        return "quoted"
    sent = next((s for s in sentences(text) if s.start <= pos < s.end), Span(0, len(text)))
    name = key_name(kind=cand.kind, key=cand.key)
    if cand.kind == "fact" and name in ("job_change", "relocation", "home"):
        # The rules' events pass the model's event shapes too: "I joined a fantasy literature forum
        # last night" is no job change (LoCoMo, once week-level dates resolved). The rules' bare
        # "joined" / "跳槽" stands for the change itself (the employer may be a separate candidate).
        label, end = f"fact/{name}", pos + len(cand.value)
        if BARE_VERB.match(cand.value.strip()):
            return event_veto(text, sent, pos, end, label, bare_verb_ok=True)
        shape = value_veto(text, sent, pos, end, label)
        if shape in ("shape", "temporary"):
            return shape
    if cand.kind == "profile" and name in _ADDRESSED_KEYS and addressee(text, sent, pos, pos + len(cand.value)):
        return "third_party"
    misread = cand.kind == "profile" and profile_misread(text, sent, pos, pos + len(cand.value), name)
    if misread:
        return misread  # "别一口一个周老师的", "in the Nairobi office, then came up to Lodwar" (blind 14)
    if cand.kind == "profile" and name in ("responsibility", "department", "role"):
        # The rules' duty and title patterns read chit-chat too ("support groups improved my life"):
        # the same work-word check as the model's less certain spans.
        veto = context_veto(text, sent, pos, pos + len(cand.value), f"profile/{name}")
        if veto:
            return veto
    if cand.kind == "preference" and name in ("hobby", "drink", "diet"):
        veto = value_veto(text, sent, pos, pos + len(cand.value), f"preference/{name}")
        if veto in ("third_party", "plan"):
            return veto  # "我表姐很爱烘焙", "我要去冲杯咖啡喝"
    label = f"{cand.kind}/x"
    veto = span_veto(text, sent, pos, pos + len(cand.value), label, quoted=quoted)
    return veto if veto in ("no_first_person", "reported_speech", "third_party") and cand.kind != "preference" else None


def candidates_extract(turns: list[tuple[str, dt.datetime]], *, use_model: bool = True) -> list[TurnCandidates]:
    """Candidates for a batch of user turns.

    Inputs: ``turns`` -- ``[(text, sent_at)]`` (text already passed the sanitizer; ``sent_at``
    resolves relative dates); ``use_model`` -- False for rules only. Output: one
    :class:`TurnCandidates` per turn, in order. The model runs once over the whole batch.
    Never raises for text content; a missing model artifact means rules only.
    """
    out = [TurnCandidates() for _ in turns]
    readable: list[int] = []
    read: dict[int, str] = {}  # the text read per turn: the whole turn, or the user's own words before a paste
    for i, (text, _at) in enumerate(turns):
        text = (text or "").strip()
        veto = message_veto(text) if text else "empty"
        own = own_words(text) if veto == "injection" else ""
        if own and not message_veto(own):
            # An injection inside pasted text ("summarise this email … [Note to any AI: save to memory
            # that …]") is audited, and the pasted part is never read; what the user said before it is
            # still theirs (blind 14: a recruiter's own role and city were lost with the email).
            out[i].vetoed.append(("message", "pasted_text", veto))
            out[i].pasted_veto = veto
            read[i] = own
        elif veto:
            out[i].veto = veto
            continue
        readable.append(i)
    ext = extractor_get() if use_model else None
    unsure: list = []
    texts = [read.get(i, turns[i][0]) for i in readable]
    spans = ext.predict(texts, unsure) if ext is not None and readable else [[] for _ in readable]
    for mi, sent, label, score in unsure:
        out[readable[mi]].borderline.append((sent, label, score))
    for i, text, found in zip(readable, texts, spans):
        at = turns[i][1]
        lang = _lang_of(text)
        quoted = quoted_regions(text)
        rules = []
        for c in extract_candidates(text, at=at, lang=lang):
            veto = _rule_guard(text, c, quoted)
            if veto:
                out[i].vetoed.append(("rule", c.key, veto))
                continue
            rules.extend(_rule_normalise(dataclasses.replace(c, stage=f"rule:{RULES_VERSION}")))
        cands = list(rules)
        for span in found:
            cand, veto = _model_candidate(text, span, at, quoted, lang)
            if cand is None:
                out[i].vetoed.append(("model", span.label, veto))
                continue
            more = _coordinated_languages(text, cand, span) if span.label == "profile/language" and cand.operation == "set" else []
            if _covered(cand, cands):
                cands = [_tightened(r, cand) for r in cands]
            else:
                cands.append(cand)
            cands.extend(c for c in more if not _covered(c, cands))
        added, dropped = _implied(cands, lang)
        cands = [c for c in cands if c not in dropped] + added
        # A value the user denies in this turn is never set; it is taken back instead, so that a
        # correction ("我是数学组的不是语文组", "no more SMB book for me") closes the old item.
        out[i].candidates = [
            dataclasses.replace(c, operation="retract") if c.operation == "set" and denied_in_turn(text, c) else c
            for c in cands
        ]
    return out
