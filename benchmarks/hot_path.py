#!/usr/bin/env python3
"""Hot path: ``GET /api/v1/context`` latency through gunicorn and in-process, vs one indexed SELECT.

Data: ``--users`` users × ``--items`` memory items each, bulk-created (``context_latency._populate``:
profile / preference / fact items, Chinese and English) into a dedicated scratch database:
``/tmp/bizmemory-bench-hot.sqlite3`` (``--db sqlite``) or ``bizmemory_bench_hot`` on
``BENCH_PG_URL`` (``--db postgresql``). Default 1,000 × 200 = 200,000 items so the whole benchmark
run stays under 20 minutes; ``--full`` is the issue's 10,000 × 200 (2 M items). Every figure says
which size ran.

Figures (milliseconds; ``--requests`` random users each, after one warm-up request per sampled
user — the outbound-sanitizer cache is then warm, as in steady state; budget 600 tokens, no query):

- ``context_http_{p50,p95}_ms_<db>``: through the real HTTP stack — gunicorn (1 sync worker) started
  by this script on a loopback port, a new TCP connection per request (sync workers close it);
- ``context_inprocess_{p50,p95}_ms_<db>``: ``profiles.selectors.memory_context`` in this process;
- ``api_root_http_{p50,p95}_ms_<db>``: ``GET /api/v1/`` through the same gunicorn (the HTTP floor);
- baseline of all of them: ``select_one_item_{p50,p95}_ms_<db>``, a single indexed SELECT
  ``MemoryItem.objects.filter(pk=…).values_list("text").first()`` in this process.

Output: one JSON line per figure (``benchmarks/common.emit``); ``{"skipped": ...}`` when PostgreSQL
is unavailable for ``--db postgresql``.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Gunicorn, emit, latency_figures, pg_available, pg_fresh_database, skipped, sqlite_fresh, timed  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    ap.add_argument("--users", type=int, default=1000)
    ap.add_argument("--items", type=int, default=200)
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument("--full", action="store_true", help="10,000 users × 200 items (the issue's target size)")
    ap.add_argument("--quick", action="store_true", help="100 users × 200 items, 100 requests (smoke run)")
    args = ap.parse_args(argv)
    if args.full:
        args.users, args.items = 10000, 200
    if args.quick:
        args.users, args.requests = 100, 100
    if args.db == "postgresql":
        why = pg_available()
        if why:
            skipped(f"hot_path postgresql: {why}")
            return 0
        url = pg_fresh_database("bizmemory_bench_hot")
    else:
        url = sqlite_fresh("bizmemory-bench-hot")

    from common import django_setup

    django_setup(url, BIZMEMORY_EMBEDDER=os.environ.get("BIZMEMORY_EMBEDDER", "hashing"))
    import requests
    from context_latency import _populate
    from django.db import connection

    from profiles.models import MemoryItem, PlatformAPIKey
    from profiles.selectors import memory_context

    rng = random.Random(9)
    t0 = time.perf_counter()
    users = _populate(args.users, args.items, rng)
    if connection.vendor == "postgresql":
        with connection.cursor() as cur:
            cur.execute("ANALYZE")
    populate_s = time.perf_counter() - t0
    _, key = PlatformAPIKey.objects.create_key(name="bench-hot", scope="read")
    size = f"{args.users}x{args.items}"
    common = {"db": connection.vendor, "size": size, "items_total": args.users * args.items}
    emit(f"hot_path_populate_s_{args.db}", populate_s, "s", **common)

    sample = [rng.choice(users) for _ in range(args.requests)]
    distinct = list({u.pk: u for u in sample}.values())
    hi = MemoryItem.objects.order_by("-pk").values_list("pk", flat=True).first()
    item_ids = [rng.randint(1, hi) for _ in range(args.requests)]

    select = timed(lambda pk: MemoryItem.objects.filter(pk=pk).values_list("text").first(), item_ids)
    for u in distinct:
        memory_context(user=u, agent_slug="main", budget=600)
    inproc = timed(lambda u: memory_context(user=u, agent_slug="main", budget=600), sample)

    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with Gunicorn(env, workers=1, log=f"/tmp/bizmemory-bench-hot-{args.db}.log") as g:
        s = requests.Session()
        s.headers["X-Api-Key"] = key

        def http(u):
            r = s.get(f"{g.url}/api/v1/context", params={"user": u.username, "agent": "main", "budget": 600}, timeout=60)
            if r.status_code != 200:
                raise RuntimeError(f"context returned {r.status_code}: {r.text[:200]}")

        def root(_):
            r = s.get(f"{g.url}/api/v1/", timeout=60)
            if r.status_code != 200:
                raise RuntimeError(f"API root returned {r.status_code}")

        cold = timed(http, distinct)
        root_lat = timed(root, range(args.requests))
        http_lat = timed(http, sample)
        select2 = timed(lambda pk: MemoryItem.objects.filter(pk=pk).values_list("text").first(), item_ids)

    base = select + select2  # measured before and after the HTTP run, same process
    latency_figures(f"select_one_item_{args.db}", base, **common)
    latency_figures(f"context_inprocess_{args.db}", inproc, base=base, baseline_name="select_one_item", **common)
    latency_figures(f"api_root_http_{args.db}", root_lat, base=base, baseline_name="select_one_item", **common)
    latency_figures(f"context_http_{args.db}", http_lat, base=base, baseline_name="select_one_item", **common)
    latency_figures(f"context_http_first_request_{args.db}", cold, base=base, baseline_name="select_one_item", **common)
    return 0


if __name__ == "__main__":
    sys.exit(main())
