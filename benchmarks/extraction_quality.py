#!/usr/bin/env python3
"""Extraction quality of the rule-based extractor on public persona datasets.

Reads (never copies) ../shared/datasets relative to the repository:

* MSC (Multi-Session Chat, English) ``msc/msc_personasummary/session_*/valid.txt``: every turn
  carries ``persona_text`` when the crowdworker wrote a persona sentence for it. Per turn we ask
  "does this turn yield >= 1 memory candidate?" and report precision / recall / F1 against
  "the turn has a persona_text".
* DuLeMon (Chinese, word-segmented) ``dulemon/samples.json``: user utterances tagged with the
  user persona they reveal (``\\tU3``). We join the tokens, run the extractor on each user turn and
  report user-persona recall (a stated persona counts as recalled when at least one of its tagged
  user turns yields a candidate), plus turn-level precision over all user turns.

* The project's own held-out sentences (``tests/data_extraction_heldout.py``, in the repository):
  candidate precision and recall against the labels, for the held-out set and the blind set,
  per language and overall (same scoring as ``tests/test_extraction_heldout.py``).

Output: one JSON line per figure, ``{"figure": ..., "value": ..., "n": ...}``. The held-out figures
are always printed; when the dataset folder is absent a single ``{"skipped": "..."}`` line follows
and the script exits 0.
MSC persona sentences are casual chit-chat (pets, hobbies) while the product targets work
assistants, so low recall here is expected and reported as is.
"""
from __future__ import annotations

import datetime as dt
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATASETS = SHARED / "datasets"
sys.path.insert(0, str(REPO))

AT = dt.datetime(2026, 3, 1, 12, 0)


def emit(figure, value, n):
    print(json.dumps({"figure": figure, "value": round(value, 4) if value == value else None, "n": n}))


def ratio(a, b):
    return a / b if b else float("nan")


def msc(extract, max_files=None):
    files = sorted((DATASETS / "msc" / "msc_personasummary").glob("session_*/valid.txt"))
    tp = fp = fn = tn = 0
    for f in files[:max_files]:
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    continue
                for turn in json.loads(line).get("dialog", []):
                    text = turn.get("text") or ""
                    gold = bool((turn.get("persona_text") or "").strip())
                    got = bool(extract(text, at=AT, lang="en"))
                    tp += gold and got
                    fp += (not gold) and got
                    fn += gold and not got
                    tn += (not gold) and not got
    n = tp + fp + fn + tn
    p, r = ratio(tp, tp + fp), ratio(tp, tp + fn)
    emit("msc_turn_precision", p, tp + fp)
    emit("msc_turn_recall", r, tp + fn)
    emit("msc_turn_f1", ratio(2 * p * r, p + r) if p == p and r == r else float("nan"), n)
    emit("msc_turn_yield_rate", ratio(tp + fp, n), n)


def _join(tokens: str) -> str:
    # DuLeMon is word-segmented with spaces: drop spaces between CJK chars, keep them between Latin words.
    s = tokens.strip()
    s = re.sub(r"(?<=[^A-Za-z0-9])\s+|\s+(?=[^A-Za-z0-9])", "", s)
    return s


def dulemon(extract):
    path = DATASETS / "dulemon" / "samples.json"
    stated = recalled = 0
    turns = turns_tagged = yield_tagged = yield_untagged = turns_untagged = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            d = json.loads(line)
            hits: dict[str, bool] = {}
            for p in d.get("user_said_persona", []):
                hits[p.split(":", 1)[0].strip()] = False
            for u in d.get("conversation", []):
                if not u.startswith("Usr:"):
                    continue
                body, _, tag = u[4:].partition("\t")
                text = _join(body)
                got = bool(extract(text, at=AT, lang="zh"))
                turns += 1
                tags = [t.strip() for t in tag.split(",") if t.strip().startswith("U")]
                if tags:
                    turns_tagged += 1
                    yield_tagged += got
                else:
                    turns_untagged += 1
                    yield_untagged += got
                for t in tags:
                    if t in hits and got:
                        hits[t] = True
            stated += len(hits)
            recalled += sum(hits.values())
    emit("dulemon_user_persona_recall", ratio(recalled, stated), stated)
    emit("dulemon_turn_precision", ratio(yield_tagged, yield_tagged + yield_untagged), yield_tagged + yield_untagged)
    emit("dulemon_turn_recall", ratio(yield_tagged, turns_tagged), turns_tagged)


def heldout(extract):
    from tests.data_extraction_heldout import BLIND, CASES, lang_of, score

    for name, cases in (("heldout", CASES), ("blind", BLIND)):
        for lang in ("en", "zh", "all"):
            subset = [c for c in cases if lang == "all" or lang_of(c[0]) == lang]
            r = score(extract, subset)
            emit(f"{name}_{lang}_precision", r["precision"], r["candidates"])
            emit(f"{name}_{lang}_recall", r["recall"], r["expected"])


def main() -> int:
    from consolidation.extraction_rules import RULES_VERSION, extract_candidates

    print(json.dumps({"figure": "rules_version", "value": RULES_VERSION, "n": 0}))
    heldout(extract_candidates)
    if not DATASETS.is_dir():
        print(json.dumps({"skipped": f"dataset folder not found: {DATASETS}"}))
        return 0
    if (DATASETS / "msc" / "msc_personasummary").is_dir():
        msc(extract_candidates)
    else:
        print(json.dumps({"skipped": "msc not found"}))
    if (DATASETS / "dulemon" / "samples.json").is_file():
        dulemon(extract_candidates)
    else:
        print(json.dumps({"skipped": "dulemon not found"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
