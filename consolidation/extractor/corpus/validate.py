"""Validate corpus files against SPEC.md. Usage: python3 validate.py FILE.jsonl [...]. Exit 2 on errors."""
import collections
import json
import sys

KEYS = {
    "profile": {"role", "department", "company", "industry", "city", "skill", "education", "seniority", "language",
                "responsibility"},
    "preference": {"answer_length", "format", "tone", "language", "tool", "code_language", "units", "instruction", "diet",
                   "drink", "hobby"},
    "fact": {"relocation", "job_change", "certificate", "graduation", "birth", "marriage", "school", "award", "home"},
}
NEG = {"question", "plan", "hypothetical", "third_party", "knowledge", "echo", "emotion", "injection", "quoted", "project",
       "task", "chitchat"}


def check(path):
    errors, ids, langs, kinds, empty, n = [], set(), collections.Counter(), collections.Counter(), 0, 0
    for no, line in enumerate(open(path, encoding="utf-8"), 1):
        if not line.strip():
            continue
        n += 1
        try:
            row = json.loads(line)
        except ValueError as exc:
            errors.append(f"{path}:{no}: bad JSON: {exc}")
            continue
        where = f"{path}:{no}"
        for f in ("id", "lang", "text", "labels"):
            if f not in row:
                errors.append(f"{where}: missing {f}")
        if row.get("id") in ids:
            errors.append(f"{where}: duplicate id {row.get('id')}")
        ids.add(row.get("id"))
        if row.get("lang") not in ("zh", "en", "mix"):
            errors.append(f"{where}: lang must be zh/en/mix")
        langs[row.get("lang")] += 1
        text = row.get("text") or ""
        labels = row.get("labels") or []
        if not labels:
            empty += 1
        for lab in labels:
            k, key = lab.get("kind"), lab.get("key")
            if key not in KEYS.get(k, ()):
                errors.append(f"{where}: unknown kind/key {k}/{key}")
            v = lab.get("value") or ""
            if not v or v not in text:
                errors.append(f"{where}: value {v!r} is not a substring of text")
            if lab.get("op", "set") not in ("set", "retract"):
                errors.append(f"{where}: op must be set/retract")
            d = lab.get("date")
            if d is not None and (k != "fact" or d not in text):
                errors.append(f"{where}: date {d!r} must be a substring of text, facts only")
            kinds[f"{k}/{key}"] += 1
        for t in row.get("neg") or []:
            if t not in NEG:
                errors.append(f"{where}: unknown neg tag {t}")
    print(f"{path}: {n} messages, {empty} with no label ({empty / max(n, 1):.0%}), langs {dict(langs)}")
    print("  labels:", dict(sorted(kinds.items())))
    for e in errors[:50]:
        print("  ERROR", e)
    if len(errors) > 50:
        print(f"  ... {len(errors) - 50} more errors")
    return not errors


if __name__ == "__main__":
    ok = all([check(p) for p in sys.argv[1:]])
    sys.exit(0 if ok else 2)
