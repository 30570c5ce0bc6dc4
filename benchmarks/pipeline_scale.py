#!/usr/bin/env python3
"""Pipeline scale (issue 16): how fast ``manage.py qcluster`` drains a backlog with 1 and 2 workers,
and how many messages it turns into memory per CPU-second of its processes.

    .venv/bin/python benchmarks/pipeline_scale.py                  # 120 users, 3 repeats: 1,2,2,1,1,2
    .venv/bin/python benchmarks/pipeline_scale.py --users 360 --repeats 5
    .venv/bin/python benchmarks/pipeline_scale.py --quick          # 10 users, one run each (harness check)
    .venv/bin/python benchmarks/pipeline_scale.py --set Q_SAVE_LIMIT=500   # a setting changed for the workers

Set-up (the production topology of README "Running in production" and ``E2E_TOPOLOGY=production``):
PostgreSQL at ``BENCH_PG_URL`` (default postgres://postgres@127.0.0.1:5432, needs pgvector:
``scripts/install-pgvector.sh``) in a scratch database ``--database`` (default
``bizmemory_bench_pipeline``, dropped and re-created; runs use the copy ``<database>_run``),
the Redis broker at 127.0.0.1:6379 in database ``--redis-db`` (default 12; tests use 0) with a
cluster name of its own (``bench-pipeline-<pid>``), and every other setting at its default (USE
embedder, trained extractor, throttle, ``Q_SAVE_LIMIT``, ``Q_RECYCLE``…). ``Q_*``, ``BIZMEMORY_*``,
``DATABASE_URL``, ``REDIS_URL``, ``CACHE`` and ``SECRET_KEY`` of the caller's environment are not
passed on; ``--set NAME=VALUE`` sets one for the ingest and the workers.

Load: the conversations of ``../shared/eval/dev.jsonl`` (read in place) replayed under ``--users``
fresh user ids (user k gets conversation k mod 36, its switches applied as ``manage.py replay``
does), each turn (a user message and the replies after it) through
``consolidation.ingest.messages_ingest`` and each session closed by ``session_end`` — the services
``POST /api/v1/messages`` calls, with their fast-path ``async_task`` going to Redis — in this
process, while no qcluster runs. That leaves the backlog a deployment has after its workers were
down: every session due (``Session.extraction_due_at``) and ended, and the fast-path tasks
(``extract_session``) in the Redis queue. The database is kept as a template and the queue's
contents are saved.

Runs: for each of ``--repeats`` repeats, one run per worker count (``--workers``, default 1,2),
in alternating order (1,2 then 2,1 …). Each run starts from a fresh copy of the backlog
(``CREATE DATABASE … TEMPLATE``, the saved tasks pushed back), starts ``manage.py qcluster`` with
``Q_WORKERS=N`` in its own process group, and polls every ``--poll`` seconds until the backlog is
drained: every session's watermark has reached its last user message, no journal entry is pending
(except a user whose consolidation the loss guard holds for an admin) and no extraction or
consolidation lease is held (so the runs' derived state, search index and context pack, is built
too). Then the cluster is stopped and the copy dropped. Start-up (the workers load the extractor,
the USE model, presidio and tiktoken at their first task) is inside the time and CPU measured.

Figures (one JSON line each, ``common.emit``; medians over the repeats; ``wN`` = N workers):
- ``drain_wN_msgs_per_s``: messages (all roles) / seconds from starting the cluster to drained;
  the **baseline** of ``w2`` is ``w1`` in the same run (``ratio`` = the medians' ratio).
- ``drain_wN_msgs_per_cpu_s``: messages / user+sys CPU seconds of all the cluster's processes
  (the ``qcluster`` process and every descendant, read from /proc, including reaped children);
  issue 16 measured 75 with one worker and targets ≥ 300.
- ``drain_wN_steady_msgs_per_s`` / ``drain_wN_steady_msgs_per_cpu_s``: the same between the polls
  where 10 % and 90 % of the messages were in fully extracted sessions (start-up and the
  consolidation tail left out); null when the run was too short for two polls in between.
- ``drain_wN_s``: seconds to drained (``extract_s``: until every watermark was reached;
  ``first_session_s``: until the first session was extracted, mostly the workers' start-up).
- ``drain_wN_pg_cpu_ms_per_msg``: CPU of the PostgreSQL backends serving the run's database
  (every backend seen at a poll, /proc; a lower bound), per message; null when unreadable.
- ``drain_scale_wN_over_w1``: the median over repeats of (drain rate with N workers / drain rate
  with 1) — each ratio within one repeat, where both ran back to back; issue 16's target is ≥ 1.6
  for N = 2.
Extra fields: ``tasks_per_session`` (tasks the cluster ran per session, from its log),
``due_users_left`` (users still marked due for consolidation at the drain — a ``too_soon`` run
leaves a user due ``CONSOLIDATION_MIN_INTERVAL_SECONDS`` later with nothing pending).
Per-run details go to stderr as JSON; the cluster logs to ``benchmarks/out/logs/``.

Baseline: one worker on the same backlog in the same run (the scaling question), and issue 16's
75 messages / CPU-second measured through gunicorn (the efficiency question).
Clean-up: the cluster's process group is stopped on exit, Ctrl-C, SIGTERM or a timeout
(``--timeout`` per run), both databases are dropped (``--keep`` keeps the template) and the
cluster's Redis keys deleted. Exit 1 when a run did not drain.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import secrets
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DEV, OUT, PG_URL, REPO, descendants, emit, skipped, turns_of  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
# The caller's settings that would make this another topology than the production defaults.
STRIPPED = ("Q_", "BIZMEMORY_", "DATABASE_URL", "REDIS_URL", "CACHE", "SECRET_KEY", "DB_", "DJANGO_SETTINGS_MODULE")
TASK_LINE = re.compile(r"processing \S+ '([\w.]+)'")


def run_order(workers: list[int], repeats: int) -> list[tuple[int, int]]:
    """``(repeat, workers)`` pairs: the worker counts forwards in even repeats and backwards in odd
    ones (1,2,2,1,1,2 for ``[1, 2]`` × 3), so neither count always runs first on a drifting machine."""
    return [(r, n) for r in range(repeats) for n in (workers if r % 2 == 0 else workers[::-1])]


def tree_cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and all its live descendants, each with its reaped
    children (``cutime``/``cstime``), from /proc; a process gone while reading counts 0."""
    total = 0
    for p in [pid, *descendants(pid)]:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime (stat fields 14-17)
    return total / TICK


def proc_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of one process (no children), None when unreadable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return None


def steady(samples: list[tuple[float, int, float]], total: int, lo: float = 0.1, hi: float = 0.9):
    """``(msgs/s, msgs/CPU-s)`` between the first polls ``(t, done, cpu)`` at which ``lo`` and ``hi``
    of ``total`` messages were done; ``(None, None)`` when no two distinct polls bracket them."""
    a = next((s for s in samples if s[1] >= lo * total), None)
    b = next((s for s in samples if s[1] >= hi * total), None)
    if a is None or b is None or b[0] <= a[0] or b[1] <= a[1]:
        return None, None
    cpu = b[2] - a[2]
    return (b[1] - a[1]) / (b[0] - a[0]), ((b[1] - a[1]) / cpu if cpu > 0 else None)


def median(xs):
    """Median of the values that are not None; None when there are none."""
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


# --- set-up ------------------------------------------------------------------------------------


def scratch_name(name: str) -> str:
    """``name`` when it may be dropped by this script (``[a-z0-9_]`` with ``bench`` in it), else
    ``ValueError``: the one check before every DROP DATABASE here."""
    if not re.fullmatch(r"[a-z0-9_]*bench[a-z0-9_]*", name):
        raise ValueError(f"scratch database names contain 'bench' and only [a-z0-9_]: {name!r}")
    return name


def pg_recreate(name: str, *, template: str | None = None) -> str:
    """Drop and create scratch database ``name`` (optionally as a copy of ``template``) on
    :data:`PG_URL`; returns its URL."""
    import psycopg

    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{scratch_name(name)}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    return f"{PG_URL}/{name}"


def pg_drop(name: str) -> None:
    """Drop scratch database ``name`` if it exists (its connections are ended)."""
    import psycopg

    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{scratch_name(name)}" WITH (FORCE)')


def base_env(*, cluster: str, redis_url: str, overrides: dict[str, str]) -> dict:
    """The environment of the ingest and of every cluster: the caller's, less its BizMemory
    settings, plus the production topology (PostgreSQL URL set per run, Redis broker)."""
    from cryptography.fernet import Fernet

    env = {k: v for k, v in os.environ.items() if not k.startswith(STRIPPED)}
    env.update(
        DJANGO_SETTINGS_MODULE="bizmemory.settings", PYTHONUNBUFFERED="1", Q_BROKER="redis",
        REDIS_URL=redis_url, Q_CLUSTER_NAME=cluster, SECRET_KEY=secrets.token_urlsafe(50),
        BIZMEMORY_QUARANTINE_KEY=Fernet.generate_key().decode(),
    )
    words = DEV.parent / "sensitive_words.txt"
    if words.is_file():  # the dev set's own list, as the scored replay uses it
        env["BIZMEMORY_SENSITIVE_WORDS_FILE"] = str(words)
    env.update(overrides)
    return env


def backlog_ingest(convs: list[dict], users: int) -> int:
    """Post the dev conversations for ``users`` fresh users through the ingest services (fast-path
    tasks queued, no worker running); returns the messages stored."""
    from django.db import transaction

    from consolidation.ingest import IncomingMessage, messages_ingest, session_end
    from profiles.services import memory_settings_update, user_ensure

    stored = 0
    for k in range(users):
        conv, uid = convs[k % len(convs)], f"bench-pipeline-{k:04d}"
        st = conv.get("settings") or {}
        with transaction.atomic():
            memory_settings_update(
                user=user_ensure(external_id=uid), memory_enabled=st.get("memory_enabled", True),
                experts_disabled=list(st.get("experts_disabled", [])),
                experts_excluded_from_extraction=list(st.get("experts_excluded_from_extraction", [])),
            )
        for s in conv["sessions"]:
            session = None
            for turn in turns_of(s["messages"]):
                session, rows = messages_ingest(
                    user_id=uid, session_id=s["session_id"], agent=conv.get("agent_id") or "main",
                    session_kind=s.get("kind", "chat"), temporary=bool(s.get("temporary", False)),
                    messages=[IncomingMessage(role=m["role"], content=m["content"], expert=m.get("expert")) for m in turn],
                )
                stored += len(rows)
            session_end(session=session)
    return stored


@dataclass
class Backlog:
    """What every run starts from: the template database, the queued tasks, the per-session
    message counts and the table names the drain is polled on."""

    database: str
    env: dict
    queue_key: str
    tasks: list[bytes]
    session_msgs: dict[int, int]
    users: int
    tables: dict[str, str]
    ingest_s: float = 0.0

    @property
    def messages(self) -> int:
        return sum(self.session_msgs.values())


def backlog_build(args, env: dict, redis) -> Backlog:
    """Migrate the template database, ingest the load, save and empty the Redis queue."""
    from common import django_setup

    url = pg_recreate(args.database)
    os.environ.update(env)
    for k in [k for k in os.environ if k.startswith(STRIPPED) and k not in env]:
        del os.environ[k]
    django_setup(url)
    from django.db import connections
    from django.db.models import Count

    from consolidation.models import JournalEntry, Message, Session
    from profiles.models import ConsolidationProposal, MemorySettings

    convs = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
    queue_key = f"django_q:{env['Q_CLUSTER_NAME']}:q"
    redis.delete(queue_key)
    t = time.perf_counter()
    backlog_ingest(convs, args.users)
    ingest_s = time.perf_counter() - t
    counts = dict(Message.objects.values_list("session_id").annotate(n=Count("id")).values_list("session_id", "n"))
    tables = {"session": Session._meta.db_table, "journal": JournalEntry._meta.db_table,
              "settings": MemorySettings._meta.db_table, "proposal": ConsolidationProposal._meta.db_table}
    connections.close_all()  # a template database must have no other connection
    tasks = redis.lrange(queue_key, 0, -1)
    redis.delete(queue_key)
    return Backlog(args.database, env, queue_key, tasks, counts, args.users, tables, ingest_s)


# --- one run -----------------------------------------------------------------------------------


@dataclass
class Run:
    """One drain: its worker count, seconds to drained and to extracted, CPU seconds of the
    cluster and of the database backends, the polls ``(t, done messages, cluster CPU)``, and the
    tasks its log shows per function."""

    repeat: int
    workers: int
    drain_s: float | None = None
    extract_s: float | None = None
    cpu_s: float | None = None
    pg_cpu_s: float | None = None
    processes: int = 0
    due_users_left: int = 0
    samples: list = field(default_factory=list)
    tasks: Counter = field(default_factory=Counter)


def poll_state(conn, t: dict[str, str], session_msgs: dict[int, int]) -> dict:
    """Where the drain stands: messages in fully extracted sessions, sessions behind, pending
    journal entries (users held by the loss guard left out), leases held, users still due."""
    rows = conn.execute(f"SELECT id, watermark >= last_user_message_id, lock_token <> '' FROM {t['session']}").fetchall()
    done = sum(session_msgs.get(sid, 0) for sid, ok, _ in rows if ok)
    behind = sum(1 for _, ok, _ in rows if not ok)
    leased = sum(1 for *_, locked in rows if locked)
    pending, c_leased, due = conn.execute(
        f"SELECT (SELECT count(*) FROM {t['journal']} j WHERE j.status = 'pending' AND NOT EXISTS "
        f"(SELECT 1 FROM {t['proposal']} p WHERE p.user_id = j.user_id AND p.status = 'pending')), "
        f"(SELECT count(*) FROM {t['settings']} WHERE consolidation_lock_token <> ''), "
        f"(SELECT count(*) FROM {t['settings']} WHERE consolidation_due_at IS NOT NULL)"
    ).fetchone()
    return {"done": done, "extracted": behind == 0, "drained": behind == 0 and pending == 0 and leased == 0
            and c_leased == 0, "due_users": due}


def pg_backends_cpu(conn, database: str, seen: dict[int, float]) -> None:
    """Record in ``seen`` (pid → CPU s) every backend serving ``database``, this connection's own
    excepted; unreadable backends (another machine, no permission) are left out."""
    for (pid,) in conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                               (database,)).fetchall():
        cpu = proc_cpu_s(pid)
        if cpu is not None:
            seen[pid] = max(cpu, seen.get(pid, 0.0))


class Cluster:
    """``manage.py qcluster`` in its own process group. :meth:`stop` sends TERM to the
    ``qcluster`` process alone (it stops its own workers, pusher and monitor; a TERM to each of
    them would have the guard replace them), waits up to 20 s, then KILLs the whole group."""

    live: "Cluster | None" = None

    def __init__(self, env: dict, log: Path):
        self.log = log
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "w") as fh:
            self.proc = subprocess.Popen([sys.executable, "manage.py", "qcluster"], cwd=REPO, env=env,
                                         stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
        Cluster.live = self

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # whatever outlived the leader
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        Cluster.live = None


def drain_run(backlog: Backlog, repeat: int, workers: int, redis, args) -> Run:
    """Drain a fresh copy of ``backlog`` with ``workers`` workers; returns the :class:`Run`.
    Raises ``RuntimeError`` when the cluster exits or the drain passes ``args.timeout`` seconds."""
    import psycopg

    run_db = f"{backlog.database}_run"
    url = pg_recreate(run_db, template=backlog.database)
    redis.delete(backlog.queue_key)
    if backlog.tasks:
        redis.rpush(backlog.queue_key, *backlog.tasks)
    run, pg_seen = Run(repeat, workers), {}
    env = {**backlog.env, "DATABASE_URL": url, "Q_WORKERS": str(workers)}
    cluster = Cluster(env, OUT / "logs" / f"pipeline_scale-{os.getpid()}-r{repeat}-w{workers}.log")
    t0 = time.monotonic()
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            while True:
                state = poll_state(conn, backlog.tables, backlog.session_msgs)
                t, cpu = time.monotonic() - t0, tree_cpu_s(cluster.proc.pid)
                pg_backends_cpu(conn, run_db, pg_seen)
                run.samples.append((round(t, 3), state["done"], round(cpu, 3)))
                if state["extracted"] and run.extract_s is None:
                    run.extract_s = t
                if state["drained"]:
                    run.drain_s, run.cpu_s, run.due_users_left = t, cpu, state["due_users"]
                    run.processes = 1 + len(descendants(cluster.proc.pid))
                    break
                if cluster.proc.poll() is not None:
                    raise RuntimeError(f"qcluster exited with {cluster.proc.returncode}; see {cluster.log}")
                if t > args.timeout:
                    raise RuntimeError(f"not drained after {args.timeout:.0f} s ({state}); see {cluster.log}")
                time.sleep(args.poll)
        run.pg_cpu_s = sum(pg_seen.values()) if pg_seen else None
    finally:
        cluster.stop()
        pg_drop(run_db)
    run.tasks = Counter(TASK_LINE.findall(cluster.log.read_text(errors="replace")))
    return run


# --- figures -----------------------------------------------------------------------------------


def report(backlog: Backlog, runs: list[Run], workers: list[int]) -> None:
    """Emit the medians per worker count and the within-repeat scaling ratios."""
    msgs, sessions = backlog.messages, len(backlog.session_msgs)
    common = {"db": "postgresql", "broker": "redis", "users": backlog.users, "sessions": sessions,
              "repeats": max(r.repeat for r in runs) + 1}
    rate = {(r.repeat, r.workers): msgs / r.drain_s for r in runs}
    med: dict[int, dict] = {}
    for n in workers:
        rs = [r for r in runs if r.workers == n]
        st = [steady(r.samples, msgs) for r in rs]
        med[n] = {
            "rate": median(msgs / r.drain_s for r in rs), "cpu": median(msgs / r.cpu_s for r in rs),
            "steady": median(s[0] for s in st), "steady_cpu": median(s[1] for s in st),
            "drain_s": median(r.drain_s for r in rs), "extract_s": median(r.extract_s for r in rs),
            "first_s": median(next((t for t, done, _ in r.samples if done), None) for r in rs),
            "pg": median(r.pg_cpu_s * 1000 / msgs if r.pg_cpu_s is not None else None for r in rs),
            "tasks": median(sum(r.tasks.values()) / sessions for r in rs),
            "due": median(r.due_users_left for r in rs), "procs": median(r.processes for r in rs),
        }
    base = med[workers[0]]
    for n in workers:
        m, b = med[n], (base if n != workers[0] else {})
        extra = {**common, "workers": n, "baseline_name": f"drain_w{workers[0]}" if b else None}
        emit(f"drain_w{n}_msgs_per_s", m["rate"], "msgs/s", baseline=b.get("rate"), n=msgs, drain_s=m["drain_s"],
             extract_s=m["extract_s"], **extra)
        emit(f"drain_w{n}_msgs_per_cpu_s", m["cpu"], "msgs/s", baseline=b.get("cpu"), n=msgs,
             processes=m["procs"], issue_16_measured=75, target=300, **extra)
        emit(f"drain_w{n}_steady_msgs_per_s", m["steady"], "msgs/s", baseline=b.get("steady"), n=msgs, **extra)
        emit(f"drain_w{n}_steady_msgs_per_cpu_s", m["steady_cpu"], "msgs/s", baseline=b.get("steady_cpu"), n=msgs,
             **extra)
        emit(f"drain_w{n}_s", m["drain_s"], "s", baseline=b.get("drain_s"), n=msgs, first_session_s=m["first_s"],
             tasks_per_session=m["tasks"], due_users_left=m["due"], **extra)
        emit(f"drain_w{n}_pg_cpu_ms_per_msg", m["pg"], "ms", baseline=b.get("pg"), n=msgs, **extra)
    for n in workers[1:]:
        ratios = [rate[(r, n)] / rate[(r, workers[0])] for r in range(common["repeats"])]
        emit(f"drain_scale_w{n}_over_w{workers[0]}", median(ratios), "x", n=len(ratios),
             ratios=[round(x, 3) for x in ratios], target=1.6 if n == 2 else None, **common)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=120, help="users the dev set is replayed under (~11 messages each)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per worker count, in alternating order")
    ap.add_argument("--workers", default="1,2", help="worker counts to compare; the first is the baseline")
    ap.add_argument("--database", default="bizmemory_bench_pipeline", help="scratch PostgreSQL database (name with 'bench')")
    ap.add_argument("--redis-db", type=int, default=12, help="Redis database number of the broker")
    ap.add_argument("--poll", type=float, default=0.5, help="seconds between polls of the drain")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds a run may take before it counts as failed")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a setting for ingest and workers")
    ap.add_argument("--keep", action="store_true", help="keep the template database (the backlog) afterwards")
    ap.add_argument("--quick", action="store_true", help="10 users, 1 repeat, 180 s timeout (harness check)")
    args = ap.parse_args(argv)
    if args.quick:
        args.users, args.repeats, args.timeout = 10, 1, 180.0
    try:
        workers = [int(w) for w in args.workers.split(",")]
    except ValueError:
        print(f"--workers takes worker counts separated by commas, got {args.workers!r}", file=sys.stderr)
        return 2
    try:
        overrides = dict(s.split("=", 1) for s in args.set)
    except ValueError:
        print(f"--set takes NAME=VALUE, got {args.set}", file=sys.stderr)
        return 2
    if args.users < 1 or args.repeats < 1 or not workers or min(workers) < 1 or len(set(workers)) < len(workers):
        print("--users, --repeats and every --workers count must be at least 1, the counts distinct", file=sys.stderr)
        return 2
    try:
        scratch_name(args.database)
    except ValueError as exc:
        print(f"--database: {exc}", file=sys.stderr)
        return 2
    if not DEV.is_file():
        skipped(f"pipeline_scale: dev set not found: {DEV}")
        return 0
    from common import pg_available

    if why := pg_available():
        skipped(f"pipeline_scale: {why}")
        return 0
    import redis as redis_lib

    redis_url = f"redis://127.0.0.1:6379/{args.redis_db}"
    redis = redis_lib.from_url(redis_url)
    try:
        redis.ping()
    except redis_lib.RedisError as exc:
        skipped(f"pipeline_scale: Redis unavailable at {redis_url}: {exc}")
        return 0
    env = base_env(cluster=f"bench-pipeline-{os.getpid()}", redis_url=redis_url, overrides=overrides)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the clean-up below
    try:
        return _measure(args, env, redis, workers)
    finally:
        if Cluster.live is not None:
            Cluster.live.stop()
        pg_drop(f"{args.database}_run")
        if not args.keep:
            pg_drop(args.database)
        keys = list(redis.scan_iter(match=f"django_q:{env['Q_CLUSTER_NAME']}:*"))
        if keys:
            redis.delete(*keys)


def _measure(args, env: dict, redis, workers: list[int]) -> int:
    backlog = backlog_build(args, env, redis)
    print(json.dumps({"backlog": {"users": backlog.users, "sessions": len(backlog.session_msgs),
                                  "messages": backlog.messages, "queued_tasks": len(backlog.tasks),
                                  "ingest_s": round(backlog.ingest_s, 1), "at": dt.datetime.now().isoformat()}}),
          file=sys.stderr, flush=True)
    runs = []
    for repeat, n in run_order(workers, args.repeats):
        try:
            run = drain_run(backlog, repeat, n, redis, args)
        except RuntimeError as exc:
            print(f"pipeline_scale: repeat {repeat}, {n} worker(s): {exc}", file=sys.stderr)
            return 1
        runs.append(run)
        print(json.dumps({"run": {"repeat": repeat, "workers": n, "drain_s": round(run.drain_s, 2),
                                  "extract_s": round(run.extract_s, 2), "cpu_s": round(run.cpu_s, 2),
                                  "pg_cpu_s": run.pg_cpu_s and round(run.pg_cpu_s, 2), "processes": run.processes,
                                  "due_users_left": run.due_users_left, "tasks": dict(run.tasks)}}),
              file=sys.stderr, flush=True)
    report(backlog, runs, workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
