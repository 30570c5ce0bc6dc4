#!/usr/bin/env python3
"""Out-of-domain precision of what the product stores from public chit-chat (issue 13).

For each data set (read in place from ``../shared/datasets``, never copied) the script builds a
replay file (../shared/eval/README.md format) in a temporary directory, then runs the product
exactly as the scorable commands do, on a fresh SQLite database ``/tmp/ood-<name>.sqlite3``::

    manage.py migrate -v0
    manage.py replay <tmp>/<name>.jsonl
    manage.py export_memory --format json

Data sets (user = one speaker, the other speaker plays the assistant):

* ``locomo``: all 10 LoCoMo conversations via ``tools/locomo_to_replay.py`` (``speaker_a`` is the
  user; every dated session is one session).
* ``msc``: the first ``--msc-dialogues`` (150) MSC validation dialogues of
  ``msc/msc_dialogue/session_3/valid.txt``; each has its two earlier sessions in
  ``previous_dialogs``, so one conversation = 3 sessions. Speaker 1 (the even turns) is the user.
  Earlier sessions are dated by their ``time_back`` ("6 days 3 hours ago") before the last one.
* ``dulemon``: all DuLeMon sessions of ``dulemon/samples.json`` (Chinese, word-segmented): one
  conversation of one session each, ``Usr`` is the user, ``Bot`` the assistant; the spaces between
  CJK characters are removed and the persona tags (``\\tU1``) dropped.

Output: one JSON line per data set,
``{"figure": "ood_items", "dataset", "conversations", "items", "items_per_conversation", ...}``,
and every stored item with its source user turn(s) in ``/tmp/ood_items_<name>.jsonl`` (the source
is looked up by the item's ``source_message_ids`` in the scratch database; when those are
missing, the first user message of that user containing the value is used and
``source_by`` says so; ``stage`` is the producing stage of the matching journal entry).

``--sample N --seed S`` then prints N random items per data set (one JSON line each, with the
source turn) for judging by hand; ``--reuse`` skips the product run when the items file exists.
A data set whose files are absent prints ``{"skipped": ...}``.

Usage: .venv/bin/python benchmarks/ood_precision.py [--datasets locomo,msc,dulemon]
       [--msc-dialogues 150] [--sample 50 --seed 0] [--reuse] [--repo CHECKOUT]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATASETS = SHARED / "datasets"
SENSITIVE_WORDS = SHARED / "eval" / "sensitive_words.txt"
PYTHON = str(REPO / ".venv" / "bin" / "python") if (REPO / ".venv" / "bin" / "python").exists() else sys.executable

LOCOMO = DATASETS / "locomo" / "locomo10.json"
MSC = DATASETS / "msc" / "msc_dialogue" / "session_3" / "valid.txt"
DULEMON = DATASETS / "dulemon" / "samples.json"

SETTINGS = {"memory_enabled": True, "experts_disabled": [], "experts_excluded_from_extraction": []}
MSC_LAST_SESSION = dt.datetime(2023, 6, 1, 18, 0, tzinfo=dt.timezone.utc)
DULEMON_START = dt.datetime(2023, 6, 1, 10, 0, tzinfo=dt.timezone(dt.timedelta(hours=8)))


# ---------------------------------------------------------------- converters

def convert_locomo(path: Path = LOCOMO) -> list[dict]:
    """LoCoMo → replay conversations, by the project's own converter."""
    sys.path.insert(0, str(REPO / "tools"))
    from locomo_to_replay import convert

    return convert(json.loads(path.read_text(encoding="utf-8")))


_TIME_BACK = re.compile(r"(\d+)\s*(day|hour|week|month|minute)s?", re.I)
_UNIT = {"minute": dt.timedelta(minutes=1), "hour": dt.timedelta(hours=1), "day": dt.timedelta(days=1),
         "week": dt.timedelta(weeks=1), "month": dt.timedelta(days=30)}


def time_back(text: str) -> dt.timedelta:
    """MSC's ``"6 days 3 hours ago"`` → timedelta (0 when nothing parses)."""
    return sum((int(n) * _UNIT[u.lower()] for n, u in _TIME_BACK.findall(text or "")), dt.timedelta())


def _msc_messages(turns: list[dict], prefix: str) -> list[dict]:
    # Turns strictly alternate and the first is Speaker 1 (the user); some first turns carry a
    # worker id instead of "Speaker 1", so the role follows the position, not the id.
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": t["text"].strip(), "expert": None,
             "id": f"{prefix}-t{i}"}
            for i, t in enumerate(turns) if (t.get("text") or "").strip()]


def convert_msc(path: Path = MSC, limit: int = 150) -> list[dict]:
    """The first ``limit`` MSC session-3 validation dialogues → replay conversations of 3 sessions."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if len(out) >= limit:
                break
            if not line.strip():
                continue
            d = json.loads(line)
            did = d["metadata"]["initial_data_id"]
            uid = f"msc-{did}"
            sessions = []
            parts = [(p["dialog"], MSC_LAST_SESSION - time_back(p.get("time_back", ""))) for p in d.get("previous_dialogs", [])]
            parts.append((d["dialog"], MSC_LAST_SESSION))
            for n, (turns, start) in enumerate(parts, 1):
                msgs = _msc_messages(turns, f"{uid}-s{n}")
                if msgs:
                    sessions.append({"session_id": f"{uid}-s{n}", "kind": "chat", "started_at": start.isoformat(),
                                     "messages": msgs})
            out.append({"id": uid, "lang": "en", "user_id": uid, "agent_id": "main", "settings": SETTINGS,
                        "sessions": sessions})
    return out


def join_segmented(tokens: str) -> str:
    """DuLeMon's space-segmented Chinese → plain text: whitespace is dropped unless it separates
    two Latin letters/digits ("我 25 岁" → "我25岁", "iPhone 12" stays)."""
    return re.sub(r"(?<=[^A-Za-z0-9])\s+|\s+(?=[^A-Za-z0-9])", "", tokens.strip())


def convert_dulemon(path: Path = DULEMON) -> list[dict]:
    """Every DuLeMon session → one replay conversation of one session."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate((l for l in fh if l.strip()), 1):
            d = json.loads(line)
            uid = f"dulemon-{n:03d}"
            msgs = []
            for i, u in enumerate(d.get("conversation", [])):
                speaker, _, rest = u.partition(":")
                body = join_segmented(rest.split("\t", 1)[0])
                if body:
                    msgs.append({"role": "user" if speaker.strip() == "Usr" else "assistant", "content": body,
                                 "expert": None, "id": f"{uid}-t{i}"})
            out.append({"id": uid, "lang": "zh", "user_id": uid, "agent_id": "main", "settings": SETTINGS,
                        "sessions": [{"session_id": f"{uid}-s1", "kind": "chat",
                                      "started_at": (DULEMON_START + dt.timedelta(days=n)).isoformat(),
                                      "messages": msgs}]})
    return out


# ---------------------------------------------------------------- product run

PRODUCT = REPO  # the checkout whose manage.py runs (``--repo``)


def _manage(args: list[str], env: dict, stdout=None) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, "manage.py", *args], cwd=PRODUCT, env=env, check=True, text=True,
                          stdout=stdout if stdout is not None else subprocess.PIPE)


def run_product(name: str, convs: list[dict], tmp: Path) -> tuple[dict, Path, str]:
    """Replay ``convs`` on a fresh SQLite database; returns (export JSON, db path, replay stats line)."""
    replay = tmp / f"{name}.jsonl"
    replay.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in convs), encoding="utf-8")
    db = Path(f"/tmp/ood-{name}.sqlite3")
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{db}", DJANGO_SETTINGS_MODULE="bizmemory.settings")
    if SENSITIVE_WORDS.is_file():
        env.setdefault("BIZMEMORY_SENSITIVE_WORDS_FILE", str(SENSITIVE_WORDS))
    _manage(["migrate", "-v0"], env)
    stats = _manage(["replay", str(replay)], env).stdout.strip()
    export = tmp / f"{name}-export.json"
    with open(export, "w", encoding="utf-8") as fh:
        _manage(["export_memory", "--format", "json"], env, stdout=fh)
    return json.loads(export.read_text(encoding="utf-8")), db, stats


def collect_items(name: str, export: dict, db: Path) -> list[dict]:
    """Every current item of every user, with its source user turn(s) from the scratch database."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        def by_ids(ids):
            if not ids:
                return []
            q = ("SELECT m.id, m.role, m.content, s.external_id FROM consolidation_message m "
                 "JOIN consolidation_session s ON s.id = m.session_id WHERE m.id IN (%s) ORDER BY m.id"
                 % ",".join("?" * len(ids)))
            return con.execute(q, list(ids)).fetchall()

        def by_value(user_id, value):
            q = ("SELECT m.id, m.role, m.content, s.external_id FROM consolidation_message m "
                 "JOIN consolidation_session s ON s.id = m.session_id JOIN auth_user u ON u.id = s.user_id "
                 "WHERE u.username = ? AND m.role = 'user' AND instr(lower(m.content), lower(?)) > 0 "
                 "ORDER BY m.id LIMIT 1")
            return con.execute(q, (user_id, value)).fetchall()

        def stage(user_id, it):
            # What produced the item ("rule:<version>" / "model:<version>:<score>"): the latest
            # journal entry of that user with the same kind, key and value.
            row = con.execute(
                "SELECT j.stage FROM consolidation_journalentry j JOIN auth_user u ON u.id = j.user_id "
                "WHERE u.username = ? AND j.kind = ? AND j.key = ? AND j.value = ? ORDER BY j.id DESC LIMIT 1",
                (user_id, it.get("kind"), it.get("key"), it.get("value"))).fetchone()
            return row[0] if row else None

        out = []
        for user_id, data in sorted(export.get("users", {}).items()):
            for it in data.get("items", []):
                ids = [i for i in it.get("source_message_ids") or [] if isinstance(i, int)]
                rows, how = by_ids(ids), "source_message_ids"
                if not rows and it.get("value"):
                    rows, how = by_value(user_id, it["value"]), "value_search"
                out.append({
                    "dataset": name, "user_id": user_id, "kind": it.get("kind"), "key": it.get("key"),
                    "value": it.get("value"), "text": it.get("text"), "fact_date": it.get("fact_date"),
                    "stage": stage(user_id, it), "source_by": how if rows else None,
                    "source": [{"role": r[1], "content": r[2], "session": r[3]} for r in rows],
                })
        return out
    finally:
        con.close()


# ---------------------------------------------------------------- main

def datasets(msc_limit: int) -> dict:
    return {
        "locomo": (LOCOMO, lambda: convert_locomo()),
        "msc": (MSC, lambda: convert_msc(limit=msc_limit)),
        "dulemon": (DULEMON, lambda: convert_dulemon()),
    }


def items_path(name: str) -> Path:
    return Path(f"/tmp/ood_items_{name}.jsonl")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="locomo,msc,dulemon", help="comma-separated subset of locomo,msc,dulemon")
    ap.add_argument("--msc-dialogues", type=int, default=150)
    ap.add_argument("--sample", type=int, default=0, help="print this many random items per data set")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reuse", action="store_true", help="use /tmp/ood_items_<name>.jsonl when present")
    ap.add_argument("--repo", help="run manage.py of this checkout (e.g. a `git archive HEAD` export) instead of "
                    "the one holding this script; data sets are still read beside this script's repository")
    a = ap.parse_args(argv)
    global PRODUCT
    if a.repo:
        PRODUCT = Path(a.repo).resolve()
    table = datasets(a.msc_dialogues)
    names = [n.strip() for n in a.datasets.split(",") if n.strip()]
    for n in names:
        if n not in table:
            ap.error(f"unknown data set {n!r}")
    for name in names:
        src, convert = table[name]
        if not src.is_file():
            print(json.dumps({"skipped": f"{name}: {src} not found"}), flush=True)
            continue
        convs = convert()
        path = items_path(name)
        if a.reuse and path.is_file():
            items = [json.loads(l) for l in path.read_text(encoding="utf-8").splitlines() if l.strip()]
            extra = {"reused": str(path)}
        else:
            started = time.monotonic()
            with tempfile.TemporaryDirectory(prefix=f"ood-{name}-") as tmp:
                export, db, stats = run_product(name, convs, Path(tmp))
            items = collect_items(name, export, db)
            path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
            extra = {"seconds": round(time.monotonic() - started, 1), "items_file": str(path), "repo": str(PRODUCT)}
            try:
                extra["replay"] = json.loads(stats.splitlines()[-1]).get("replay")
            except (ValueError, IndexError):
                pass
        n_conv = len(convs)
        kinds: dict[str, int] = {}
        for i in items:
            kinds[i["kind"]] = kinds.get(i["kind"], 0) + 1
        print(json.dumps({
            "figure": "ood_items", "dataset": name, "conversations": n_conv,
            "user_messages": sum(m["role"] == "user" for c in convs for s in c["sessions"] for m in s["messages"]),
            "items": len(items), "items_per_conversation": round(len(items) / n_conv, 3) if n_conv else None,
            "by_kind": kinds, **extra,
        }, ensure_ascii=False), flush=True)
        if a.sample:
            rng = random.Random(a.seed)
            picks = sorted(rng.sample(range(len(items)), min(a.sample, len(items))))
            for k, idx in enumerate(picks):
                it = items[idx]
                print(json.dumps({"figure": "ood_sample", "dataset": name, "n": k, "index": idx,
                                  "user_id": it["user_id"], "kind": it["kind"], "key": it["key"],
                                  "value": it["value"], "text": it["text"], "fact_date": it.get("fact_date"),
                                  "stage": it.get("stage"), "source": [s["content"] for s in it["source"]], "source_by": it["source_by"]},
                                 ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
