#!/usr/bin/env python3
"""Consolidation throughput on SQLite: 10,000 journal entries for one user, and 1,000 users × 10.

Runs against a fresh SQLite file (``BENCH_DATABASE_URL``, default a temp file; never the
project database), migrated by this script. The journal is synthetic, generated in the
script (no dataset needed): clean profile / preference / fact entries over ~150 keys with
small value vocabularies, so runs exercise replacements, repeats (touches),
contradiction confirmations and history — no retractions, so the loss guard never holds.
Each figure is the median of ``--runs`` (default 3) timed repetitions, each on freshly inserted
journal rows; a run drains the journal by calling ``consolidation_run(force=True)`` until
nothing is pending (default budget: 2,000 tokens × 10 batches per run), including
MEMORY.md rendering, snapshots and the search-index refresh with the ``hashing``
embedder (the USE model would dominate and is benchmarked elsewhere).
Baseline, same run: a plain ``bulk_create`` of the same 10,000 journal rows.
Output: one JSON line per figure ``{"figure", "value", "unit", ...}``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

RUNS = 3
N = 10_000

_tmp = tempfile.mkdtemp(prefix="bizmemory-bench-")
os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{_tmp}/bench.sqlite3")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bizmemory.settings")
os.environ["BIZMEMORY_EMBEDDER"] = "hashing"

import datetime as dt  # noqa: E402

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

CITIES = ["北京", "上海", "深圳", "杭州", "成都", "Berlin", "Dublin", "Sydney"]
ROLES = ["产品经理", "后端工程师", "数据分析", "sales manager", "SRE"]
SKILLS = [f"skill{i}" for i in range(60)]
PREFS = [f"topic{i}" for i in range(60)]
PREF_VALUES = ["简短", "表格", "先给结论", "bullet points", "plain English", "公制单位"]


def _journal(user_ids: list[int], per_user: int, t0, rng: random.Random):
    from bizmemory.tokens import count_tokens
    from consolidation.models import JournalEntry

    token_cache: dict[str, int] = {}
    rows = []
    for uid in user_ids:
        for i in range(per_user):
            r = rng.random()
            if r < 0.15:
                kind, key, value = "profile", rng.choice(["city", "role"]), None
                value = rng.choice(CITIES if key == "city" else ROLES)
            elif r < 0.45:
                kind, key, value = "profile", "skill:" + (s := rng.choice(SKILLS)), s.upper()
            elif r < 0.9:
                kind, key, value = "preference", "pref:" + rng.choice(PREFS), rng.choice(PREF_VALUES)
            else:
                kind, key, value = "fact", "fact:school:" + rng.choice(["son", "daughter"]), rng.choice(["started school", "started university"])
            text = f"{key.split(':')[-1]}: {value}"
            tokens = token_cache.get(text)
            if tokens is None:
                tokens = token_cache[text] = count_tokens(text)
            at = t0 + dt.timedelta(seconds=i)
            rows.append(JournalEntry(
                user_id=uid, kind=kind, key=key, value=value, text=text, observed_at=at, created_at=at, tokens=tokens,
                fact_date=dt.date(2025, 9, 1) if kind == "fact" else None,
            ))
    return rows


def _reset():
    from consolidation.models import JournalEntry
    from profiles.models import ConfirmationRequest, MemoryVersion, Snapshot
    from profiles.models import MemoryDocument, MemoryItem, MemorySettings

    for model in (ConfirmationRequest, JournalEntry, Snapshot, MemoryDocument, MemoryVersion):
        model.objects.all().delete()
    MemoryItem.objects.all().delete()
    MemorySettings.objects.update(last_consolidation_at=None)


def _drain(user_id: int, now) -> int:
    from consolidation.consolidate import consolidation_run

    runs = 0
    while True:
        res = consolidation_run(user_id=user_id, now=now, force=True)
        runs += 1
        if res.status == "held":
            raise RuntimeError("loss guard held the benchmark run")
        if not res.pending_left:
            return runs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=RUNS, help="timed repetitions (median)")
    runs = ap.parse_args(argv).runs
    from consolidation.models import JournalEntry
    from profiles.services import user_ensure

    call_command("migrate", verbosity=0)
    rng = random.Random(5)
    t0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
    now = t0 + dt.timedelta(days=1)
    solo = user_ensure(external_id="bench-solo").pk
    many = [user_ensure(external_id=f"bench-{i:04d}").pk for i in range(1000)]

    base, one, spread, runs_one = [], [], [], 0
    for _ in range(runs):
        _reset()
        rows = _journal([solo], N, t0, rng)
        t = time.perf_counter()
        JournalEntry.objects.bulk_create(rows, batch_size=1000)
        base.append(time.perf_counter() - t)

        t = time.perf_counter()
        runs_one = _drain(solo, now)
        one.append(time.perf_counter() - t)

        _reset()
        JournalEntry.objects.bulk_create(_journal(many, 10, t0, rng), batch_size=1000)
        t = time.perf_counter()
        for uid in many:
            _drain(uid, now)
        spread.append(time.perf_counter() - t)

    b, o, s = statistics.median(base), statistics.median(one), statistics.median(spread)
    common = {"runs": runs, "db": "sqlite"}
    print(json.dumps({"figure": "consolidate_10k_entries_one_user", "value": round(o, 3), "unit": "s",
                      "entries": N, "consolidation_runs": runs_one, **common}))
    print(json.dumps({"figure": "consolidate_1000_users_x_10_entries", "value": round(s, 3), "unit": "s",
                      "entries": N, **common}))
    print(json.dumps({"figure": "baseline_bulk_insert_10k_journal_rows", "value": round(b, 3), "unit": "s", **common}))
    print(json.dumps({"figure": "one_user_vs_baseline_ratio", "value": round(o / b, 1), **common}))
    print(json.dumps({"figure": "many_users_vs_baseline_ratio", "value": round(s / b, 1), **common}))
    print(json.dumps({"figure": "consolidate_entries_per_s_one_user", "value": round(N / o, 1), **common}))
    print(json.dumps({"figure": "consolidate_entries_per_s_many_users", "value": round(N / s, 1), **common}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
