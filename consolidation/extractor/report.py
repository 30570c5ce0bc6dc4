"""Per-key precision and recall of the trained extractor on labelled corpus rows.

A prediction matches a gold label when the registry label is the same and one value contains the
other (case-folded); matching is per message. Used by ``manage.py train_extractor`` (the report on
the held-out calibration split) and by tests.
"""
from __future__ import annotations

import collections

from .model import Extractor


def key_report(ext: Extractor, rows: list[dict]) -> dict:
    """``{"labels": {label: {"tp", "fp", "fn", "precision", "recall"}}, "micro": {...},
    "negatives": {"messages", "with_prediction"}}`` for ``rows`` (SPEC-format dicts).
    Precision and recall are fractions in [0, 1] (1.0 when undefined)."""
    counts = collections.defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0})
    neg_msgs = neg_hits = 0
    predicted = ext.predict([r["text"] for r in rows])
    for row, spans in zip(rows, predicted):
        text = row["text"]
        gold = [(f"{g['kind']}/{g['key']}", g["value"].casefold()) for g in row.get("labels") or []
                if f"{g['kind']}/{g['key']}" in ext.labels]
        pred = [(s.label, text[s.start:s.end].casefold()) for s in spans]
        if not gold:
            neg_msgs += 1
            neg_hits += bool(pred)
        used = set()
        for label, v in pred:
            hit = next((j for j, (gl, gv) in enumerate(gold) if j not in used and gl == label and (gv in v or v in gv)), None)
            if hit is None:
                counts[label]["fp"] += 1
            else:
                used.add(hit)
                counts[label]["tp"] += 1
        for j, (gl, _gv) in enumerate(gold):
            if j not in used:
                counts[gl]["fn"] += 1
    def pr(c):
        p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 1.0
        r = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 1.0
        return {**c, "precision": round(p, 3), "recall": round(r, 3)}
    total = {"tp": 0, "fp": 0, "fn": 0}
    for c in counts.values():
        for k in total:
            total[k] += c[k]
    return {"labels": {k: pr(v) for k, v in sorted(counts.items())}, "micro": pr(total),
            "negatives": {"messages": neg_msgs, "with_prediction": neg_hits}}
