"""Whole-pipeline quality floor on the team's own held-out conversations.

``tests/data/heldout_conversations.jsonl`` holds 30 multi-session conversations (18 Chinese,
12 English) written blind for this project in the format of ``../shared/eval/README.md``:
extraction, the sanitizer and quarantine, the memory and expert switches, scheduled sessions,
supersession across sessions and consolidation all take part. The test replays the file on a
fresh database, exports long-term memory exactly as the scorer expects, and scores it with the
shared ``score.py`` (loaded from ``../shared/eval/score.py`` beside the repository; the test is
skipped when that file is absent, and fails under CI: ``tests/ci.py``).

Floors: no PII, sensitive-word or switch leak ever; recall / kind accuracy / pollution floors
sit just below what the product reached when the set was written (see the report that added
this file), so a regression of whole kinds of faults fails the test.
"""

import importlib.util
import json
import os
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.ci import absent

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "heldout_conversations.jsonl"
# The workplace's shared folder sits beside the repository; BIZMEMORY_SHARED_DIR points elsewhere.
SHARED = Path(os.environ.get("BIZMEMORY_SHARED_DIR") or ROOT.parent / "shared")
SCORER = SHARED / "eval" / "score.py"
WORDS = SHARED / "eval" / "sensitive_words.txt"

# First, untouched run: recall=0.654 kind_acc=0.632 pollution=0.034. The extraction rules were
# then fixed for the kinds of mistakes it showed (rules 2026.11-r5): recall=1.0 kind_acc=1.0
# pollution=0.007 — so this set is no longer blind; the floors guard against regressions.
# With the trained extractor (2026.12-m1) beside the rules: recall=0.977 kind_acc=0.977 pollution=0.013.
# A tuned set: the floors are a regression report, not a measure of generalisation (issue 18).
RECALL_FLOOR = 0.95
KIND_ACC_FLOOR = 0.95
POLLUTION_CEILING = 0.02


def _load_scorer():
    """Import ``../shared/eval/score.py`` as a module; skip the test when it is absent (fail under CI)."""
    if not SCORER.is_file():
        absent(f"shared scorer not found at {SCORER} (the repository is not checked out beside shared/; "
               "set BIZMEMORY_SHARED_DIR)")
    spec = importlib.util.spec_from_file_location("bizmemory_eval_score", SCORER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _figures(score_mod, gold, export):
    """``(figures dict, failures list)`` computed the way ``score.py`` prints its summary line."""
    tot, _cat, failures = score_mod.score(gold, export)
    r = score_mod.ratio
    figs = {
        "recall": r(tot["expect_found"], tot["expect"]),
        "kind_acc": r(tot["kind_ok"], tot["expect"]),
        "pollution": r(tot["polluted"], tot["forbid"]),
        "pii_leaks": tot["polluted_pii"],
        "sensitive_leaks": tot["polluted_sensitive"],
        "switch_leaks": tot["switch_leaks"],
        "quarantine_acc": r(tot["q_ok"], tot["q_cases"]),
        "cases": tot["cases"],
    }
    return figs, failures


def test_the_heldout_set_is_well_formed():
    """The set covers what it claims: 30 cases, 18 zh / 12 en, every forbid reason twice or more."""
    gold = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(gold) == 30
    assert sum(c["lang"] == "zh" for c in gold) == 18
    assert len({c["user_id"] for c in gold}) == 30
    whys = [f["why"] for c in gold for f in c["forbid"]]
    for why in ("pii", "sensitive", "kb", "tool", "project", "superseded", "negation", "hypothetical",
                "question", "third_party", "temporary", "emotion", "injection", "unconfirmed_guess",
                "scheduled", "expert_excluded", "global_off"):
        assert sum(1 for c in gold if any(f["why"] == why for f in c["forbid"])) >= 2, why
    assert {e["kind"] for c in gold for e in c["expect"]} == {"profile", "preference", "fact"}
    assert all(2 <= len(c["sessions"]) <= 3 for c in gold)
    words = [w.strip() for w in WORDS.read_text(encoding="utf-8").splitlines() if w.strip()] if WORDS.is_file() else []
    if words:
        for c in gold:
            if any(f["why"] == "sensitive" for f in c["forbid"]):
                said = " ".join(m["content"] for s in c["sessions"] for m in s["messages"] if m["role"] == "user")
                assert any(w.casefold() in said.casefold() for w in words), c["id"]


def test_heldout_conversations_meet_the_quality_floors(db, settings):
    score_mod = _load_scorer()
    if not WORDS.is_file():
        absent(f"shared sensitive-word list not found at {WORDS}")
    settings.BIZMEMORY = dict(settings.BIZMEMORY, SENSITIVE_WORDS_FILE=str(WORDS))

    call_command("replay", str(DATA), stdout=StringIO())
    out = StringIO()
    call_command("export_memory", "--format", "json", stdout=out)
    export = json.loads(out.getvalue())

    gold = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert {c["user_id"] for c in gold} <= set(export["users"])
    figs, failures = _figures(score_mod, gold, export)
    report = "\n".join("\t".join(map(str, f)) for f in failures)

    assert figs["cases"] == 30
    assert figs["pii_leaks"] == 0, report
    assert figs["sensitive_leaks"] == 0, report
    assert figs["switch_leaks"] == 0, report
    assert figs["quarantine_acc"] == 1.0, report
    assert figs["recall"] >= RECALL_FLOOR, f"{figs}\n{report}"
    assert figs["kind_acc"] >= KIND_ACC_FLOOR, f"{figs}\n{report}"
    assert figs["pollution"] <= POLLUTION_CEILING, f"{figs}\n{report}"
