#!/usr/bin/env python3
"""Per-stage and per-key report of what extraction journaled for a replayed conversation set.

Run after ``manage.py replay SET.jsonl`` on the same DATABASE_URL:
``.venv/bin/python tools/extraction_stage_report.py SET.jsonl``. Every journal entry (pending and
archived) is matched against its conversation's labels: *right* when its text contains one of an
``expect`` item's ``any_of`` forms, *wrong* when it contains a ``forbid`` text, *unlabelled*
otherwise. Prints one JSON line per stage (``rule``, ``model``, ``llm``) and per registry key:
``{"group", "entries", "right", "wrong", "unlabelled", "precision"}`` (precision = right /
(right + wrong); null when neither).
"""
import collections
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bizmemory.settings")


def main(argv) -> int:
    if len(argv) != 2:
        print("usage: extraction_stage_report.py SET.jsonl", file=sys.stderr)
        return 2
    import django

    django.setup()
    from consolidation.models import JournalEntry
    from profiles.taxonomy import key_name

    gold = {c["user_id"]: c for c in map(json.loads, Path(argv[1]).read_text(encoding="utf-8").splitlines()) if c}
    counts = collections.defaultdict(collections.Counter)
    for e in JournalEntry.objects.select_related("user").iterator():
        case = gold.get(e.user.username)
        if case is None:
            continue
        text = e.text.casefold()
        right = any(f.casefold() in text for x in case["expect"] for f in x["any_of"])
        wrong = any(f["text"].casefold() in text for f in case["forbid"])
        verdict = "wrong" if wrong else "right" if right else "unlabelled"
        for group in ("stage:" + (e.stage.split(":", 1)[0] or "unknown"), f"key:{e.kind}/{key_name(kind=e.kind, key=e.key)}"):
            counts[group]["entries"] += 1
            counts[group][verdict] += 1
    for group, c in sorted(counts.items()):
        judged = c["right"] + c["wrong"]
        print(json.dumps({"group": group, "entries": c["entries"], "right": c["right"], "wrong": c["wrong"],
                          "unlabelled": c["unlabelled"], "precision": round(c["right"] / judged, 3) if judged else None},
                         ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
