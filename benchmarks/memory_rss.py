#!/usr/bin/env python3
"""Peak RSS of the web process (gunicorn worker) and of one qcluster worker under a short load.

Starts, on a fresh SQLite file (``/tmp/bizmemory-bench-rss.sqlite3``, ORM broker) with the default
settings (embedder ``use`` unless ``BIZMEMORY_EMBEDDER`` says otherwise), gunicorn with one sync
worker and ``manage.py qcluster`` with one worker (``Q_WORKERS=1``) as separate processes. Load for
``--seconds`` (default 30): two ingest threads post the turns of ``../shared/eval/dev.jsonl``
(read in place) under fresh user ids, ending each session (``end_session``), so the worker runs
extraction (presidio sanitizer, rules) and consolidation (MEMORY.md, snapshot, search index with the
embedder); two reader threads call ``/api/v1/context`` with a query and ``/api/v1/memory/search``
for users already posted. Then the task queue is drained (≤ ``--drain`` s).

Figures (MiB, ``VmHWM`` of /proc/<pid>/status, the kernel's peak resident set):
``web_worker_peak_rss_mb`` (largest gunicorn worker), ``qcluster_worker_peak_rss_mb`` (largest
process under ``manage.py qcluster``: the worker that ran the tasks); baseline of both:
``django_process_peak_rss_mb``, a bare ``django.setup()`` process on the same settings.
Also the requests and tasks done. ``{"skipped": ...}`` when the dev set is absent.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (DEV, NO_RATE_LIMIT, REPO, Gunicorn, descendants, emit, skipped, sqlite_fresh,  # noqa: E402
                    stop_process_group, vm_hwm_kb)


def _bare_django_peak_kb(env: dict) -> int:
    code = ("import django; django.setup()\n"
            "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')][0])")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    return int(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--drain", type=float, default=120.0)
    ap.add_argument("--quick", action="store_true", help="10 s of load (smoke run)")
    args = ap.parse_args(argv)
    if args.quick:
        args.seconds = 10.0
    if not DEV.is_file():
        skipped(f"memory_rss: dev set not found: {DEV}")
        return 0
    url = sqlite_fresh("bizmemory-bench-rss")
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "bizmemory.settings", "PYTHONUNBUFFERED": "1",
           "BIZMEMORY_API_RATE_READ": NO_RATE_LIMIT,
           "BIZMEMORY_API_RATE_INGEST": NO_RATE_LIMIT, "Q_WORKERS": "1", "Q_BROKER": "orm",
           "Q_CLUSTER_NAME": f"bench-rss-{os.getpid()}", "BIZMEMORY_EXTRACTION_QUIET_SECONDS": "0"}
    from common import django_setup

    django_setup(url, **{k: v for k, v in env.items() if k.startswith(("BIZMEMORY_", "Q_"))})
    import requests
    from django_q.models import OrmQ

    from profiles.models import PlatformAPIKey

    _, ingest_key = PlatformAPIKey.objects.create_key(name="bench-rss-ingest", scope="ingest")
    _, read_key = PlatformAPIKey.objects.create_key(name="bench-rss-read", scope="read")
    convs = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
    baseline_kb = _bare_django_peak_kb(env)

    qlog = open("/tmp/bizmemory-bench-rss-qcluster.log", "w")
    qcluster = subprocess.Popen([sys.executable, "manage.py", "qcluster"], cwd=REPO, env=env, stdout=qlog,
                                stderr=subprocess.STDOUT, start_new_session=True)
    stop = threading.Event()
    posted: list[str] = []
    counts = {"ingest": 0, "read": 0, "errors": 0}
    lock = threading.Lock()
    try:
        with Gunicorn(env, workers=1, log="/tmp/bizmemory-bench-rss-gunicorn.log") as g:

            def ingest(tid: int) -> None:
                s = requests.Session()
                s.headers["X-Api-Key"] = ingest_key
                k = 0
                while not stop.is_set():
                    conv = convs[k % len(convs)]
                    user = f"rss-{tid}-{k}"
                    for si, sess in enumerate(conv["sessions"]):
                        msgs = sess["messages"]
                        for i in range(0, len(msgs), 2):
                            body = {"user": user, "session": f"{user}-s{si}", "end_session": i + 2 >= len(msgs),
                                    "session_kind": sess.get("kind", "chat"),
                                    "messages": [{"role": m["role"], "content": m["content"]} for m in msgs[i : i + 2]]}
                            r = s.post(f"{g.url}/api/v1/messages", json=body, timeout=60)
                            with lock:
                                counts["ingest" if r.status_code == 201 else "errors"] += 1
                    with lock:
                        posted.append(user)
                    k += 1

            def read(tid: int) -> None:
                s = requests.Session()
                s.headers["X-Api-Key"] = read_key
                rng = random.Random(tid)
                while not stop.is_set():
                    with lock:
                        user = rng.choice(posted) if posted else None
                    if user is None:
                        time.sleep(0.2)
                        continue
                    params = {"user": user, "agent": "main", "query": rng.choice(["我住在哪里", "what is my role", "偏好"])}
                    for path in ("/api/v1/context", "/api/v1/memory/search"):
                        r = s.get(g.url + path, params=params, timeout=60)
                        with lock:
                            counts["read" if r.status_code == 200 else "errors"] += 1

            threads = [threading.Thread(target=ingest, args=(i,)) for i in range(2)]
            threads += [threading.Thread(target=read, args=(i,)) for i in range(2)]
            for t in threads:
                t.start()
            time.sleep(args.seconds)  # the load runs for the requested time; threads stop on the event
            stop.set()
            for t in threads:
                t.join()
            deadline, idle = time.monotonic() + args.drain, 0
            while time.monotonic() < deadline and idle < 3:
                idle = idle + 1 if OrmQ.objects.count() == 0 else 0
                time.sleep(1)
            if qcluster.poll() is not None:
                raise RuntimeError("qcluster exited; see /tmp/bizmemory-bench-rss-qcluster.log")
            web = {pid: vm_hwm_kb(pid) for pid in g.worker_pids()}
            worker = {pid: vm_hwm_kb(pid) for pid in descendants(qcluster.pid)}
            worker[qcluster.pid] = vm_hwm_kb(qcluster.pid)
    finally:
        stop.set()
        stop_process_group(qcluster)
        qlog.close()
    from django_q.models import Success

    web_kb = max(v for v in web.values() if v)
    worker_kb = max(v for v in worker.values() if v)
    common = {"embedder": os.environ.get("BIZMEMORY_EMBEDDER", "use"), "load_s": args.seconds, "db": "sqlite"}
    emit("web_worker_peak_rss_mb", web_kb / 1024, "MiB", baseline=baseline_kb / 1024, n=len(web),
         baseline_name="bare_django_process", requests=counts["ingest"] + counts["read"], errors=counts["errors"], **common)
    emit("qcluster_worker_peak_rss_mb", worker_kb / 1024, "MiB", baseline=baseline_kb / 1024, n=len(worker),
         baseline_name="bare_django_process", tasks_done=Success.objects.count(),
         tasks_left=OrmQ.objects.count(), **common)
    emit("django_process_peak_rss_mb", baseline_kb / 1024, "MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
