#!/usr/bin/env python3
"""Cost: tokens injected per turn on LoCoMo (ours vs full history vs naive top-k), LLM calls per session.

Data: ``../shared/datasets/locomo/locomo10.json`` (read in place), converted by
``tools/locomo_to_replay.py`` and replayed session by session into a fresh SQLite database through
the ``replay`` command's own code (``Command.replay_one``: ingest, extraction at session end,
consolidation — the pipeline the API runs). Before each session is replayed, for every user turn
of that session (every ``--every``-th; the first session is skipped: no history yet):

- ours: ``tokens`` of ``GET /api/v1/context?user=…&agent=main&query=<the turn>`` (Django test
  client; default budget ``BIZMEMORY_CONTEXT_DEFAULT_TOKENS``, 600) — long-term memory only;
- baseline *full history*: tiktoken count of every earlier session's turns as ``role: text`` lines;
- baseline *naive top-k*: the k = ``--k`` (5, the default ``top_k`` of ``memory_search`` and the k of
  the LoCoMo recall@5 figure) raw earlier turns that BM25 (``rank_bm25``) ranks first for the turn —
  a "chat log in a search index" store answering with the same k.

All three leave out the current session (an agent keeps that in its prompt either way).
Figures: mean tokens per turn, ratios; ``context_items_per_turn_mean``; ``memory_items_per_user``
at the end (the rule extractor targets work-assistant facts — LoCoMo's chit-chat yields few).

LLM refiner on: the replay runs with ``BIZMEMORY_LLM_BASE_URL`` pointing at the local
OpenAI-compatible test server of ``tests/test_llm_refiner.py`` (``FakeLLM``), replying "keep every
candidate"; ``llm_calls_per_session`` counts its requests per replayed session against the
baseline of one LLM extraction call per user message (per-turn LLM extraction), and
``llm_prompt_tokens_per_session`` the tokens sent; the same on the dev set
(``../shared/eval/dev.jsonl``, replayed into the same database), ``llm_calls_per_session_dev``.

Embedder ``BIZMEMORY_EMBEDDER`` (default ``use``). Output: JSON lines and
``benchmarks/out/cost_tokens.json`` (per-session series for the plot); ``{"skipped": ...}`` when
LoCoMo is absent. ``--conversations`` limits the run (default all 10).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import LOCOMO, OUT, REPO, emit, skipped, sqlite_fresh  # noqa: E402

_WORDS = re.compile(r"[a-z0-9]+")


def _tok(s: str) -> list[str]:
    return _WORDS.findall(s.lower())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, default=10)
    ap.add_argument("--every", type=int, default=1, help="measure every n-th user turn")
    ap.add_argument("--k", type=int, default=5, help="turns returned by the naive top-k baseline")
    ap.add_argument("--quick", action="store_true", help="2 conversations, every 3rd turn (smoke run)")
    args = ap.parse_args(argv)
    if args.quick:
        args.conversations, args.every = 2, 3
    if not LOCOMO.is_file():
        skipped(f"cost_tokens: LoCoMo not found: {LOCOMO}")
        return 0
    from common import django_setup

    django_setup(sqlite_fresh("bizmemory-bench-cost"), BIZMEMORY_MESSAGE_RETENTION_DAYS="36500",
                 BIZMEMORY_EMBEDDER=os.environ.get("BIZMEMORY_EMBEDDER", "use"))
    from django.conf import settings
    from django.db import transaction
    from django.test import Client
    from rank_bm25 import BM25Okapi

    from bizmemory.tokens import count_tokens
    from consolidation.llm_refiner import PROMPT_VERSION
    from consolidation.management.commands.replay import Command
    from profiles.models import PlatformAPIKey
    from tests.test_llm_refiner import FakeLLM, completion
    from tools.locomo_to_replay import convert

    keep_all = completion(json.dumps({"prompt_version": PROMPT_VERSION, "decisions": []}))
    llm = FakeLLM([(200, keep_all, 0.0)])
    settings.BIZMEMORY = dict(settings.BIZMEMORY, LLM_BASE_URL=llm.url, LLM_API_KEY="sk-bench", LLM_MODEL="bench-model")
    budget = settings.BIZMEMORY["CONTEXT_DEFAULT_TOKENS"]
    _, key = PlatformAPIKey.objects.create_key(name="bench-cost", scope="read")
    client = Client(HTTP_X_API_KEY=key)
    convs = convert(json.loads(LOCOMO.read_text(encoding="utf-8")))[: args.conversations]

    ours, full, naive, ks, turns_seen = [], [], [], [], 0
    series: dict[int, dict[str, list]] = {}
    sessions = user_msgs = 0
    replay_s = measure_s = 0.0
    cmd = Command()
    totals = {"conversations": 0, "messages": 0, "journal": 0, "quarantined": 0}
    for conv in convs:
        history: list[str] = []  # "role: text" of earlier sessions
        history_tokens = 0
        for si, sess in enumerate(conv["sessions"]):
            if history:
                t = time.perf_counter()
                bm25 = BM25Okapi([_tok(h) for h in history])
                for ti, m in enumerate(sess["messages"]):
                    if m["role"] != "user":
                        continue
                    turns_seen += 1
                    if turns_seen % args.every:
                        continue
                    r = client.get("/api/v1/context", {"user": conv["user_id"], "agent": "main", "query": m["content"]})
                    if r.status_code != 200:
                        raise RuntimeError(f"context returned {r.status_code}: {r.content[:200]!r}")
                    body = r.json()
                    k = args.k
                    scores = bm25.get_scores(_tok(m["content"]))
                    top = sorted(range(len(history)), key=lambda i: -scores[i])[:k]
                    naive_t = count_tokens("\n".join(history[i] for i in top)) if k else 0
                    ours.append(body["tokens"])
                    full.append(history_tokens)
                    naive.append(naive_t)
                    ks.append(len(body["item_ids"]))
                    row = series.setdefault(si + 1, {"ours": [], "full": [], "naive": []})
                    row["ours"].append(body["tokens"])
                    row["full"].append(history_tokens)
                    row["naive"].append(naive_t)
                measure_s += time.perf_counter() - t
            t = time.perf_counter()
            with transaction.atomic():
                cmd.replay_one({**conv, "sessions": [sess]}, totals)
            replay_s += time.perf_counter() - t
            sessions += 1
            user_msgs += sum(1 for m in sess["messages"] if m["role"] == "user")
            lines = [f"{m['role']}: {m['content']}" for m in sess["messages"]]
            history.extend(lines)
            history_tokens = count_tokens("\n".join(history))
    from django.contrib.auth import get_user_model

    from common import DEV
    from profiles.models import MemoryItem

    users = get_user_model().objects.filter(username__in=[c["user_id"] for c in convs])
    items_per_user = MemoryItem.objects.current().filter(user__in=users).count() / max(1, users.count())
    locomo_requests = list(llm.requests)
    dev_calls = dev_sessions = dev_user_msgs = 0
    if DEV.is_file():
        before = len(llm.requests)
        for line in DEV.read_text(encoding="utf-8").splitlines():
            if line.strip():
                conv = json.loads(line)
                with transaction.atomic():
                    cmd.replay_one(conv, totals)
                dev_sessions += len(conv["sessions"])
                dev_user_msgs += sum(1 for s in conv["sessions"] for m in s["messages"] if m["role"] == "user")
        dev_calls = len(llm.requests) - before
    llm.close()
    prompt_tokens = sum(count_tokens("\n".join(m["content"] for m in req["json"]["messages"])) for req in locomo_requests)
    n = len(ours)
    common = {"budget": budget, "conversations": len(convs), "embedder": settings.BIZMEMORY["EMBEDDER"]}
    mean = statistics.fmean
    emit("context_tokens_per_turn_mean", mean(ours), "tokens", baseline=mean(full), n=n, baseline_name="full_history",
         **common)
    emit("context_tokens_per_turn_vs_naive_topk", mean(ours), "tokens", baseline=mean(naive), n=n,
         baseline_name=f"naive_top{args.k}_raw_turns_bm25", **common)
    emit("full_history_tokens_per_turn_mean", mean(full), "tokens", n=n, **common)
    emit("naive_topk_tokens_per_turn_mean", mean(naive), "tokens", n=n, **common)
    emit("context_tokens_per_turn_p95", sorted(ours)[int(0.95 * (n - 1))], "tokens", n=n, **common)
    emit("context_items_per_turn_mean", mean(ks), "items", n=n, **common)
    emit("memory_items_per_user", items_per_user, "items", n=users.count(), **common)
    emit("llm_calls_per_session", len(locomo_requests) / sessions, "calls", baseline=user_msgs / sessions, n=sessions,
         baseline_name="one_llm_call_per_user_message", **common)
    emit("llm_prompt_tokens_per_session", prompt_tokens / sessions, "tokens", n=sessions, **common)
    if dev_sessions:
        emit("llm_calls_per_session_dev", dev_calls / dev_sessions, "calls", baseline=dev_user_msgs / dev_sessions,
             n=dev_sessions, baseline_name="one_llm_call_per_user_message")
    emit("cost_replay_s", replay_s, "s", n=totals["messages"], **common)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "cost_tokens.json").write_text(json.dumps({
        "budget": budget,
        "sessions": {s: {k: (statistics.fmean(v) if v else 0) for k, v in row.items()} | {"n": len(row["ours"])}
                     for s, row in sorted(series.items())},
    }, indent=1))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
