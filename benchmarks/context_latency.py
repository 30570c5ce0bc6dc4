#!/usr/bin/env python3
"""Latency of the context endpoint against a single indexed SELECT on the same database.

Data: ``--users`` users × ``--items`` memory items each (default 200 × 200 = 40,000
items, ~1 minute here; ``--full`` = the issue's 10,000 × 200). Measured in-process, single
thread, over ``--requests`` requests to random users after one warm-up request per
sampled user (the outbound-sanitizer cache is then warm, as in steady state):

- ``context_http``: ``GET /api/v1/context`` through Django's test client (key check, view,
  selector, JSON), budget 600 tokens, no query;
- ``context_query_http``: the same with a ``query`` (facts ranked by ``memory_search``,
  embedder ``BIZMEMORY_EMBEDDER``, default ``use``);
- ``context_selector``: ``profiles.selectors.memory_context`` alone;
- baseline ``select_one_item``: ``MemoryItem.objects.filter(pk=…).values_list("text").first()``.

Output: one JSON line per figure (p50/p95 in ms, and p95 ratios to the baseline). Uses a
fresh SQLite file unless ``DATABASE_URL`` is set (point it at a scratch database).
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

ZH = ["我住在{}", "我在{}工作", "我喜欢{}", "我对{}过敏", "我女儿在{}上学", "我上个月去了{}", "我每天早上{}"]
EN = ["I live in {}", "I work at {}", "I like {}", "I am allergic to {}", "My son studies in {}", "I went to {} last month"]
WORDS = ["上海", "杭州", "Manchester", "coffee", "花生", "跑步", "银行", "Leeds", "Python", "咖啡", "游泳", "东京"]


def _setup() -> None:
    db = Path("/tmp/bizmemory-bench-context.sqlite3")
    if "DATABASE_URL" not in os.environ:
        db.unlink(missing_ok=True)
        os.environ["DATABASE_URL"] = f"sqlite:///{db}"
    os.environ.setdefault("BIZMEMORY_EMBEDDER", "use")
    os.environ.setdefault("BIZMEMORY_API_RATE_READ", "1000000/s")  # never reached in a latency run
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bizmemory.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _populate(users: int, items: int, rng: random.Random) -> list:
    from django.contrib.auth import get_user_model

    from profiles.models import MemoryItem, MemorySettings, PlatformIdentity

    User = get_user_model()
    now = dt.datetime(2026, 3, 1, tzinfo=dt.timezone.utc)
    made = User.objects.bulk_create([User(username=f"bench-{i}") for i in range(users)], batch_size=2000)
    made = list(User.objects.filter(username__startswith="bench-").order_by("pk"))
    MemorySettings.objects.bulk_create([MemorySettings(user=u) for u in made], batch_size=2000)
    # The API finds platform users by their PlatformIdentity (issue 14), not by username.
    PlatformIdentity.objects.bulk_create([PlatformIdentity(user=u, external_id=u.username) for u in made], batch_size=2000)
    batch = []
    for u in made:
        tpl = ZH if rng.random() < 0.5 else EN
        for k in range(items):
            kind = "profile" if k < 10 else "preference" if k < 30 else "fact"
            t = now - dt.timedelta(days=rng.randint(0, 700))
            text = rng.choice(tpl).format(rng.choice(WORDS)) + f" #{k}"
            batch.append(MemoryItem(user=u, kind=kind, key=f"k{k}", value=text[:40], text=text, valid_from=t,
                                    confirmed_at=t, fact_date=t.date() if kind == "fact" else None))
        if len(batch) >= 20000:
            MemoryItem.objects.bulk_create(batch, batch_size=5000)
            batch = []
    MemoryItem.objects.bulk_create(batch, batch_size=5000)
    return made


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--items", type=int, default=200)
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument("--full", action="store_true", help="10,000 users × 200 items (the issue's target size)")
    args = ap.parse_args()
    if args.full:
        args.users, args.items = 10000, 200
    _setup()
    from django.db import connection
    from django.test import Client

    from profiles.models import MemoryItem, PlatformAPIKey
    from profiles.selectors import memory_context

    rng = random.Random(6)
    t0 = time.perf_counter()
    users = _populate(args.users, args.items, rng)
    setup_s = time.perf_counter() - t0
    _, key = PlatformAPIKey.objects.create_key(name="bench", scope="read")
    client = Client(HTTP_X_API_KEY=key)
    sample = [rng.choice(users) for _ in range(args.requests)]
    item_ids = list(MemoryItem.objects.values_list("pk", flat=True)[:: max(1, args.items // 4)])

    def timed(fn, seq) -> list[float]:
        out = []
        for x in seq:
            t = time.perf_counter()
            fn(x)
            out.append(time.perf_counter() - t)
        return out

    def http(u, query=None):
        params = {"user": u.username, "agent": "main", "budget": 600}
        if query:
            params["query"] = query
        r = client.get("/api/v1/context", params)
        assert r.status_code == 200, r.content

    distinct = list({u.pk: u for u in sample}.values())
    cold = timed(http, distinct)  # first request per user fills the outbound-sanitizer cache
    for u in distinct[:50]:
        http(u, "花生过敏")  # builds these users' search index
    figures = {
        "select_one_item": timed(lambda pk: MemoryItem.objects.filter(pk=pk).values_list("text").first(),
                                 [rng.choice(item_ids) for _ in range(args.requests)]),
        "context_http": timed(http, sample),
        "context_selector": timed(lambda u: memory_context(user=u, agent_slug="main", budget=600), sample),
        "context_query_http": timed(lambda u: http(u, "花生过敏"), [rng.choice(distinct[:50]) for _ in range(args.requests)]),
    }
    common = {"db": connection.vendor, "users": args.users, "items_per_user": args.items}
    print(json.dumps({"figure": "setup_seconds", "value": round(setup_s, 1), **common}))
    print(json.dumps({"figure": "context_http_cold_p50_ms", "value": round(_pct(cold, 0.5), 3), "n": len(cold), **common}))
    base95 = _pct(figures["select_one_item"], 0.95)
    for name, xs in figures.items():
        print(json.dumps({"figure": f"{name}_p50_ms", "value": round(_pct(xs, 0.5), 3), "n": len(xs), **common}))
        print(json.dumps({"figure": f"{name}_p95_ms", "value": round(_pct(xs, 0.95), 3), "n": len(xs), **common}))
        if name != "select_one_item":
            print(json.dumps({"figure": f"{name}_p95_ratio_to_select", "value": round(_pct(xs, 0.95) / base95, 1),
                              "target": 5, **common}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
