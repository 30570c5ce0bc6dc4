"""Blind sets 4, 5, 6 and 7 (written blind for issue 13) and the knowledge chats (40
conversations about third parties only), replayed through the whole pipeline and scored with the
shared ``score.py``.

Blind 4's first, untouched run (commit 2c7bba4, trained extractor 2026.12-m1): recall=0.702
kind_acc=0.669 pollution=0.017, no leaks. The floors below are a regression report on a set that
is now known, not a measure of generalisation: leaks must stay 0 (policy); recall and pollution
may not fall back to what rules alone gave on the same set (recall 0.483).
Blind 5 (36 conversations, written blind at the end of session 3) — first, untouched run (commit
85fbf2d): recall=0.706 kind_acc=0.695 pollution=0.034, no leaks, quarantine_acc=0.972; rules alone
in the same run: recall 0.385. Its floors too are a regression report from now on.
Blind 6 (40 conversations, 20 zh / 20 en, written blind at the start of session 4) — first,
untouched run (commit f102cfd): recall=0.686 kind_acc=0.67 pollution=0.022, no leaks,
quarantine_acc=0.975; rules alone in the same run: recall 0.449. A regression report from now on.
Blind 7 (40 conversations, 20 zh / 20 en, written blind at the start of session 5) — first,
untouched run (commit 9b4e381): recall=0.7 kind_acc=0.681 pollution=0.022, no leaks,
quarantine_acc=0.975; rules alone in the same run: recall 0.382. A regression report from now on.
Blind 8 (48 conversations, 24 zh / 24 en, two writers, written blind at the start of stop 22) —
first, untouched runs (commit 183b3bf): b8a recall=0.707 kind_acc=0.677 pollution=0.019, b8b
recall=0.784 kind_acc=0.76 pollution=0.053, no leaks. A regression report from now on.
Blind 9 (48 conversations, two writers, written blind at the start of stop 22 and held back unopened
until its end) — first, untouched run on that stop's final extraction (commit d989382): recall=0.804
kind_acc=0.788 pollution=0.006, no leaks, quarantine_acc=1.0 (the stop's starting commit 183b3bf,
same session: recall 0.742). Not yet tuned on.
Blind 10 (48 conversations, three writers, written blind at the start of stop 24) — first,
untouched run on the stop's starting commit e0dc513: recall=0.708 kind_acc=0.661 pollution=0.055,
no leaks, quarantine_acc=1.0. Learned from in stop 24 (its misses briefed the zh8 / en8 corpus
authors; lines close to its sentences were dropped from the corpus). A regression report from now on.
Blind 11 (48 conversations, three other writers, written at the start of stop 24 and held back
unopened until the stop's extraction was frozen) — first, untouched runs in one session: the stop's
final extraction recall=0.661 kind_acc=0.633 pollution=0.059; the starting commit e0dc513 recall=0.665
kind_acc=0.641 pollution=0.049; no leaks, quarantine_acc=0.979 on both. Three user turns carried an
``expert`` (the replay contract refuses it) and had it removed before any run. The injection it
found (after the untouched run) is now a message veto. A regression report from now on.
The knowledge chats: at most 3% of them may end with any stored item (issue 13).
"""
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.ci import absent

from .test_heldout_conversations import WORDS, _figures, _load_scorer

DATA = Path(__file__).resolve().parent / "data"


def _replay(path, settings):
    if WORDS.is_file():
        settings.BIZMEMORY = dict(settings.BIZMEMORY, SENSITIVE_WORDS_FILE=str(WORDS))
    call_command("replay", str(path), stdout=StringIO())
    out = StringIO()
    call_command("export_memory", "--format", "json", stdout=out)
    gold = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return gold, json.loads(out.getvalue())


# (file, cases, recall floor, pollution ceiling, quarantine accuracy floor)
BLIND_SETS = [
    ("blind4_conversations.jsonl", 34, 0.65, 0.03, 1.0),
    ("blind5_conversations.jsonl", 36, 0.65, 0.045, 0.97),
    ("blind6_conversations.jsonl", 40, 0.65, 0.03, 0.97),
    ("blind7_conversations.jsonl", 40, 0.65, 0.035, 0.97),
    ("blind8_conversations.jsonl", 48, 0.7, 0.045, 0.95),
    ("blind9_conversations.jsonl", 48, 0.72, 0.03, 0.97),
    ("blind10_conversations.jsonl", 48, 0.64, 0.065, 0.97),
    ("blind11_conversations.jsonl", 48, 0.62, 0.07, 0.95),
    ("blind12_conversations.jsonl", 48, 0.72, 0.045, 0.95),
    ("blind13_conversations.jsonl", 48, 0.67, 0.05, 0.97),
    ("blind14_conversations.jsonl", 48, 0.70, 0.03, 0.97),
    ("blind15_conversations.jsonl", 48, 0.75, 0.045, 0.95),
]


@pytest.mark.parametrize("name,cases,recall,pollution,quarantine", BLIND_SETS, ids=[b[0].split("_")[0] for b in BLIND_SETS])
def test_a_blind_set_keeps_no_leaks_and_stays_above_the_rules_alone(db, settings, name, cases, recall, pollution, quarantine):
    score_mod = _load_scorer()
    if not WORDS.is_file():
        absent(f"shared sensitive-word list not found at {WORDS}")
    gold, export = _replay(DATA / name, settings)
    figs, failures = _figures(score_mod, gold, export)
    report = "\n".join("\t".join(map(str, f)) for f in failures)
    assert figs["cases"] == cases
    assert figs["pii_leaks"] == 0 and figs["sensitive_leaks"] == 0 and figs["switch_leaks"] == 0, report
    assert figs["quarantine_acc"] >= quarantine, report
    assert figs["recall"] >= recall, f"{figs}\n{report}"
    assert figs["pollution"] <= pollution, f"{figs}\n{report}"


def test_knowledge_chats_about_third_parties_store_almost_nothing(db, settings):
    gold, export = _replay(DATA / "knowledge_chats.jsonl", settings)
    users = {c["user_id"] for c in gold}
    with_items = [u for u in users if export["users"].get(u, {}).get("items")]
    assert len(users) == 40
    assert len(with_items) <= 0.03 * len(users), {u: export["users"][u]["items"] for u in with_items}
