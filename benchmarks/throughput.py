#!/usr/bin/env python3
"""Throughput: messages/s per core through ingest + extraction + sanitization; embedding sentences/s.

Pipeline (service level, one process = one core, fresh SQLite file ``/tmp/bizmemory-bench-tput.sqlite3``):
the conversations of ``../shared/eval/dev.jsonl`` (read in place; Chinese and English work-assistant
dialogue with PII, sensitive words, tool output), repeated ``--copies`` times under fresh user and
session ids (default 3, ~1,000 messages). Each turn (user message + the replies after it) goes
through ``consolidation.ingest.messages_ingest`` as the API would post it; at each session's end
``session_end`` and ``consolidation.extraction.extraction_run(trigger="session_end")`` — the
sanitizer (presidio + sensitive words, quarantine of hits), the rule extractor and the journal
writes. Consolidation is measured by ``consolidation_throughput.py``.

- ``pipeline_msgs_per_cpu_s``: messages / CPU seconds of this process (``time.process_time``);
  baseline ``ingest_only_msgs_per_cpu_s``: the same messages through ``messages_ingest`` and
  ``session_end`` alone (storing the chat log, no extraction), under other ids, same run.
- ``pipeline_msgs_per_s``: the same over wall time.
- ``embed_use_sentences_per_s``: ``USEEmbedder(threads=2)`` (the default embedder) over the dev user
  messages in batches of 64, median of 3 passes after loading (load time reported); baseline
  ``embed_hashing_sentences_per_s`` (``HashingEmbedder``, 256 dims).

Output: one JSON line per figure; ``{"skipped": ...}`` when the dev set is absent.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DEV, emit, skipped, sqlite_fresh, turns_of  # noqa: E402

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


def _run(convs: list[dict], tag: str, *, extract: bool) -> tuple[int, float, float]:
    """Feed ``convs`` under ids prefixed ``tag``; returns (messages, cpu seconds, wall seconds)."""
    from consolidation.extraction import extraction_run
    from consolidation.ingest import IncomingMessage, messages_ingest, session_end

    n = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for ci, conv in enumerate(convs):
        for si, s in enumerate(conv["sessions"]):
            clock = T0 + dt.timedelta(days=si)
            session = None
            for turn in turns_of(s["messages"]):
                msgs = []
                for m in turn:
                    clock += dt.timedelta(minutes=1)
                    msgs.append(IncomingMessage(role=m["role"], content=m["content"], expert=m.get("expert"), created_at=clock))
                session, stored = messages_ingest(user_id=f"{tag}-{ci}", session_id=f"{tag}-{ci}-s{si}", messages=msgs,
                                                  agent="main", session_kind=s.get("kind", "chat"), now=clock, enqueue=False)
                n += len(stored)
            session_end(session=session, now=clock, enqueue=False)
            if extract:
                extraction_run(session_id=session.pk, now=clock, trigger="session_end")
    return n, time.process_time() - cpu, time.perf_counter() - wall


def _embed_rate(emb, sentences: list[str], batch: int = 64, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        for i in range(0, len(sentences), batch):
            emb.embed(sentences[i : i + batch])
        times.append(time.perf_counter() - t)
    return len(sentences) / statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=3, help="times the dev set is fed (fresh ids each time)")
    ap.add_argument("--quick", action="store_true", help="one copy (smoke run)")
    args = ap.parse_args(argv)
    if args.quick:
        args.copies = 1
    if not DEV.is_file():
        skipped(f"throughput: dev set not found: {DEV}")
        return 0
    from common import django_setup

    django_setup(sqlite_fresh("bizmemory-bench-tput"), BIZMEMORY_EMBEDDER="hashing")
    convs = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
    for c in convs:
        c["sessions"] = [s for s in c["sessions"] if not s.get("temporary")]
    _run(convs[:2], "warm", extract=True)  # presidio engine, regexes, tiktoken loaded outside the timing

    pipe_n = pipe_cpu = pipe_wall = base_n = base_cpu = 0.0
    for k in range(args.copies):
        n, cpu, wall = _run(convs, f"pipe{k}", extract=True)
        pipe_n, pipe_cpu, pipe_wall = pipe_n + n, pipe_cpu + cpu, pipe_wall + wall
        n, cpu, _ = _run(convs, f"base{k}", extract=False)
        base_n, base_cpu = base_n + n, base_cpu + cpu
    common = {"db": "sqlite", "copies": args.copies}
    emit("pipeline_msgs_per_cpu_s", pipe_n / pipe_cpu, "msgs/s", baseline=base_n / base_cpu, n=int(pipe_n),
         baseline_name="ingest_only", **common)
    emit("ingest_only_msgs_per_cpu_s", base_n / base_cpu, "msgs/s", n=int(base_n), **common)
    emit("pipeline_msgs_per_s", pipe_n / pipe_wall, "msgs/s", n=int(pipe_n), **common)

    from profiles.embeddings import HashingEmbedder, USEEmbedder

    sentences = [m["content"] for c in convs for s in c["sessions"] for m in s["messages"] if m["role"] == "user"]
    use = USEEmbedder(threads=2)
    t = time.perf_counter()
    use.embed(sentences[:1])
    load_s = time.perf_counter() - t
    use_rate = _embed_rate(use, sentences)
    hashing_rate = _embed_rate(HashingEmbedder(256), sentences)
    emit("embed_use_sentences_per_s", use_rate, "sentences/s", baseline=hashing_rate, n=len(sentences),
         baseline_name="hashing-256", threads=2, batch=64)
    emit("embed_hashing_sentences_per_s", hashing_rate, "sentences/s", n=len(sentences))
    emit("embed_use_load_s", load_s, "s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
