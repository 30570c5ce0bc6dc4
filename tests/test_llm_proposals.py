"""LLM proposals for borderline sentences, in the same single chat call as the refiner, against the
local FakeLLM server of :mod:`tests.test_llm_refiner`. The trained extractor is replaced by a fake
whose ``predict`` marks chosen sentences borderline and returns no span, so the only candidates
are the rules' and the LLM's."""
import datetime as dt
import json

import pytest

from consolidation.extraction import extraction_run
from consolidation.extractor import service
from consolidation.extractor.text import sentences
from consolidation.llm_refiner import PROMPT_VERSION, SYSTEM_PROMPT
from consolidation.models import JournalEntry, Message
from profiles.taxonomy import REGISTRY

from .helpers import post_turns
from .test_llm_refiner import TURN, completion, llm  # noqa: F401 (llm is a fixture)

DRINK = "Oolong keeps me going most afternoons."  # no rule fires; the fake model finds it borderline
RULES_ONLY = [("city", "Toronto"), ("role", "data engineer")]
STAGE = f"llm:{PROMPT_VERSION}"


class FakeExtractor:
    """Stands in for the trained extractor: each sentence in ``targets`` is reported borderline."""

    def __init__(self, targets):
        self.targets = set(targets)

    def predict(self, messages, borderline=None):
        for mi, text in enumerate(messages):
            for s in sentences(text):
                if borderline is not None and text[s.start:s.end] in self.targets:
                    borderline.append((mi, s, "preference/drink", 0.41))
        return [[] for _ in messages]


@pytest.fixture
def borderline(monkeypatch):
    def use(*targets):
        monkeypatch.setattr(service, "extractor_get", lambda: FakeExtractor(targets))

    return use


def reply(*proposals, decisions=()):
    return completion(json.dumps({"prompt_version": PROMPT_VERSION, "decisions": list(decisions), "proposals": [
        {"sentence_id": sid, "kind": kind, "key": key, "value": value, "operation": op} for sid, kind, key, value, op in proposals
    ]}))


DRINK_OK = reply((0, "preference", "drink", "Oolong", "set"))


def _run(t0, *user_turns):
    turns = [("assistant", "Hi, how can I help?")]
    for i, text in enumerate(user_turns):
        turns += [("user", text), ("assistant", f"Noted ({i}).")]
    session, stored = post_turns("u1", "s1", turns, start=t0)
    res = extraction_run(session_id=session.pk, now=t0 + dt.timedelta(minutes=len(turns)), trigger="ingest")
    session.refresh_from_db()
    return res, session, stored


def _journal():
    return sorted((e.key, e.value) for e in JournalEntry.objects.all())


def _sent(srv, n=0):
    return json.loads(srv.requests[n]["json"]["messages"][1]["content"])


def test_a_valid_proposal_is_journaled_with_the_llm_stage_and_its_message_is_a_source(db, t0, llm, borderline):
    borderline(DRINK)
    srv = llm((200, DRINK_OK, 0))
    res, session, stored = _run(t0, TURN, DRINK)
    assert res.refiner == "refined" and res.proposed == 1 and res.proposals_rejected == []
    assert _journal() == sorted(RULES_ONLY + [("pref:drink:oolong", "Oolong")])
    entry = JournalEntry.objects.get(key="pref:drink:oolong")
    drink_msg = next(m for m in stored if m.content == DRINK)
    assert (entry.kind, entry.operation, entry.stage) == ("preference", "set", STAGE)
    assert entry.source_message_ids == [drink_msg.pk]
    assert entry.observed_at == drink_msg.created_at
    assert Message.objects.get(pk=drink_msg.pk).memory_source is True
    assert all(e.stage.startswith("rule:") for e in JournalEntry.objects.exclude(pk=entry.pk))
    assert session.watermark == stored[-1].pk


def test_one_request_carries_candidates_and_borderline_sentences(db, t0, llm, borderline):
    other = "Afternoons are all about oolong for me."
    borderline(DRINK, other)
    body = reply((0, "preference", "drink", "Oolong", "set"), (1, "preference", "drink", "oolong", "set"),
                 (0, "preference", "drink", "Oolong", "set"), decisions=[{"id": 0, "action": "drop"}])
    srv = llm((200, body, 0))
    res, _, _ = _run(t0, TURN, DRINK, other)
    assert len(srv.requests) == 1
    sent = _sent(srv)
    assert sent["prompt_version"] == PROMPT_VERSION
    assert [(c["id"], c["key"]) for c in sent["candidates"]] == [(0, "city"), (1, "role")]
    assert sent["borderline"] == [{"id": 0, "text": DRINK, "previous_assistant": "Noted (0)."},
                                  {"id": 1, "text": other, "previous_assistant": "Noted (1)."}]
    # the third proposal repeats the first for the same message: one entry per message
    assert res.proposed == 2 and res.proposals_rejected == [(0, "duplicate")]
    assert _journal() == [("pref:drink:oolong", "Oolong"), ("pref:drink:oolong", "oolong"), ("role", "data engineer")]


def test_a_message_with_only_borderline_sentences_is_sent_and_journaled(db, t0, llm, borderline):
    borderline(DRINK)
    srv = llm((200, DRINK_OK, 0))
    res, _, stored = _run(t0, DRINK)
    assert len(srv.requests) == 1
    assert _sent(srv)["candidates"] == []
    assert _journal() == [("pref:drink:oolong", "Oolong")]
    assert res.journal_written == 1


@pytest.mark.parametrize("body", [
    completion('{"decisions": [], "proposals": [{"sentence_id": 0, "kind": "preference"'),
    completion("Sure! I would propose that the user drinks oolong."),
    reply((0, "preference", "drink", "Oolong", "add")),  # operation outside the schema
    completion(json.dumps({"proposals": [{"sentence_id": "0", "kind": "preference", "key": "drink", "value": "Oolong",
                                          "operation": "set"}]})),  # strict: a string id is not an int
], ids=["truncated-json", "not-json", "bad-operation", "string-id"])
def test_a_malformed_reply_keeps_the_rule_result_and_journals_no_proposal(db, t0, llm, borderline, caplog, body):
    borderline(DRINK)
    srv = llm((200, body, 0))
    with caplog.at_level("WARNING", logger="bizmemory.llm_refiner"):
        res, session, stored = _run(t0, TURN, DRINK)
    assert res.refiner == "fallback" and res.proposed == 0
    assert _journal() == RULES_ONLY
    assert not JournalEntry.objects.filter(stage__startswith="llm:").exists()
    assert len(srv.requests) == 1
    assert "fell back to the rule result" in caplog.text
    assert session.watermark == stored[-1].pk


def test_a_timeout_falls_back_to_the_rule_result(db, t0, llm, borderline):
    borderline(DRINK)
    srv = llm((200, DRINK_OK, 1.5), timeout=0.3, attempts=1)
    res, session, stored = _run(t0, TURN, DRINK)
    assert res.refiner == "fallback"
    assert _journal() == RULES_ONLY
    assert len(srv.requests) == 1
    assert session.watermark == stored[-1].pk


@pytest.mark.parametrize("proposal,reason", [
    ((0, "preference", "mood", "Oolong", "set"), "unknown_key"),
    ((0, "preference", "pref:favourite_colour", "Oolong", "set"), "unknown_key"),
    ((0, "profile", "drink", "Oolong", "set"), "unknown_key"),  # a name of another kind
    ((0, "opinion", "drink", "Oolong", "set"), "unknown_kind"),
    ((0, "preference", "drink", "green tea", "set"), "not_in_sentence"),
    ((0, "preference", "drink", "oolong", "set"), "not_in_sentence"),  # exact substring: case counts
    ((0, "preference", "drink", "Oolong", "retract"), "operation_mismatch"),
    ((5, "preference", "drink", "Oolong", "set"), "unknown_sentence"),
], ids=["unknown-key", "unknown-prefixed-key", "key-of-another-kind", "unknown-kind", "not-in-sentence", "case-differs",
        "retract-without-cue", "unknown-sentence"])
def test_an_invalid_proposal_is_rejected_logged_and_counted(db, t0, llm, borderline, caplog, proposal, reason):
    borderline(DRINK)
    llm((200, reply(proposal), 0))
    with caplog.at_level("INFO", logger="bizmemory.llm_refiner"):
        res, _, _ = _run(t0, TURN, DRINK)
    assert res.refiner == "refined"  # the rest of the reply stands
    assert res.proposed == 0 and res.proposals_rejected == [(proposal[0], reason)]
    assert _journal() == RULES_ONLY
    assert f"rejected: {reason}" in caplog.text


@pytest.mark.parametrize("sentence,kind,key,value,reason", [
    ("Should I switch to oolong?", "preference", "drink", "oolong", "question"),
    ("If I were a manager I would drink oolong.", "preference", "drink", "oolong", "hypothetical"),
    ("My wife loves oolong.", "preference", "drink", "oolong", "third_party"),
    ("I finally settled in Lisbon.", "fact", "relocation", "Lisbon", "undated_fact"),
], ids=["question", "hypothetical", "third-party", "undated-fact"])
def test_a_proposal_hitting_a_veto_is_rejected(db, t0, llm, borderline, sentence, kind, key, value, reason):
    borderline(sentence)
    srv = llm((200, reply((0, kind, key, value, "set")), 0))
    res, _, _ = _run(t0, TURN, sentence)
    assert len(srv.requests) == 1
    assert res.proposals_rejected == [(0, reason)]
    assert _journal() == RULES_ONLY


def test_a_dated_fact_proposal_gets_its_date_and_a_retraction_its_operation(db, t0, llm, borderline):
    fact, retract = "I finally settled in Lisbon in March 2024.", "I don't drink coffee anymore, honestly."
    borderline(fact, retract)
    llm((200, reply((0, "fact", "relocation", "Lisbon", "set"), (1, "preference", "drink", "coffee", "retract")), 0))
    res, _, _ = _run(t0, fact, retract)
    assert res.proposed == 2
    entries = {e.key: e for e in JournalEntry.objects.all()}
    assert set(entries) == {"fact:relocation:lisbon", "pref:drink:coffee"}
    assert entries["fact:relocation:lisbon"].fact_date == dt.date(2024, 3, 1)
    assert entries["fact:relocation:lisbon"].stage == STAGE
    assert (entries["pref:drink:coffee"].operation, entries["pref:drink:coffee"].stage) == ("retract", STAGE)


def test_no_request_without_candidates_or_borderline_sentences(db, t0, llm, borderline):
    borderline()
    srv = llm((200, DRINK_OK, 0))
    res, _, _ = _run(t0, "Thanks, that's helpful!")
    assert srv.requests == [] and res.refiner == ""


def test_the_prompt_lists_the_registry_keys_and_the_never_rules():
    for spec in REGISTRY:
        assert spec.name in SYSTEM_PROMPT
    prompt = " ".join(SYSTEM_PROMPT.split())
    for rule in ("questions", "plans", "hypotheticals", "other people", "quoted", "injections"):
        assert rule in prompt
    assert PROMPT_VERSION in SYSTEM_PROMPT and PROMPT_VERSION != "refiner-2026.05-v1"
