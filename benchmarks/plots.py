#!/usr/bin/env python3
"""PNG plots of a benchmark run (matplotlib, Agg backend), written next to the JSON in benchmarks/out/.

- ``latency_vs_size.png`` (from ``search_scale.json``): left, latency (ms, log scale) of
  ``memory_search`` p50/p95, the HNSW query and the exact scan against the total number of session
  chunks in the table; right, ``memory_search`` p50/p95 against the chunks of the searched user.
- ``tokens_per_turn.png`` (from ``cost_tokens.json``): mean tokens injected per user turn, by LoCoMo
  session number — our context vs the full history vs the naive top-k of raw turns.
- ``hot_path.png`` (from ``results.jsonl``): context endpoint p50/p95 through HTTP and in-process,
  the HTTP floor and the single-SELECT baseline, per database.

A plot whose input is missing is left out. ``python benchmarks/plots.py [OUT_DIR]`` redraws them
from an earlier run and prints one ``{"plot": path}`` line per file.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import OUT  # noqa: E402


def latency_vs_size(data: dict, path: Path) -> Path:
    """Plot ``search_scale.json`` (``sizes``: rows per table size, ``per_user``: rows per history size)."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    rows = data["sizes"]
    x = [r["size"] for r in rows]
    for key, label, style in (("memory_search_p50_ms", "memory_search p50", "o-"),
                              ("memory_search_p95_ms", "memory_search p95", "o--"),
                              ("ann_p50_ms", "HNSW top-10 p50 (all users)", "s-"),
                              ("exact_p50_ms", "exact top-10 p50 (all users, seq scan)", "^-"),
                              ("select_p50_ms", "one indexed SELECT p50", "x:")):
        a.plot(x, [r[key] for r in rows], style, label=label)
    for r in rows:
        a.annotate(f"recall@10 {r['ann_recall_at_10']:.2f}", (r["size"], r["ann_p50_ms"]), textcoords="offset points",
                   xytext=(-30, 8), fontsize=7, color="tab:green")
    a.set_xscale("log")
    a.set_yscale("log")
    a.set_xlabel(f"session chunks in the table ({data.get('per_user_default', 1000)} per user)")
    a.set_ylabel("latency (ms)")
    a.set_title("Search latency vs table size (PostgreSQL + pgvector)")
    a.grid(True, which="both", alpha=0.3)
    a.legend(fontsize=7)
    pu = data.get("per_user") or []
    if pu:
        px = [r["per_user_chunks"] for r in pu]
        b.plot(px, [r["p50_ms"] for r in pu], "o-", label="memory_search p50")
        b.plot(px, [r["p95_ms"] for r in pu], "o--", label="memory_search p95")
        b.set_xscale("log")
        b.set_yscale("log")
        b.set_xlabel("chunks of the searched user")
        b.set_ylabel("latency (ms)")
        b.set_title("memory_search vs one user's history")
        b.grid(True, which="both", alpha=0.3)
        b.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def tokens_per_turn(data: dict, path: Path, k: int = 5) -> Path:
    """Plot ``cost_tokens.json`` (``sessions``: session number → mean tokens ours / full / naive)."""
    sess = sorted(data["sessions"].items(), key=lambda kv: int(kv[0]))
    x = [int(s) for s, _ in sess]
    fig, ax = plt.subplots(figsize=(8, 4.2))
    ax.plot(x, [r["full"] for _, r in sess], "o-", label="full history (all earlier sessions)")
    ax.plot(x, [r["naive"] for _, r in sess], "s-", label=f"naive top-{k} raw turns (BM25)")
    ax.plot(x, [r["ours"] for _, r in sess], "^-", label=f"BizMemory context (budget {data.get('budget')})")
    ax.set_yscale("symlog", linthresh=100)
    ax.set_xlabel("LoCoMo session number (turns of that session, memory of the earlier ones)")
    ax.set_ylabel("tokens injected per user turn (mean)")
    ax.set_title("Tokens per turn on LoCoMo")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def hot_path(results: list[dict], path: Path) -> Path | None:
    """Bar chart of the hot-path figures found in ``results`` (run_all lines); None when there are none."""
    names = ["select_one_item", "api_root_http", "context_inprocess", "context_http"]
    dbs = [db for db in ("sqlite", "postgresql") if any(r.get("figure") == f"context_http_{db}_p50_ms" for r in results)]
    if not dbs:
        return None
    by = {r["figure"]: r for r in results if "figure" in r}
    fig, ax = plt.subplots(figsize=(8, 4.2))
    width = 0.8 / (2 * len(dbs))
    for i, db in enumerate(dbs):
        for j, p in enumerate(("p50", "p95")):
            vals = [(by.get(f"{n}_{db}_{p}_ms") or {}).get("value") or 0 for n in names]
            off = (i * 2 + j) * width - 0.4 + width / 2
            ax.bar([k + off for k in range(len(names))], vals, width, label=f"{db} {p}")
    size = next((by[f"context_http_{db}_p50_ms"].get("size") for db in dbs), "")
    ax.set_xticks(range(len(names)), ["one indexed SELECT", "GET /api/v1/ (HTTP floor)", "memory_context in-process",
                                      "GET /api/v1/context (gunicorn)"], fontsize=8)
    ax.set_ylabel("latency (ms)")
    ax.set_title(f"Context hot path ({size} users×items)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def make_all(out: Path = OUT) -> list[Path]:
    """Draw every plot whose input exists in ``out``; returns the paths written."""
    made = []
    if (out / "search_scale.json").is_file():
        made.append(latency_vs_size(json.loads((out / "search_scale.json").read_text()), out / "latency_vs_size.png"))
    if (out / "cost_tokens.json").is_file():
        results = _results(out)
        k = next((r.get("baseline_name", "") for r in results if r.get("figure") == "context_tokens_per_turn_vs_naive_topk"),
                 "")
        kk = int(k.split("top")[1].split("_")[0]) if "top" in k else 5
        made.append(tokens_per_turn(json.loads((out / "cost_tokens.json").read_text()), out / "tokens_per_turn.png", kk))
    hp = hot_path(_results(out), out / "hot_path.png")
    if hp:
        made.append(hp)
    return made


def _results(out: Path) -> list[dict]:
    f = out / "results.jsonl"
    if not f.is_file():
        return []
    return [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]


if __name__ == "__main__":
    for p in make_all(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT):
        print(json.dumps({"plot": str(p)}))
