#!/usr/bin/env python3
"""Throughput of ``extract_candidates`` (messages per second on one core).

Input: the user messages of the labeled dev set ``../shared/eval/dev.jsonl`` (read in place,
never copied). Each figure is the median of 5 timed runs over all messages, single process.
A baseline measured in the same run (a plain ``re.split`` sentence split over the same
messages) is reported beside it, so figures from different machines can be compared through
the ratio. Output: one JSON line per figure ``{"figure": ..., "value": ..., "n": ...}``; a single
``{"skipped": "..."}`` line (exit 0) when the dev set is absent.
"""
from __future__ import annotations

import datetime as dt
import json
import re
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEV = REPO.parent / "shared" / "eval" / "dev.jsonl"
sys.path.insert(0, str(REPO))

RUNS = 5


def load_messages() -> list[str]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import dev_user_messages

    return dev_user_messages(DEV)


def rate(fn, msgs) -> float:
    times = []
    for _ in range(RUNS):
        t = time.perf_counter()
        for m in msgs:
            fn(m)
        times.append(time.perf_counter() - t)
    return len(msgs) / statistics.median(times)


def main() -> int:
    if not DEV.is_file():
        print(json.dumps({"skipped": f"dev set not found: {DEV}"}))
        return 0
    from consolidation.extraction_rules import RULES_VERSION, extract_candidates

    msgs = load_messages()
    at = dt.datetime(2026, 3, 1, 12, 0)
    extract_candidates(msgs[0], at=at)  # warm up (regex compilation happens at import)
    split = re.compile(r"[。！？!?；;\n]|(?<=[.!?])\s+")
    base = rate(lambda m: split.split(m), msgs)
    ours = rate(lambda m: extract_candidates(m, at=at), msgs)
    print(json.dumps({"figure": "extract_msgs_per_s", "value": round(ours, 1), "n": len(msgs), "rules_version": RULES_VERSION}))
    print(json.dumps({"figure": "baseline_re_split_msgs_per_s", "value": round(base, 1), "n": len(msgs)}))
    print(json.dumps({"figure": "extract_vs_baseline_ratio", "value": round(ours / base, 5), "n": len(msgs)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
