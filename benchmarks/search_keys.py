#!/usr/bin/env python3
"""Key questions against ``memory_search(scope="memory")``: recall@3, precision, empty answers.

Input: ``benchmarks/data/search_key_questions.jsonl`` (written for this benchmark, synthetic):
``{"type": "user", "user", "lang", "memories": [{"kind", "key", "value", "text", "fact_date"?}]}``
lines, then ``{"type": "question", "user", "lang", "query", "answers": [stored keys]}`` lines. A
question with no answers has no right hit (the user's memory does not hold what it asks).

Each user's memories are stored as current items in a fresh database and indexed
(``memory_index_refresh``); then every question is searched as its user (``top_k`` 5, the
default). Figures, one JSON line each:

- ``search_keys_recall_at_3``: per answerable question, its answer items among the first 3 hits
  divided by ``min(3, answers)``, averaged;
- ``search_keys_precision``: hits whose key is one of the question's answers / all hits returned,
  over every question (a hit for a question with no answer is a wrong hit);
- ``search_keys_no_answer_empty_rate``: share of the no-answer questions that return no hit;
- ``search_keys_p50_ms``: median wall time of one ``memory_search`` call.

Runs on a fresh SQLite file (``DATABASE_URL`` overrides; use a scratch database);
``--embedder`` picks the embedder (default ``use``, the product default).
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO, django_setup, emit, percentile, sqlite_fresh  # noqa: E402

DATA = REPO / "benchmarks" / "data" / "search_key_questions.jsonl"
NOW = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


def _read(path: Path) -> tuple[list[dict], list[dict]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r["type"] == "user"], [r for r in rows if r["type"] == "question"]


def _load(users: list[dict]) -> dict[str, tuple[object, dict[int, str]]]:
    """Store and index every user's memories; returns ``{user: (User, {item id: key})}``."""
    from profiles.models import MemoryItem
    from profiles.search import memory_index_refresh
    from profiles.services import user_ensure

    out = {}
    for u in users:
        user = user_ensure(external_id=u["user"])
        keys = {}
        for mem in u["memories"]:
            fact_date = dt.date.fromisoformat(mem["fact_date"]) if mem.get("fact_date") else None
            item = MemoryItem.objects.create(user=user, kind=mem["kind"], key=mem["key"], value=mem["value"],
                                             text=mem["text"], fact_date=fact_date, valid_from=NOW, confirmed_at=NOW)
            keys[item.pk] = mem["key"]
        memory_index_refresh(user_id=user.pk)
        out[u["user"]] = (user, keys)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", default="use", choices=["use", "hashing"])
    ap.add_argument("--verbose", action="store_true", help="print each question's hits to stderr")
    args = ap.parse_args()
    url = os.environ.get("DATABASE_URL") or sqlite_fresh("bizmemory-bench-search-keys")
    django_setup(url, BIZMEMORY_EMBEDDER=args.embedder)
    from profiles.search import memory_search

    users, questions = _read(DATA)
    loaded = _load(users)
    memory_search(user=loaded[users[0]["user"]][0], agent_slug="main", query="warm-up", now=NOW)
    recalls, right, returned, empty, latencies = [], 0, 0, [], []
    for q in questions:
        user, keys = loaded[q["user"]]
        t = time.perf_counter()
        hits = memory_search(user=user, agent_slug="main", query=q["query"], now=NOW).hits
        latencies.append(time.perf_counter() - t)
        got = [keys[h.id] for h in hits]
        answers = set(q["answers"])
        returned += len(got)
        right += sum(1 for k in got if k in answers)
        if args.verbose:
            shown = [[k, h.similarity and round(h.similarity, 2), round(h.lexical, 2)] for k, h in zip(got, hits)]
            print(json.dumps({"query": q["query"], "answers": q["answers"], "hits": shown}, ensure_ascii=False),
                  file=sys.stderr)
        if answers:
            recalls.append(len(answers & set(got[:3])) / min(3, len(answers)))
        else:
            empty.append(not got)
    extra = {"embedder": args.embedder, "users": len(users), "top_k": 5}
    emit("search_keys_recall_at_3", sum(recalls) / len(recalls), "share", n=len(recalls), **extra)
    emit("search_keys_precision", right / returned if returned else 1.0, "share", n=returned, **extra)
    emit("search_keys_no_answer_empty_rate", sum(empty) / len(empty), "share", n=len(empty), **extra)
    emit("search_keys_p50_ms", percentile(latencies, 50) * 1000, "ms", n=len(latencies), **extra)
    return 0


if __name__ == "__main__":
    sys.exit(main())
