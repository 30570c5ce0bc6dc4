#!/usr/bin/env python3
"""Convert LoCoMo (../shared/datasets/locomo/locomo10.json) to the replay JSONL format.

Usage: python tools/locomo_to_replay.py [SRC] [-o OUT.jsonl]

Each LoCoMo conversation becomes one replay conversation: ``speaker_a`` is the
user (role ``user``), ``speaker_b`` plays the assistant; every dated session is
a ``chat`` session whose ``started_at`` is the LoCoMo session date (UTC).
Turns keep their ``dia_id`` in ``id``. Exits 0 with a note on stderr when the
data set is absent (it is not part of this repository: CC BY-NC 4.0).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
from pathlib import Path

DEFAULT_SRC = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "locomo" / "locomo10.json"


def parse_locomo_date(text: str) -> dt.datetime:
    """Parse LoCoMo's ``"1:56 pm on 8 May, 2023"`` into an aware UTC datetime. Raises ValueError."""
    return dt.datetime.strptime(re.sub(r"\s+", " ", text.strip()), "%I:%M %p on %d %B, %Y").replace(tzinfo=dt.timezone.utc)


def convert(data: list[dict]) -> list[dict]:
    """LoCoMo conversations → replay conversations (list of dicts, ../shared/eval/README.md shape)."""
    out = []
    for sample in data:
        conv = sample["conversation"]
        user_speaker = conv["speaker_a"]
        sid = sample["sample_id"]
        sessions = []
        n = 1
        while f"session_{n}" in conv:
            turns = conv[f"session_{n}"]
            if turns:
                sessions.append({
                    "session_id": f"locomo-{sid}-s{n}",
                    "kind": "chat",
                    "started_at": parse_locomo_date(conv[f"session_{n}_date_time"]).isoformat(),
                    "messages": [
                        {"role": "user" if t["speaker"] == user_speaker else "assistant", "content": t["text"],
                         "expert": None, "id": t["dia_id"]}
                        for t in turns if t.get("text", "").strip()
                    ],
                })
            n += 1
        out.append({
            "id": f"locomo-{sid}", "lang": "en", "user_id": f"locomo-{sid}", "agent_id": "main",
            "settings": {"memory_enabled": True, "experts_disabled": [], "experts_excluded_from_extraction": []},
            "sessions": sessions,
        })
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", nargs="?", default=str(DEFAULT_SRC))
    ap.add_argument("-o", "--out", default="-")
    a = ap.parse_args(argv)
    src = Path(a.src)
    if not src.exists():
        print(f"locomo_to_replay: {src} is absent; nothing to convert", file=sys.stderr)
        return 0
    convs = convert(json.loads(src.read_text(encoding="utf-8")))
    lines = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in convs)
    if a.out == "-":
        sys.stdout.write(lines)
    else:
        Path(a.out).write_text(lines, encoding="utf-8")
    print(f"locomo_to_replay: {len(convs)} conversations, "
          f"{sum(len(s['messages']) for c in convs for s in c['sessions'])} messages", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
