#!/usr/bin/env python3
"""THE benchmark command: every figure of issue #9, one JSON line each, with its baseline.

    bin/bench                 # default run (< 20 minutes on 2 cores)
    bin/bench --full          # + 10,000 users × 200 items hot path, 1 M search chunks, 3 consolidation runs
    bin/bench --quick         # smoke run of every step (small sizes), ~3 minutes
    bin/bench --only hot_path_sqlite,cost_tokens   # some steps (names: --list)
    bin/bench --write-doc     # also replace the results table in BENCHMARKS.md

Each step is a benchmark script run as its own process (its own scratch database: SQLite files in
/tmp, PostgreSQL databases ``bizmemory_bench_*`` on ``BENCH_PG_URL``, default
postgres://postgres@127.0.0.1:5432; ``DATABASE_URL`` is never passed down, so the project database
is never touched). Every JSON line a step prints is re-printed normalised to
``{"figure", "value", "unit", "baseline", "ratio", "n", "benchmark", ...}`` (older scripts' own
baseline lines are folded in through :data:`PAIRS`); ``{"skipped": ...}`` lines pass through.
Steps whose data set (``../shared/datasets``, ``../shared/eval``) or PostgreSQL is absent print
one skipped line and the run goes on.

Results: ``benchmarks/out/results-<UTC time>.jsonl`` and ``benchmarks/out/results.jsonl``
(latest), step logs in ``benchmarks/out/logs/``, plots (``plots.py``) ``latency_vs_size.png``,
``tokens_per_turn.png``, ``hot_path.png`` next to them, and ``summary.md`` (the table).
Exit status: 1 when a step failed (its stderr tail is printed), else 0.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DEV, EVAL, OUT, REPO, figure_line, skipped  # noqa: E402

PY = sys.executable
BENCH = REPO / "benchmarks"


@dataclass
class Step:
    """One benchmark process: ``name``, script and arguments; extra arguments for --full / --quick."""

    name: str
    group: str
    args: list[str]
    full: list[str] = field(default_factory=list)
    quick: list[str] = field(default_factory=list)
    timeout: int = 1800


STEPS = [
    Step("extraction_quality", "quality", ["extraction_quality.py"]),
    Step("search_quality", "quality", ["search_quality.py"], quick=["--conversations", "2"]),
    Step("search_keys", "quality", ["search_keys.py"]),
    Step("eval_dev_score", "quality", []),  # in-process: migrate / replay / export_memory / score.py
    Step("hot_path_sqlite", "hot path", ["hot_path.py", "--db", "sqlite"], full=["--full"], quick=["--quick"], timeout=3600),
    Step("hot_path_postgresql", "hot path", ["hot_path.py", "--db", "postgresql"], full=["--full"], quick=["--quick"],
         timeout=3600),
    Step("search_scale", "search", ["search_scale.py"], full=["--full"], quick=["--quick"], timeout=5400),
    Step("cost_tokens", "cost", ["cost_tokens.py"], quick=["--quick"]),
    Step("throughput", "throughput", ["throughput.py"], quick=["--quick"]),
    Step("consolidation_throughput", "throughput", ["consolidation_throughput.py", "--runs", "1"], full=["--runs", "3"]),
    Step("extraction_throughput", "throughput", ["extraction_throughput.py"]),
    Step("extractor_speed", "throughput", ["extractor_speed.py"]),
    Step("sanitizer_latency", "throughput", ["sanitizer_latency.py"]),
    Step("pii_recall", "quality", ["pii_recall.py"]),
    Step("memory_rss", "memory", ["memory_rss.py"], quick=["--quick"]),
]

# Older scripts print their baseline as a separate figure: (step, figure) → baseline figure.
PAIRS = {
    ("search_quality", "locomo_recall_at_5_memory_search_sessions"): "locomo_recall_at_5_bm25_baseline",
    ("extraction_throughput", "extract_msgs_per_s"): "baseline_re_split_msgs_per_s",
    ("consolidation_throughput", "consolidate_10k_entries_one_user"): "baseline_bulk_insert_10k_journal_rows",
    ("consolidation_throughput", "consolidate_1000_users_x_10_entries"): "baseline_bulk_insert_10k_journal_rows",
    ("sanitizer_latency", "analyze_latency"): "baseline_regex_latency",
    ("sanitizer_latency", "analyze_latency_with_words"): "baseline_regex_latency",
}
_SHARE = re.compile(r"recall|precision|f1|_rate$|_share|_acc$|pollution")


def _unit(figure: str) -> str:
    if "_per_s" in figure:
        return "1/s"
    if figure.endswith("_ms") or "latency" in figure:
        return "ms"
    if figure.endswith(("_s", "_seconds")) or figure.startswith(("consolidate_1", "baseline_bulk")):
        return "s"
    if _SHARE.search(figure):
        return "share"
    return ""


def normalise(step: str, line: dict, seen: dict) -> dict:
    """A step's JSON line in the common shape; ``seen`` holds the step's earlier figures by name."""
    if "figure" not in line:
        return {**line, "benchmark": step}
    out = dict(line)
    if "value" not in out and "median_ms" in out:  # sanitizer_latency's shape
        out["value"] = out.pop("median_ms")
    out.setdefault("value", None)
    out.setdefault("unit", _unit(out["figure"]))
    out.setdefault("n", None)
    if out.get("baseline") is None:
        base = seen.get(PAIRS.get((step, out["figure"]), ""))
        if base is not None:
            out["baseline"] = base.get("value", base.get("median_ms"))
            out["baseline_name"] = base["figure"]
    out.setdefault("baseline", None)
    if out.get("ratio") is None:
        b, v = out["baseline"], out["value"]
        out["ratio"] = float(f"{v / b:.3g}") if isinstance(v, (int, float)) and isinstance(b, (int, float)) and b else None
    out["benchmark"] = step
    head = {k: out.pop(k) for k in ("figure", "value", "unit", "baseline", "ratio", "n")}
    return {**head, **out}


def _say(bench: str, figure: str, value, unit: str = "", **kw) -> dict:
    line = normalise(bench, figure_line(figure, value, unit, **kw), {})
    print(json.dumps(line, ensure_ascii=False), flush=True)
    return line


def _child_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(PYTHONUNBUFFERED="1", DJANGO_SETTINGS_MODULE="bizmemory.settings", MPLBACKEND="Agg")
    return env


def run_step(step: Step, extra: list[str], logs: Path) -> tuple[list[dict], str | None]:
    """Run one step; returns its normalised lines and an error text (None when it succeeded)."""
    log = logs / f"{step.name}.log"
    cmd = [PY, str(BENCH / step.args[0]), *step.args[1:], *extra]
    with open(log, "w") as err:
        proc = subprocess.Popen(cmd, cwd=REPO, env=_child_env(), stdout=subprocess.PIPE, stderr=err, text=True)
        raw_lines, seen = [], {}
        watchdog = threading.Timer(step.timeout, proc.kill)  # a hung step is killed, the run goes on
        watchdog.start()
        for raw in proc.stdout:
            raw = raw.strip()
            if not raw.startswith("{"):
                continue
            try:
                data = json.loads(raw)
            except ValueError:
                continue
            raw_lines.append(data)
            if "figure" in data:
                seen[data["figure"]] = data
        rc = proc.wait()
        watchdog.cancel()
    lines = []  # normalised once the step is done: a baseline may be printed after its figure
    for data in raw_lines:
        line = normalise(step.name, data, seen)
        print(json.dumps(line, ensure_ascii=False), flush=True)
        lines.append(line)
    if rc != 0:
        tail = log.read_text(errors="replace").strip().splitlines()[-15:]
        return lines, f"exit {rc}: " + "\n".join(tail)
    return lines, None


def eval_dev_score(logs: Path) -> tuple[list[dict], str | None]:
    """migrate / replay / export_memory on a fresh SQLite file, then ../shared/eval/score.py.

    Figures: ``eval_dev_summary`` (the score's summary line as its value) and one figure per
    number of it (``eval_dev_recall``, ``eval_dev_pollution``…).
    """
    score = EVAL / "score.py"
    if not (DEV.is_file() and score.is_file()):
        why = f"eval_dev_score: {DEV} or {score} not found"
        skipped(why)
        return [{"skipped": why, "benchmark": "eval_dev_score"}], None
    db = Path("/tmp/bizmemory-bench-eval.sqlite3")
    db.unlink(missing_ok=True)
    export = Path("/tmp/bizmemory-bench-eval-export.json")
    env = {**_child_env(), "DATABASE_URL": f"sqlite:///{db}"}
    words = EVAL / "sensitive_words.txt"
    if words.is_file():
        env["BIZMEMORY_SENSITIVE_WORDS_FILE"] = str(words)
    log = logs / "eval_dev_score.log"
    t = time.perf_counter()
    with open(log, "w") as err:
        for args, out in ((["migrate", "-v0"], None), (["replay", str(DEV)], None),
                          (["export_memory", "--format", "json"], export)):
            with open(out, "w") if out else open(os.devnull, "w") as fh:
                rc = subprocess.run([PY, "manage.py", *args], cwd=REPO, env=env, stdout=fh, stderr=err).returncode
            if rc:
                return [], f"manage.py {args[0]} exit {rc}; see {log}"
        pipeline_s = time.perf_counter() - t
        res = subprocess.run([PY, str(score), str(DEV), str(export), "--json"], cwd=REPO, env=env,
                             capture_output=True, text=True)
        err.write(res.stderr)
    if res.returncode:
        return [], f"score.py exit {res.returncode}: {res.stderr[-500:]}"
    lines = res.stdout.strip().splitlines()
    summary = lines[-1]
    figs = json.loads(next(x for x in reversed(lines) if x.startswith("{")))
    out = [_say("eval_dev_score", "eval_dev_summary", summary, "", n=figs.get("cases"), replay_export_s=pipeline_s)]
    for k, v in figs.items():
        if k != "cases":
            out.append(_say("eval_dev_score", f"eval_dev_{k}", v, "share" if isinstance(v, float) else "count",
                            n=figs.get("cases")))
    return out, None


def _markdown(results: list[dict], started: str, total_s: float, mode: str) -> str:
    rows = [r for r in results if "figure" in r]
    head = (f"Run of {started} UTC ({mode}), {os.cpu_count()} CPUs, total {total_s / 60:.1f} min.\n\n"
            "| benchmark | figure | value | unit | baseline | ratio | n | notes |\n|---|---|---|---|---|---|---|---|\n")
    keep = ("db", "size", "baseline_name", "embedder", "per_user_chunks", "budget")

    def cell(v):
        return "" if v is None else str(v).replace("|", "\\|")

    body = "".join(
        f"| {r['benchmark']} | {r['figure']} | {cell(r['value'])} | {cell(r['unit'])} | {cell(r['baseline'])} | "
        f"{cell(r['ratio'])} | {cell(r['n'])} | {', '.join(f'{k}={r[k]}' for k in keep if r.get(k) is not None)} |\n"
        for r in rows
    )
    skips = [r for r in results if "skipped" in r]
    tail = "".join(f"\nSkipped: {s['skipped']}" for s in skips)
    return head + body + tail + "\n"


def _write_doc(table: str) -> None:
    doc = REPO / "BENCHMARKS.md"
    text = doc.read_text(encoding="utf-8")
    start, end = "<!-- results:start -->", "<!-- results:end -->"
    if start in text and end in text:
        pre, rest = text.split(start, 1)
        post = rest.split(end, 1)[1]
        doc.write_text(f"{pre}{start}\n{table}{end}{post}", encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="the issue's large sizes (10k×200 hot path, 1M chunks)")
    ap.add_argument("--quick", action="store_true", help="small sizes everywhere (smoke run)")
    ap.add_argument("--only", default="", help="comma-separated step names")
    ap.add_argument("--skip", default="", help="comma-separated step names to leave out")
    ap.add_argument("--list", action="store_true", help="print the step names and exit")
    ap.add_argument("--write-doc", action="store_true", help="replace the results table in BENCHMARKS.md")
    args = ap.parse_args(argv)
    if args.list:
        for s in STEPS:
            print(f"{s.name:28} {s.group:12} {' '.join(s.args)}")
        return 0
    only = {x for x in args.only.split(",") if x}
    skip = {x for x in args.skip.split(",") if x}
    unknown = (only | skip) - {s.name for s in STEPS}
    if unknown:
        print(f"unknown step(s): {', '.join(sorted(unknown))} (see --list)", file=sys.stderr)
        return 2
    steps = [s for s in STEPS if (not only or s.name in only) and s.name not in skip]
    OUT.mkdir(parents=True, exist_ok=True)
    logs = OUT / "logs"
    logs.mkdir(exist_ok=True)
    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    results, failed = [], []
    for step in steps:
        t = time.perf_counter()
        if step.name == "eval_dev_score":
            lines, error = eval_dev_score(logs)
        else:
            extra = (step.full if args.full else []) + (step.quick if args.quick else [])
            lines, error = run_step(step, extra, logs)
        results.extend(lines)
        secs = time.perf_counter() - t
        results.append(_say("run_all", "step_s", secs, "s", step=step.name, ok=error is None))
        if error:
            failed.append(step.name)
            print(json.dumps({"error": step.name, "detail": error[-2000:]}), flush=True)
    total = time.perf_counter() - t0
    mode = "full" if args.full else "quick" if args.quick else "default"
    results.append(_say("run_all", "total_s", total, "s", mode=mode, steps=len(steps), failed=len(failed)))

    stamp = started.strftime("%Y%m%d-%H%M%S")
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in results)
    (OUT / f"results-{stamp}.jsonl").write_text(text, encoding="utf-8")
    (OUT / "results.jsonl").write_text(text, encoding="utf-8")
    import plots

    for path in plots.make_all(OUT):
        print(json.dumps({"plot": str(path.relative_to(REPO))}), flush=True)
    table = _markdown(results, started.strftime("%Y-%m-%d %H:%M"), total, mode)
    (OUT / "summary.md").write_text(table, encoding="utf-8")
    if args.write_doc:
        _write_doc(table)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
