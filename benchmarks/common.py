"""Shared helpers of the benchmark scripts (benchmarks/*.py, run together by ``run_all.py``).

- paths: :data:`REPO`, :data:`SHARED`, :data:`DATASETS`, :data:`EVAL`, :data:`OUT` (results and
  plots; git-ignored). Data sets are read in place from ``../shared/datasets``, never copied.
- :func:`percentile`, :func:`timed`: latency statistics (seconds in, milliseconds out).
- :func:`emit` / :func:`skipped`: the one-JSON-line-per-figure output format
  ``{"figure", "value", "unit", "baseline", "ratio", "n", ...}``.
- :func:`django_setup`: point Django at a scratch database through the environment and migrate.
- PostgreSQL scratch databases (:func:`pg_available`, :func:`pg_fresh_database`) and server
  processes (:func:`free_port`, :class:`Gunicorn`, :func:`descendants`, :func:`vm_hwm_kb`).
"""
from __future__ import annotations

import json
import math
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATASETS = SHARED / "datasets"
EVAL = SHARED / "eval"
OUT = REPO / "benchmarks" / "out"
LOCOMO = DATASETS / "locomo" / "locomo10.json"
DEV = EVAL / "dev.jsonl"
PG_URL = os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432")
# Per-key API rate limit of benchmark servers: valid for system check bizmemory.E032, never reached.
NO_RATE_LIMIT = "1000000/s"

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def dev_user_messages(path=None) -> list[str]:
    """The user messages of the dev set (``../shared/eval/dev.jsonl``), in file order.
    Raises ``OSError`` when the file is absent (callers check and print a skipped line)."""
    out: list[str] = []
    with open(path or DEV, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                for s in json.loads(line)["sessions"]:
                    out += [m["content"] for m in s["messages"] if m["role"] == "user"]
    return out


def percentile(xs, p: float) -> float:
    """The ``p``-th percentile (0–100) of ``xs`` by linear interpolation (numpy's default).

    Input: a non-empty sequence of numbers. Output: a float in the same unit. Raises
    ``ValueError`` on an empty sequence.
    """
    s = sorted(xs)
    if not s:
        raise ValueError("percentile of an empty sequence")
    k = (len(s) - 1) * p / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return float(s[lo] + (s[hi] - s[lo]) * (k - lo))


def timed(fn, args) -> list[float]:
    """Call ``fn(a)`` for each ``a`` of ``args`` in turn; returns the wall times in seconds."""
    out = []
    for a in args:
        t = time.perf_counter()
        fn(a)
        out.append(time.perf_counter() - t)
    return out


def ratio(value, baseline):
    """``value / baseline`` rounded to 3 significant digits, or None when either is missing or 0."""
    if value is None or baseline in (None, 0):
        return None
    r = value / baseline
    return float(f"{r:.3g}")


def _round(v):
    if isinstance(v, float):
        if v != v:  # NaN is not JSON
            return None
        return float(f"{v:.4g}") if abs(v) < 1000 else round(v, 1)
    return v


def figure_line(figure: str, value, unit: str = "", *, baseline=None, n=None, **extra) -> dict:
    """The dict :func:`emit` prints (same arguments), without printing it."""
    line = {"figure": figure, "value": _round(value), "unit": unit, "baseline": _round(baseline),
            "ratio": ratio(value, baseline), "n": n}
    line.update({k: _round(v) for k, v in extra.items()})
    return line


def emit(figure: str, value, unit: str = "", *, baseline=None, n=None, **extra) -> dict:
    """Print one figure as a JSON line and return it.

    ``value`` and ``baseline`` are in ``unit`` (``ms``, ``s``, ``tokens``, ``1/s``, ``share``…);
    ``baseline`` is the same quantity measured for the baseline in the same run (None when the
    figure has none) and ``ratio`` = value / baseline. ``n`` is the sample size. Extra keyword
    fields (``db``, ``size``, ``baseline_name``…) are kept as they are.
    """
    line = figure_line(figure, value, unit, baseline=baseline, n=n, **extra)
    print(json.dumps(line, ensure_ascii=False), flush=True)
    return line


def latency_figures(name: str, xs: list[float], *, base: list[float] | None = None, **extra) -> None:
    """Emit ``<name>_p50_ms`` and ``<name>_p95_ms`` of ``xs`` (seconds), each against the same
    percentile of ``base`` (seconds) when given."""
    for p in (50, 95):
        emit(f"{name}_p{p}_ms", percentile(xs, p) * 1000, "ms",
             baseline=percentile(base, p) * 1000 if base else None, n=len(xs), **extra)


def skipped(reason: str) -> None:
    """Print the single ``{"skipped": reason}`` line of a benchmark that cannot run here."""
    print(json.dumps({"skipped": reason}, ensure_ascii=False), flush=True)


def django_setup(database_url: str, **env: str) -> None:
    """Configure this process for a scratch database and migrate it.

    Sets ``DATABASE_URL`` and the given ``BIZMEMORY_*`` variables (rate limits out of reach
    unless given), runs ``django.setup()`` and ``migrate``. Call once per process, before importing
    models.
    """
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bizmemory.settings")
    os.environ.setdefault("BIZMEMORY_API_RATE_READ", NO_RATE_LIMIT)
    os.environ.setdefault("BIZMEMORY_API_RATE_INGEST", NO_RATE_LIMIT)
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def sqlite_fresh(name: str) -> str:
    """A ``sqlite:///`` URL of a new, empty file ``/tmp/<name>.sqlite3`` (an old one is removed)."""
    path = Path(f"/tmp/{name}.sqlite3")
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    return f"sqlite:///{path}"


def pg_available() -> str | None:
    """None when PostgreSQL at :data:`PG_URL` accepts connections and has pgvector, else why not."""
    try:
        import psycopg

        with psycopg.connect(f"{PG_URL}/postgres", connect_timeout=3) as conn:
            row = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
            return None if row else "pgvector is not installed"
    except Exception as exc:  # driver missing, refused, auth
        return f"PostgreSQL unavailable at {PG_URL}: {exc}"


def pg_fresh_database(name: str) -> str:
    """Drop and re-create database ``name`` on :data:`PG_URL`; returns its ``postgres://`` URL.

    Only for scratch benchmark databases (names start with ``bizmemory_bench``).
    """
    import psycopg

    if not name.startswith("bizmemory_bench"):
        raise ValueError("benchmark databases are named bizmemory_bench*")
    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{PG_URL}/{name}"


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pid: int) -> list[int]:
    """Pids of all live descendants of ``pid`` (from /proc; Linux only)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def vm_hwm_kb(pid: int) -> int | None:
    """Peak resident set size (``VmHWM`` of /proc/<pid>/status) in KiB, None when gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def cmdline(pid: int) -> str:
    """The command line of ``pid`` with spaces, '' when gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


class Gunicorn:
    """``python -m gunicorn bizmemory.wsgi`` on a free loopback port, as a context manager.

    ``env`` is the full environment (its ``DATABASE_URL`` names the benchmark database; a
    ``SECRET_KEY`` is made up when it has none: the server refuses the development key with DEBUG
    off); ``workers`` sync workers. On enter it waits (≤ 60 s) until ``GET /api/v1/`` answers 200
    and raises ``RuntimeError`` otherwise; on exit it stops the process group it started.
    ``url`` is ``http://127.0.0.1:<port>``; ``log`` the path of its output.
    """

    def __init__(self, env: dict, *, workers: int = 1, log: str | None = None):
        self.env, self.workers = {"SECRET_KEY": secrets.token_urlsafe(50), **env}, workers
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log or f"/tmp/bizmemory-bench-gunicorn-{os.getpid()}.log"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> "Gunicorn":
        fh = open(self.log, "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "bizmemory.wsgi", "-b", f"127.0.0.1:{self.port}", "-w",
             str(self.workers), "--timeout", "120"],
            cwd=REPO, env=self.env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True,
        )
        fh.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/api/v1/", timeout=5) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        self.__exit__(None, None, None)
        raise RuntimeError(f"gunicorn did not start; see {self.log}")

    def worker_pids(self) -> list[int]:
        """Pids of the worker processes (children of the gunicorn master)."""
        return descendants(self.proc.pid) if self.proc else []

    def __exit__(self, *exc) -> None:
        stop_process_group(self.proc)


def stop_process_group(proc: subprocess.Popen | None, timeout: float = 20) -> None:
    """SIGTERM the process group of ``proc`` (started with ``start_new_session=True``), then SIGKILL."""
    if proc is None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=timeout)
    except (ProcessLookupError, PermissionError):
        pass
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def turns_of(messages: list[dict]) -> list[list[dict]]:
    """A session's messages as a platform posts them: each user message with the replies after it
    (a leading reply opens a turn of its own). Input: the eval format's ``messages``. Output: a list of
    turns, each a list of those message dicts in order."""
    out: list[list[dict]] = []
    for m in messages:
        if m["role"] == "user" or not out:
            out.append([])
        out[-1].append(m)
    return out
