"""PII recall by kind on our own set, and false positives on PII-free chit-chat (issue 14).

    .venv/bin/python benchmarks/pii_recall.py [--set tests/data/pii_set.jsonl] [--fp-max 4000] [--misses]

Prints one JSON line per figure (``benchmarks.common.emit``):

* ``pii_recall`` — one line per kind of ``tests/data/pii_set.jsonl`` (``tools/pii_set.py``,
  seeded: zh and en sentences, wrong check digits included) and one with ``kind: "all"``: the
  share of values every non-space character of which lies inside a sanitizer hit
  (``audit.sanitizer.analyze``, any entity type: what matters is that it is masked);
* ``pii_recall_by_form`` — the same per (kind, form), for finding what is missed;
* ``pii_fp_rate`` — per data set and ``all``: the share of user sentences of public chit-chat with
  at least one hit (``../shared/datasets``, read in place: Synthetic-Persona-Chat (CC BY 4.0) and
  MSC sessions 2-3 in English, DuLeMon (Apache-2.0) and MADial-Bench (MIT) user turns in Chinese).
  Sentences are sampled with a fixed seed, at most ``--fp-max`` per set;
* ``pii_analyze_ms`` — mean analyze time per sentence over the whole run.

Every line carries ``phone_leniency`` (``--phone-leniency`` measures another one).

``--misses`` also prints every missed value and every chit-chat hit (one JSON line each).
A missing ``../shared/datasets`` prints a ``skipped`` line for the FP figures only.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import DATASETS, REPO, emit, skipped  # noqa: E402

SET = REPO / "tests" / "data" / "pii_set.jsonl"
FP_SEED = 14


def load_set(path: Path = SET) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def covered(text: str, start: int, end: int, hits) -> bool:
    """Every non-space character of ``text[start:end]`` lies inside one of ``hits``."""
    inside = [False] * len(text)
    for h in hits:
        for i in range(h.start, h.end):
            inside[i] = True
    return all(inside[i] or text[i].isspace() for i in range(start, end))


def recall_by(records: list[dict], analyze) -> tuple[dict, dict, list[dict]]:
    """``(by kind, by (kind, form), misses)``; each by-dict maps to ``[found, total]``."""
    kinds: dict = defaultdict(lambda: [0, 0])
    forms: dict = defaultdict(lambda: [0, 0])
    misses = []
    for r in records:
        ok = covered(r["text"], r["start"], r["end"], analyze(r["text"]))
        for key, table in ((r["kind"], kinds), ((r["kind"], r["form"]), forms)):
            table[key][0] += ok
            table[key][1] += 1
        if not ok:
            misses.append(r)
    return kinds, forms, misses


# ------------------------------------------------------------------ PII-free chit-chat

_CJK_SPACE = re.compile(r"(?<=[^\x00-\x7f]) (?=[^\x00-\x7f])|(?<=[^\x00-\x7f]) (?=[0-9A-Za-z])|(?<=[0-9A-Za-z]) (?=[^\x00-\x7f])")


def _persona_chat(root: Path) -> list[str]:
    out = []
    with (root / "synthetic_persona_chat" / "Synthetic-Persona-Chat_valid.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            for line in row["Best Generated Conversation"].splitlines():
                if line.startswith(("User 1:", "User 2:")):
                    out.append(line.split(":", 1)[1].strip())
    return out


def _msc(root: Path) -> list[str]:
    out = []
    for session in ("session_2", "session_3"):
        with (root / "msc" / "msc_dialogue" / session / "valid.txt").open(encoding="utf-8") as fh:
            for line in fh:
                out.extend(turn["text"] for turn in json.loads(line)["dialog"])
    return out


def _dulemon(root: Path) -> list[str]:
    out = []
    with (root / "dulemon" / "samples.json").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                for turn in json.loads(line)["conversation"]:
                    if turn.startswith("Usr:"):
                        out.append(_CJK_SPACE.sub("", turn[4:].split("\t")[0].strip()))
    return out


def _madial_zh(root: Path) -> list[str]:
    out = []
    with (root / "madial_bench" / "zh" / "MADial-Bench-zh-dialogue.json").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                for turn in json.loads(line)["dialogue"]:
                    m = re.match(r"<([^>]+)>:\s*(.*)", turn.strip(), re.DOTALL)
                    if m and m.group(1) != "Assistant":
                        out.append(m.group(2).strip().strip('"“”'))
    return out


CHITCHAT = {"synthetic_persona_chat": _persona_chat, "msc": _msc, "dulemon": _dulemon, "madial_bench_zh": _madial_zh}


def chitchat_sentences(root: Path = DATASETS, per_set: int = 4000) -> dict[str, list[str]]:
    """``{data set: sentences}``, at most ``per_set`` each (seeded sample); raises ``OSError`` when absent."""
    rnd = random.Random(FP_SEED)
    out = {}
    for name, reader in CHITCHAT.items():
        sentences = [s for s in reader(root) if s.strip()]
        out[name] = sentences if len(sentences) <= per_set else rnd.sample(sentences, per_set)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", type=Path, default=SET)
    ap.add_argument("--fp-max", type=int, default=4000, help="sentences sampled per chit-chat set (default 4000)")
    ap.add_argument("--misses", action="store_true", help="print every missed value and every chit-chat hit")
    ap.add_argument("--phone-leniency", choices=["POSSIBLE", "VALID", "STRICT_GROUPING", "EXACT_GROUPING"],
                    help="python-phonenumbers matcher leniency to measure (default: audit.recognizers_phone.LENIENCY)")
    args = ap.parse_args(argv)

    from audit import recognizers_phone
    from audit.sanitizer import analyze, warm_up

    from phonenumbers import Leniency

    if args.phone_leniency:
        recognizers_phone.LENIENCY = getattr(Leniency, args.phone_leniency)

    warm_up()
    calls, spent = 0, 0.0

    def timed_analyze(text):
        nonlocal calls, spent
        t = time.perf_counter()
        hits = analyze(text)
        spent += time.perf_counter() - t
        calls += 1
        return hits

    leniency = {v: k for k, v in vars(Leniency).items() if k.isupper()}[recognizers_phone.LENIENCY]
    records = load_set(args.set)
    kinds, forms, misses = recall_by(records, timed_analyze)
    for kind, (found, total) in sorted(kinds.items()):
        emit("pii_recall", found / total, "share", n=total, kind=kind, phone_leniency=leniency)
    found = sum(f for f, _ in kinds.values())
    emit("pii_recall", found / len(records), "share", n=len(records), kind="all", phone_leniency=leniency,
         zh=sum(1 for r in records if r["lang"] == "zh"), en=sum(1 for r in records if r["lang"] == "en"))
    for (kind, form), (f, total) in sorted(forms.items()):
        emit("pii_recall_by_form", f / total, "share", n=total, kind=kind, form=form)
    if args.misses:
        for r in misses:
            print(json.dumps({"miss": r["kind"], "form": r["form"], "text": r["text"]}, ensure_ascii=False))

    try:
        sets = chitchat_sentences(per_set=args.fp_max)
    except OSError as exc:
        skipped(f"chit-chat data sets not readable: {exc}")
    else:
        flagged_all = total_all = 0
        for name, sentences in sets.items():
            flagged = 0
            for s in sentences:
                hits = timed_analyze(s)
                if hits:
                    flagged += 1
                    if args.misses:
                        print(json.dumps({"fp": name, "text": s, "hits": [(h.entity_type, s[h.start:h.end]) for h in hits]},
                                         ensure_ascii=False))
            emit("pii_fp_rate", flagged / len(sentences), "share", n=len(sentences), dataset=name, phone_leniency=leniency)
            flagged_all += flagged
            total_all += len(sentences)
        emit("pii_fp_rate", flagged_all / total_all, "share", n=total_all, dataset="all", phone_leniency=leniency)
    emit("pii_analyze_ms", spent / calls * 1000, "ms", n=calls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
