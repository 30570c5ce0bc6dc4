"""No message is ever left unextracted (issue 14's targets), against the running stack.

During a loaded ingest (threads posting multi-turn sessions, each ended, every message with a
``message_id`` and retried until the server says 201, as a platform would), one fault:

* ``db_cut``: the database is unreachable for 10 s for the web *and* the workers (a TCP proxy
  between every process and the server is cut, then restored);
* ``kill_cluster``: SIGKILL of the whole qcluster (sentinel, pusher, workers; on Redis the
  tasks its pusher had prefetched are lost with it), then a fresh cluster;
* ``kill_worker``: SIGKILL of one worker process; its sentinel starts a new one.

Afterwards, within one sweep interval (the ``pipeline-sweep`` schedule: every minute, checked
by the scheduler every ~15 s) plus the lease, every session is extracted to its last message, no
acknowledged message is missing, none is stored or journaled twice, and no sweep ever found a
session in the impossible state (``SweepResult.behind``, summed over the workers' ``sweep:``
log lines: printed as a JSON line with the sweeps that found work, and asserted to be 0).
"""

import json
import os
import re
import signal
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.db import connection
from django.utils import timezone

from consolidation.due import sessions_behind
from consolidation.models import JournalEntry, Message, MessageRole, Session
from tests.tcp_proxy import TcpProxy

from .conftest import TOPOLOGY, database_url_of_test_db, wait_for

pytestmark = pytest.mark.e2e

LEASE = 5
SWEEP_WINDOW = 60 + 15 + LEASE  # interval + scheduler granularity + lease
SESSIONS = 36
CITIES = ["Leeds", "Bristol", "Oslo", "Lima", "Perth", "Quito", "Hanoi", "Tunis", "Porto", "Riga", "Cork", "Bern"]


def _post_until_accepted(url, headers, body, deadline):
    while True:
        try:
            r = requests.post(f"{url}/api/v1/messages", json=body, headers=headers, timeout=15)
            if r.status_code == 201:
                return r
            assert r.status_code == 503, r.text[:300]  # the outage: refused cleanly, retried
        except requests.RequestException:
            pass  # a connection the outage broke: retried
        assert time.monotonic() < deadline, "a post was never accepted"
        time.sleep(0.5)


def _load(url, headers, fault_at: threading.Event):
    """Post SESSIONS sessions of 3 posts each (6 turns, the last post ends the session)."""
    deadline = time.monotonic() + 240

    def session(i):
        user, sid = f"load-{i:02d}", f"load-{i:02d}-s"
        lines = [f"I live in {CITIES[i % len(CITIES)]}.", "I use Python at work.", "Please keep answers short."]
        for n, line in enumerate(lines):
            if i == 2 * SESSIONS // 3 and n == 1:
                # Two thirds in: the queue holds the most work nobody will post to again, and
                # posts keep coming (6 threads) while the fault lasts.
                fault_at.set()
            body = {"user": user, "session": sid, "end_session": n == len(lines) - 1, "messages": [
                {"role": "user", "content": line, "message_id": f"{sid}-u{n}"},
                {"role": "assistant", "content": "Noted.", "message_id": f"{sid}-a{n}"}]}
            _post_until_accepted(url, headers, body, deadline)
        return sid

    with ThreadPoolExecutor(6) as pool:
        return list(pool.map(session, range(SESSIONS)))


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return sorted(int(p) for p in out.split())


def _worker_pids(main_pid: int, workers: int = 2) -> list[int]:
    """The worker processes of a running ``manage.py qcluster``: its child is the sentinel, which
    spawns the workers first, then the monitor and the pusher (django_q.cluster.spawn_cluster),
    so the workers are the sentinel's ``workers`` oldest (lowest-pid) children."""
    found: list[int] = []

    def ready():
        sentinels = _children(main_pid)
        found[:] = _children(sentinels[0])[:workers] if sentinels and len(_children(sentinels[0])) >= workers + 2 else []
        return bool(found)

    wait_for(ready, timeout=60, what="the qcluster's worker processes")
    return found


def _all_extracted(sids):
    sessions = Session.objects.filter(external_id__in=sids)
    if sessions.count() != len(sids):
        return False
    for s in sessions:
        last = Message.objects.filter(session=s).order_by("-id").values_list("id", flat=True).first()
        if s.watermark != last or s.extraction_due_at is not None:
            return False
    return True


@pytest.mark.parametrize("fault", ["db_cut", "kill_cluster", "kill_worker"])
def test_after_a_fault_during_a_loaded_ingest_every_message_is_extracted_once(stack_factory, api_keys, fault):
    if fault == "db_cut" and connection.vendor == "sqlite":
        pytest.skip("SQLite is a file in the server process: there is no connection to cut")
    if fault == "kill_worker" and TOPOLOGY != "production":
        pytest.skip("one worker of two: the production topology runs Q_WORKERS=2")
    proxy = None
    extra = {"BIZMEMORY_EXTRACTION_LEASE_SECONDS": str(LEASE), "BIZMEMORY_CONSOLIDATION_LEASE_SECONDS": str(LEASE),
             "BIZMEMORY_EXTRACTION_POLICY": "always", "BIZMEMORY_CONSOLIDATION_MIN_INTERVAL_SECONDS": "0"}
    if fault == "db_cut":
        s = connection.settings_dict
        proxy = TcpProxy(s["HOST"] or "127.0.0.1", int(s["PORT"] or (5432 if connection.vendor == "postgresql" else 3306)))
        extra["DATABASE_URL"] = database_url_of_test_db().replace(f":{s['PORT']}/", f":{proxy.port}/")
    try:
        st = stack_factory(**extra)
        _worker_pids(st.worker.popen.pid, int(st.env["Q_WORKERS"]))  # the cluster is up before the load starts
        headers = {"X-Api-Key": api_keys["ingest"]}
        fault_at = threading.Event()
        with ThreadPoolExecutor(1) as pool:
            load = pool.submit(_load, st.url, headers, fault_at)
            assert fault_at.wait(120), st.logs()
            if fault == "db_cut":
                proxy.cut()
                time.sleep(10)
                proxy.restore()
            elif fault == "kill_cluster":
                st.kill_worker()
                time.sleep(2)
                st.start_worker()
            else:
                os.kill(_worker_pids(st.worker.popen.pid, int(st.env["Q_WORKERS"]))[0], signal.SIGKILL)
            recovered = time.monotonic()
            sids = load.result(timeout=300)
        # The last acknowledged post may come well after the fault; the clock starts at whichever is later.
        start = max(recovered, time.monotonic())
        wait_for(lambda: _all_extracted(sids), timeout=SWEEP_WINDOW + 60,
                 what=lambda: f"every session extracted after {fault}\n{st.logs(4000)}")
        took = time.monotonic() - start
    finally:
        if proxy is not None:
            proxy.close()

    users = Message.objects.filter(session__external_id__in=sids, role=MessageRole.USER)
    assert users.count() == SESSIONS * 3  # none lost
    ids = list(Message.objects.filter(session__external_id__in=sids).values_list("external_id", flat=True))
    assert len(ids) == len(set(ids)) == SESSIONS * 6  # none stored twice
    # One message may hold several memories (a length and an instruction); none is journaled twice.
    entries = [(tuple(src), key) for src, key in JournalEntry.objects.filter(session__external_id__in=sids)
               .values_list("source_message_ids", "key")]
    assert len(entries) == len(set(entries))  # none journaled twice
    assert {i for src, _key in entries for i in src} <= set(users.values_list("id", flat=True))
    assert list(sessions_behind(now=timezone.now())) == []
    logs = st.logs(10**7)
    behind = sum(int(n) for n in re.findall(r"sweep: behind=(\d+)", logs))
    sweeps = len(re.findall(r"sweep: behind=", logs))  # sweeps that found work (the fast path did the rest)
    print(json.dumps({"figure": "sweep_recovery", "fault": fault, "topology": TOPOLOGY, "db": connection.vendor,
                      "sessions": SESSIONS, "seconds_after_fault": round(took, 1), "sweeps": sweeps,
                      "behind_found": behind, "window_s": SWEEP_WINDOW}))
    assert behind == 0
    assert took <= SWEEP_WINDOW + 30, f"recovery took {took:.0f}s"
