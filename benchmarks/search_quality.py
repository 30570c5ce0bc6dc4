#!/usr/bin/env python3
"""LoCoMo evidence recall@5 of ``memory_search(scope="sessions")`` against a BM25 baseline.

Input: ``../shared/datasets/locomo/locomo10.json`` (read in place). Each of the 10
conversations becomes one user whose dated sessions are stored as messages
(``speaker_a`` = user, ``speaker_b`` = assistant, one message per turn, dialogue id →
message id); each session is then ended and extracted (``extraction_run``), which marks the
turns that past-conversation search may offer (``Message.memory_source``). For every question of categories 1–4 (category 5 is adversarial, often
without usable evidence) the figure is the share of its evidence turns found among the
top 5 results, averaged over questions. Baseline in the same run: BM25 (``rank_bm25``
``BM25Okapi``, lowercased word tokens) over the same conversation's turns. Also reported:
the tokens of the 5 results as a share of the tokens of the whole history (context cost).

Runs on a fresh SQLite file (``DATABASE_URL`` overrides; use a scratch database).
``--embedder`` picks the embedder (default ``use``). Output: one JSON line per figure;
a single ``{"skipped": ...}`` line (exit 0) when the data set is absent.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "datasets" / "locomo" / "locomo10.json"
sys.path.insert(0, str(REPO))


def _setup(embedder: str) -> None:
    db = Path("/tmp/bizmemory-bench-search.sqlite3")
    if "DATABASE_URL" not in os.environ:
        db.unlink(missing_ok=True)
        os.environ["DATABASE_URL"] = f"sqlite:///{db}"
    os.environ["BIZMEMORY_EMBEDDER"] = embedder
    os.environ["BIZMEMORY_MESSAGE_RETENTION_DAYS"] = "36500"  # LoCoMo is dated 2022–2023
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bizmemory.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _when(s: str) -> dt.datetime:
    return dt.datetime.strptime(s.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=dt.timezone.utc)


def _load(conv: dict, idx: int):
    from consolidation.extraction import extraction_run
    from consolidation.ingest import session_end
    from consolidation.models import Message, Session
    from profiles.services import agent_ensure, user_ensure

    c = conv["conversation"]
    user = user_ensure(external_id=f"locomo-{idx}")
    agent = agent_ensure(slug="main", is_entry=True)
    dia_to_msg, texts = {}, []
    n = 1
    while f"session_{n}" in c:
        start = _when(c[f"session_{n}_date_time"])
        s = Session.objects.create(external_id=f"locomo-{idx}-s{n}", user=user, agent=agent, started_at=start)
        for i, turn in enumerate(c[f"session_{n}"]):
            text = turn.get("text", "")
            if turn.get("blip_caption"):
                text = f"{text} [shares a photo: {turn['blip_caption']}]"
            m = Message.objects.create(session=s, role="user" if turn["speaker"] == c["speaker_a"] else "assistant",
                                       content=text or "…", created_at=start + dt.timedelta(seconds=30 * i))
            dia_to_msg[turn["dia_id"]] = m.pk
            texts.append((m.pk, text))
        # As in production, only turns that extraction marked as a memory source (Message.memory_source:
        # not quarantined, not an injection attempt) are offered to past-conversation search.
        end = start + dt.timedelta(seconds=30 * len(c[f"session_{n}"]))
        session_end(session=s, now=end, enqueue=False)
        extraction_run(session_id=s.pk, now=end, trigger="session_end")
        n += 1
    return user, dia_to_msg, texts


def _evidence(q: dict) -> list[str]:
    out = []
    for e in q.get("evidence") or []:
        out += [x for x in re.split(r"[;,\s]+", e) if re.fullmatch(r"D\d+:\d+", x)]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", default="use", choices=["use", "hashing", "openai"])
    ap.add_argument("--conversations", type=int, default=10)
    args = ap.parse_args()
    if not DATA.is_file():
        print(json.dumps({"skipped": f"LoCoMo not found: {DATA}"}))
        return 0
    from rank_bm25 import BM25Okapi

    _setup(args.embedder)
    from bizmemory.tokens import count_tokens
    from profiles.search import memory_search
    from consolidation.session_index import session_index_refresh

    convs = json.loads(DATA.read_text(encoding="utf-8"))[: args.conversations]
    ours, base, share, latencies = [], [], [], []
    index_s = 0.0
    for idx, conv in enumerate(convs):
        user, dia_to_msg, texts = _load(conv, idx)
        t = time.perf_counter()
        session_index_refresh(user_id=user.pk)
        index_s += time.perf_counter() - t
        history_tokens = count_tokens("\n".join(tx for _, tx in texts))
        tok = lambda s: re.findall(r"[a-z0-9]+", s.lower())  # noqa: E731
        bm25 = BM25Okapi([tok(tx) for _, tx in texts])
        ids = [pk for pk, _ in texts]
        last = max(dt.datetime.fromisoformat(x.isoformat()) for x in [_when(v) for k, v in conv["conversation"].items()
                                                                       if k.endswith("_date_time")])
        for q in conv["qa"]:
            if q.get("category") not in (1, 2, 3, 4):
                continue
            gold = {dia_to_msg[e] for e in _evidence(q) if e in dia_to_msg}
            if not gold:
                continue
            t = time.perf_counter()
            res = memory_search(user=user, agent_slug="main", query=q["question"], scope="sessions", top_k=5,
                                now=last + dt.timedelta(days=1))
            latencies.append(time.perf_counter() - t)
            got = {h.id for h in res.hits}
            ours.append(len(gold & got) / len(gold))
            scores = bm25.get_scores(tok(q["question"]))
            top = {ids[i] for i in sorted(range(len(ids)), key=lambda i: -scores[i])[:5]}
            base.append(len(gold & top) / len(gold))
            share.append(sum(count_tokens(h.text) for h in res.hits) / max(1, history_tokens))
    latencies.sort()
    n = len(ours)
    emb = os.environ["BIZMEMORY_EMBEDDER"]
    print(json.dumps({"figure": "locomo_recall_at_5_memory_search_sessions", "value": round(sum(ours) / n, 4), "n": n,
                      "embedder": emb}))
    print(json.dumps({"figure": "locomo_recall_at_5_bm25_baseline", "value": round(sum(base) / n, 4), "n": n}))
    print(json.dumps({"figure": "locomo_recall_at_5_ratio_vs_bm25", "value": round(sum(ours) / max(1e-9, sum(base)), 3), "n": n}))
    print(json.dumps({"figure": "locomo_top5_tokens_share_of_history", "value": round(sum(share) / n, 5), "n": n}))
    print(json.dumps({"figure": "locomo_search_p50_ms", "value": round(latencies[n // 2] * 1000, 2), "n": n, "embedder": emb}))
    print(json.dumps({"figure": "locomo_search_p95_ms", "value": round(latencies[int(n * 0.95)] * 1000, 2), "n": n, "embedder": emb}))
    print(json.dumps({"figure": "locomo_index_seconds", "value": round(index_s, 2), "n": len(convs), "embedder": emb}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
