#!/usr/bin/env python3
"""Speed of candidate generation with the trained extractor (issue 13: ≥ 300 user messages/s on
one core, batched per run), the model's load time and the process's peak RSS.

Input: the user messages of the project's own corpus (``consolidation/extractor/corpus``, all
authors, in file order), cut into batches of ``--batch`` (one extraction run reads one batch).
The process is pinned to one CPU (``sched_setaffinity``) with single-threaded BLAS and USE.
Figures (one JSON line each, medians of ``--runs``): ``extractor_msgs_per_s`` against the rules
alone on the same messages in the same run (``baseline``), ``extractor_load_s`` (artifact + USE
model), ``extractor_rss_mib`` (VmHWM after the runs) against the RSS before loading the model.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"
os.environ.setdefault("BIZMEMORY_EMBEDDER_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import django_setup, emit, sqlite_fresh  # noqa: E402


def _rss_mib(field: str = "VmHWM") -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    django_setup(sqlite_fresh("extractor_speed"))
    from consolidation.extractor import model as M
    from consolidation.extractor import service

    msgs = [r["text"] for r in M.corpus_rows(calibration=None)]
    at = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.timezone.utc)
    batches = [[(m, at) for m in msgs[i:i + args.batch]] for i in range(0, len(msgs), args.batch)]
    rss_before = _rss_mib("VmRSS")
    t = time.perf_counter()
    ext = service.extractor_get()
    ext.encode(["warm up"])
    load_s = time.perf_counter() - t

    def rate(use_model: bool) -> float:
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            for b in batches:
                service.candidates_extract(b, use_model=use_model)
            times.append(time.perf_counter() - t0)
        return len(msgs) / statistics.median(times)

    rules = rate(False)
    ours = rate(True)
    emit("extractor_msgs_per_s", ours, "1/s", baseline=rules, n=len(msgs), baseline_name="rules only", cores=1,
         batch=args.batch, model=M.MODEL_VERSION)
    emit("extractor_load_s", load_s, "s", n=1)
    emit("extractor_rss_mib", _rss_mib(), "MiB", baseline=rss_before, baseline_name="process before the model")
    return 0


if __name__ == "__main__":
    sys.exit(main())
