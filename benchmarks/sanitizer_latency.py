#!/usr/bin/env python3
"""Latency of ``audit.sanitizer.analyze`` per user message (milliseconds).

Input: the user messages of the labeled dev set ``../shared/eval/dev.jsonl`` (read in place)
and the dev sensitive-word list ``../shared/eval/sensitive_words.txt`` when present. Each
message is analysed ``REPS`` times after a warm-up; its latency is the median of those
repetitions; the figures are the median and 95th percentile of the per-message latencies.
A baseline measured in the same run — one pass of a plain compiled regular expression
(digit runs of 7+ and e-mail shapes) over the same messages, timed the same way — is printed
beside it, with the ratio, so machines can be compared. Also printed: the one-time engine
build (``warm_up``) in seconds.

Output: one JSON line per figure ``{"figure": ..., "median_ms": ..., "p95_ms": ..., "n": ...}``;
a single ``{"skipped": "..."}`` line (exit 0) when the dev set is absent.

Usage: ``.venv/bin/python benchmarks/sanitizer_latency.py``
"""
from __future__ import annotations

import json
import re
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EVAL = REPO.parent / "shared" / "eval"
DEV = EVAL / "dev.jsonl"
WORDS = EVAL / "sensitive_words.txt"
sys.path.insert(0, str(REPO))

REPS = 7


def load_messages() -> list[str]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import dev_user_messages

    return dev_user_messages(DEV)


def load_words() -> list[str]:
    if not WORDS.is_file():
        return []
    return [w.strip() for w in WORDS.read_text(encoding="utf-8").splitlines() if w.strip() and not w.startswith("#")]


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def per_message_ms(fn, msgs: list[str]) -> list[float]:
    """Median over REPS runs of ``fn(message)`` for each message, in milliseconds."""
    out = []
    for m in msgs:
        times = []
        for _ in range(REPS):
            t = time.perf_counter()
            fn(m)
            times.append(time.perf_counter() - t)
        out.append(statistics.median(times) * 1000)
    return out


def emit(figure: str, values: list[float], **extra) -> dict:
    row = {"figure": figure, "median_ms": round(statistics.median(values), 4), "p95_ms": round(p95(values), 4),
           "max_ms": round(max(values), 4), "n": len(values), **extra}
    print(json.dumps(row, ensure_ascii=False), flush=True)
    return row


def main() -> int:
    if not DEV.is_file():
        print(json.dumps({"skipped": f"dev set not found: {DEV}"}))
        return 0
    t = time.perf_counter()
    from audit.sanitizer import analyze, warm_up

    import_s = time.perf_counter() - t
    t = time.perf_counter()
    warm_up()
    warm_s = time.perf_counter() - t
    print(json.dumps({"figure": "sanitizer_import_s", "value": round(import_s, 3)}), flush=True)
    print(json.dumps({"figure": "sanitizer_warm_up_s", "value": round(warm_s, 3)}), flush=True)

    msgs = load_messages()
    words = load_words()
    for m in msgs[:20]:  # warm caches of every code path once
        analyze(m, sensitive_words=words)
    baseline_rx = re.compile(r"\d[\d \-]{5,}\d|[\w.+-]+@[\w-]+\.[\w.]+")
    base = emit("baseline_regex_latency", per_message_ms(lambda m: baseline_rx.findall(m), msgs))
    emit("analyze_latency", per_message_ms(analyze, msgs), sensitive_words=0)
    full = emit("analyze_latency_with_words", per_message_ms(lambda m: analyze(m, sensitive_words=words), msgs),
                sensitive_words=len(words))
    print(json.dumps({"figure": "analyze_vs_baseline_median_ratio",
                      "value": round(full["median_ms"] / base["median_ms"], 1), "n": len(msgs)}), flush=True)
    chars = [len(m) for m in msgs]
    print(json.dumps({"figure": "message_chars", "median": statistics.median(chars), "max": max(chars),
                      "n": len(msgs)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
