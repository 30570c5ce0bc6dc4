"""Loopback soak: concurrent ingest and read clients against gunicorn + qcluster.

    .venv/bin/python benchmarks/soak.py                 # 60 s, SQLite file in /tmp, ORM broker
    .venv/bin/python benchmarks/soak.py --seconds 600   # the issue's 10-minute figure
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bizmemory_soak \\
        .venv/bin/python benchmarks/soak.py --production  # Redis broker, 2 workers, gunicorn -w 3

A fresh database is migrated (SQLite: a new file; PostgreSQL/MariaDB: the named database,
flushed of earlier soak users), two API keys are made, then gunicorn and ``manage.py
qcluster`` run as separate processes. ``--ingest`` client threads post two-message turns
(every message carries a client-generated id ``[soak:<client>-<n>-<role>]``) to
``--users`` users' sessions; ``--readers`` threads call context, memory_search and memory_get;
one thread measures the API root as the baseline in the same run. Rate limits are off.
After ``--seconds``, every session is ended and the pipeline gets ``--drain`` seconds to
extract everything.

Output: one JSON line per figure — per endpoint ``n``, ``p50_ms``/``p95_ms``/``p99_ms``,
``status`` counts; then the totals: ``posted`` messages acknowledged with 201, ``lost``
(acknowledged but not stored), ``duplicated`` (stored more than once), ``unacknowledged``
(timeouts / non-201, checked separately), ``5xx``, ``unextracted_sessions`` after the drain.
Exit status 1 when anything was lost or duplicated or a 5xx was seen.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import requests

ROOT = Path(__file__).resolve().parents[1]
FACTS = ["I use {} at work.".format(s) for s in ("Python", "Rust", "Go", "Java", "Kotlin", "SQL", "Ruby", "Swift")] + [
    "I live in {}.".format(c) for c in ("Leeds", "Bristol", "Oslo", "Lima", "Porto")
] + ["I prefer short answers.", "Tell me about the weather.", "What should I cook tonight?"]


def emit(**fields) -> None:
    print(json.dumps({"benchmark": "soak", **fields}, ensure_ascii=False), flush=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _setup_database(env: dict) -> tuple[str, str]:
    """Migrate the database ``env['DATABASE_URL']`` names and return ``(ingest_key, read_key)``."""
    code = (
        "import django;django.setup()\n"
        "from django.core.management import call_command\n"
        "call_command('migrate', verbosity=0)\n"
        "from django.contrib.auth import get_user_model\n"
        "get_user_model().objects.filter(username__startswith='soak-').delete()\n"
        "from profiles.models import PlatformAPIKey\n"
        "keys = [PlatformAPIKey.objects.create_key(name=f'soak-{s}', scope=s)[1] for s in ('ingest', 'read')]\n"
        "print(' '.join(keys))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    ingest, read = out.stdout.strip().splitlines()[-1].split()
    return ingest, read


class Recorder:
    """Thread-safe latencies (seconds) and status counts per endpoint."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latency = defaultdict(list)
        self.status = defaultdict(Counter)

    def add(self, endpoint: str, seconds: float, status: int) -> None:
        with self.lock:
            self.latency[endpoint].append(seconds)
            self.status[endpoint][status] += 1


def _call(rec: Recorder, endpoint: str, fn):
    t = time.perf_counter()
    try:
        r = fn()
        status = r.status_code
    except requests.RequestException:
        r, status = None, 0  # timeout / connection error
    rec.add(endpoint, time.perf_counter() - t, status)
    return r, status


def ingest_client(cid: int, url: str, key: str, users: int, stop: threading.Event, rec: Recorder, acked: list,
                  unacked: list, sessions: set) -> None:
    s = requests.Session()
    s.headers["X-Api-Key"] = key
    rng = random.Random(cid)
    n = 0
    turns: Counter = Counter()
    while not stop.is_set():
        user = f"soak-{rng.randrange(users):03d}"
        session = f"{user}-c{cid}-{turns[user] // 20}"  # each user's session with this client: 20 turns
        turns[user] += 1
        ids = [f"{cid}-{n}-u", f"{cid}-{n}-a"]
        body = {"user": user, "session": session, "messages": [
            {"role": "user", "content": f"{rng.choice(FACTS)} [soak:{ids[0]}]"},
            {"role": "assistant", "content": f"Noted. [soak:{ids[1]}]"},
        ]}
        _, status = _call(rec, "POST /api/v1/messages", lambda: s.post(f"{url}/api/v1/messages", json=body, timeout=30))
        (acked if status == 201 else unacked).extend(ids)
        if status == 201:
            sessions.add((user, session))
        n += 1


def read_client(cid: int, url: str, key: str, users: int, stop: threading.Event, rec: Recorder) -> None:
    s = requests.Session()
    s.headers["X-Api-Key"] = key
    rng = random.Random(1000 + cid)
    while not stop.is_set():
        user = f"soak-{rng.randrange(users):03d}"
        which = rng.randrange(3)
        if which == 0:
            _call(rec, "GET /api/v1/context", lambda: s.get(f"{url}/api/v1/context", timeout=30,
                                                            params={"user": user, "agent": "main", "budget": 300}))
        elif which == 1:
            _call(rec, "GET /api/v1/memory/search", lambda: s.get(f"{url}/api/v1/memory/search", timeout=30,
                                                                  params={"user": user, "agent": "main", "query": "Python"}))
        else:
            _call(rec, "GET /api/v1/memory", lambda: s.get(f"{url}/api/v1/memory", timeout=30,
                                                           params={"user": user, "agent": "main"}))


def baseline_client(url: str, stop: threading.Event, rec: Recorder) -> None:
    s = requests.Session()
    while not stop.is_set():
        _call(rec, "GET /api/v1/ (baseline)", lambda: s.get(f"{url}/api/v1/", timeout=30))
        time.sleep(0.05)


def _stored_tags(env: dict) -> tuple[Counter, int]:
    """``(Counter of soak tags stored in messages, sessions whose watermark is behind)``."""
    code = (
        "import django,json,re;django.setup()\n"
        "from consolidation.models import Message, Session\n"
        "from django.db.models import Max\n"
        "tags=[m for c in Message.objects.filter(session__user__username__startswith='soak-')"
        ".values_list('content',flat=True).iterator() for m in re.findall(r'\\[soak:([^\\]]+)\\]', c)]\n"
        "behind=sum(1 for s in Session.objects.filter(user__username__startswith='soak-').annotate(last=Max('messages__id'))"
        " if s.last and s.watermark < s.last)\n"
        "print(json.dumps({'tags': tags, 'behind': behind}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return Counter(data["tags"]), data["behind"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=60.0, help="load duration (s)")
    p.add_argument("--ingest", type=int, default=4, help="ingest client threads")
    p.add_argument("--readers", type=int, default=4, help="read client threads")
    p.add_argument("--users", type=int, default=50, help="distinct platform users")
    p.add_argument("--drain", type=float, default=120.0, help="seconds allowed for extraction to catch up")
    p.add_argument("--production", action="store_true", help="Redis broker, 2 qcluster workers, gunicorn -w 3")
    args = p.parse_args(argv)

    env = {**os.environ, "PYTHONUNBUFFERED": "1", "DJANGO_SETTINGS_MODULE": "bizmemory.settings", "BIZMEMORY_API_RATE_READ": "", "BIZMEMORY_API_RATE_INGEST": "",
           "BIZMEMORY_EXTRACTION_QUIET_SECONDS": "0", "Q_CLUSTER_NAME": f"soak-{os.getpid()}"}
    env.setdefault("DATABASE_URL", f"sqlite:////tmp/bizmemory-soak-{os.getpid()}.sqlite3")
    env.setdefault("BIZMEMORY_EMBEDDER", "hashing")
    env.setdefault("SECRET_KEY", secrets.token_urlsafe(50))  # gunicorn refuses the development key (DEBUG off)
    web_workers = "3" if args.production else "1"
    if args.production:
        env.update(Q_BROKER="redis", Q_WORKERS="2")
    ingest_key, read_key = _setup_database(env)

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    logs = {name: open(f"/tmp/soak-{name}-{os.getpid()}.log", "w") for name in ("gunicorn", "qcluster")}
    procs = [
        subprocess.Popen([sys.executable, "-m", "gunicorn", "bizmemory.wsgi", "-b", f"127.0.0.1:{port}", "-w", web_workers,
                          "--timeout", "60"], cwd=ROOT, env=env, stdout=logs["gunicorn"], stderr=subprocess.STDOUT,
                         start_new_session=True),
        subprocess.Popen([sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=env, stdout=logs["qcluster"],
                         stderr=subprocess.STDOUT, start_new_session=True),
    ]
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(url + "/api/v1/", timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("gunicorn did not start; see /tmp/soak-gunicorn-*.log")
            time.sleep(0.2)

        rec, stop = Recorder(), threading.Event()
        acked, unacked, sessions = [], [], set()
        threads = [threading.Thread(target=ingest_client, args=(i, url, ingest_key, args.users, stop, rec, acked, unacked,
                                                                 sessions)) for i in range(args.ingest)]
        threads += [threading.Thread(target=read_client, args=(i, url, read_key, args.users, stop, rec))
                    for i in range(args.readers)]
        threads.append(threading.Thread(target=baseline_client, args=(url, stop, rec)))
        started = time.monotonic()
        for t in threads:
            t.start()
        time.sleep(args.seconds)  # the load runs for the requested duration; clients are bounded by `stop`
        stop.set()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - started

        def end_one(user_session):
            user, session = user_session  # session ids are per user: the end names the user
            _call(rec, "POST /api/v1/sessions/<s>/end", lambda: requests.post(
                f"{url}/api/v1/sessions/{session}/end", json={"user": user}, headers={"X-Api-Key": ingest_key},
                timeout=30))

        with ThreadPoolExecutor(args.ingest) as pool:
            list(pool.map(end_one, sorted(sessions)))

        for endpoint in sorted(rec.latency):
            lat = np.array(rec.latency[endpoint]) * 1000
            emit(endpoint=endpoint, n=int(lat.size), rps=round(lat.size / elapsed, 1),
                 p50_ms=round(float(np.percentile(lat, 50)), 2), p95_ms=round(float(np.percentile(lat, 95)), 2),
                 p99_ms=round(float(np.percentile(lat, 99)), 2),
                 status={str(k): v for k, v in sorted(rec.status[endpoint].items())})

        drain_deadline = time.monotonic() + args.drain
        while True:
            stored, behind = _stored_tags(env)
            if behind == 0 or time.monotonic() > drain_deadline:
                break
            time.sleep(2)
        lost = [t for t in acked if stored[t] == 0]
        duplicated = [t for t, c in stored.items() if c > 1]
        fivexx = sum(c for st in rec.status.values() for code, c in st.items() if code >= 500)
        unacked_stored = sum(1 for t in unacked if stored[t] == 1)
        emit(figure="totals", seconds=round(elapsed, 1), ingest_clients=args.ingest, read_clients=args.readers,
             production=args.production, database=env["DATABASE_URL"].split(":")[0],
             posted=len(acked), lost=len(lost), duplicated=len(duplicated), unacknowledged=len(unacked),
             unacknowledged_stored=unacked_stored, **{"5xx": fivexx}, sessions=len(sessions),
             unextracted_sessions=behind)
        return 1 if lost or duplicated or fivexx else 0
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    pass
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for f in logs.values():
            f.close()


if __name__ == "__main__":
    sys.exit(main())
