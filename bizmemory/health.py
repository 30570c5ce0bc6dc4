"""Health of a deployment, for load balancers and monitors (issue 17): ``GET /api/v1/health``.

Three checks, each run in a thread of its own and given ``BIZMEMORY_HEALTH_TIMEOUT_SECONDS``
(together, not one after the other), so the answer comes in time whatever hangs:

- ``database``: a fresh connection to the ``default`` database runs ``SELECT 1`` (the connect and
  statement timeouts of ``bizmemory/database.py`` apply to it; it is closed again): what a web
  worker starting now would need;
- ``broker``: django-q2's broker. Redis: ``Broker.ping()`` on a client with socket timeouts.
  The ORM broker's own ``ping()`` always answers True, so it counts its queue
  (``Broker.queue_size()``, a query on django-q2's queue table) instead;
- ``worker``: django-q2's cluster stats (``django_q.status.Stat.get_all``), which every running
  ``qcluster``'s guard writes every 0.5 s to the broker (Redis) or to Django's cache (ORM broker;
  ``CACHE`` is then the database table, shared by every process), signed with ``SECRET_KEY`` and
  kept 3 s. A cluster counts when it is ``Idle`` or ``Working`` (not starting or stopping). A
  guard busy for longer than 3 s (its scheduler run, every 30 s, on a slow database) drops out
  for a moment, so the check remembers in the shared cache, by the web server's own clock (no
  clock skew between machines), when it last saw one, and fails only when none has been seen for
  ``BIZMEMORY_HEALTH_WORKER_MAX_AGE_SECONDS``.

A check that hangs keeps its thread until the driver gives up; another request meanwhile does
not start a second one of that check (it fails as ``busy``), so a frozen database holds at
most one thread per check per web process.

The report names no host, address, port, process id or exception text (those go to the log):
only each component's status, a reason code, and counts.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils import translation
from django_q.brokers import Broker, get_broker
from django_q.conf import Conf
from django_q.status import Stat

log = logging.getLogger("bizmemory.health")

OK, ERROR = "ok", "error"
# Reason codes of a failed check (``reason`` in the report).
UNAVAILABLE = "unavailable"  # the check raised: refused, unreachable, an error answer
TIMEOUT = "timeout"  # no answer within BIZMEMORY_HEALTH_TIMEOUT_SECONDS
BUSY = "busy"  # the same check from an earlier request is still waiting for its answer
NO_HEARTBEAT = "no_heartbeat"  # no qcluster reported itself alive within the max age
COMPONENTS = ("database", "broker", "worker")
LAST_SEEN_KEY = "bizmemory:health:worker-last-seen"  # epoch seconds (web server clock), shared cache

_running: dict[str, threading.Thread] = {}
_running_lock = threading.Lock()


class _Busy(Exception):
    """The same check from an earlier request is still running."""


def _start(name: str, fn: Callable[[], dict]) -> tuple[threading.Thread, dict]:
    """Run ``fn`` in a daemon thread (at most one per ``name`` at a time); returns the thread and
    the box its result (``"value"``) or exception (``"error"``) lands in. Raises ``_Busy``."""
    box: dict[str, Any] = {}

    def run():
        try:
            box["value"] = fn()
        except Exception as exc:  # reported as the check's failure by _outcome
            box["error"] = exc
        finally:
            connections.close_all()  # this thread's own database connections

    with _running_lock:
        previous = _running.get(name)
        if previous is not None and previous.is_alive():
            raise _Busy(name)
        thread = threading.Thread(target=run, name=f"health-{name}", daemon=True)
        _running[name] = thread
        thread.start()
    return thread, box


def _outcome(name: str, thread: threading.Thread | None, box: dict, deadline: float) -> dict:
    """The component's report once its thread ended or the deadline passed."""
    if thread is None:
        log.warning("health: %s check still running from an earlier request", name)
        return {"status": ERROR, "reason": BUSY}
    thread.join(max(0.0, deadline - time.monotonic()))
    if thread.is_alive():
        log.warning("health: %s check timed out", name)
        return {"status": ERROR, "reason": TIMEOUT}
    if "error" in box:
        exc = box["error"]
        log.warning("health: %s check failed: %s: %s", name, type(exc).__name__, exc)
        return {"status": ERROR, "reason": UNAVAILABLE}
    return box["value"]


def _broker(timeout: float) -> Broker:
    """django-q2's configured broker; a Redis one gets a client with socket timeouts (the
    broker's own client has none, so a silent Redis would hold the check's thread forever)."""
    broker = get_broker()
    if not Conf.ORM and isinstance(Conf.REDIS, str):
        broker.connection = redis.from_url(Conf.REDIS, socket_connect_timeout=timeout, socket_timeout=timeout)
    return broker


def _close(broker: Broker) -> None:
    close = getattr(broker.connection, "close", None)  # a Redis client; the ORM broker's is a QuerySet
    if callable(close):
        close()


def database_connection() -> BaseDatabaseWrapper:
    """The connection the database check uses: the calling thread's own one of ``default``."""
    return connections[DEFAULT_DB_ALIAS]


def database_check() -> dict:
    """``{"status": "ok"}`` when :func:`database_connection` (opened now, closed again) runs
    ``SELECT 1``. Raises the driver's error (e.g. ``OperationalError``) otherwise."""
    conn = database_connection()
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        conn.close()
    return {"status": OK}


def broker_check(*, timeout: float) -> dict:
    """``{"status": "ok", "kind": "redis" | "orm"}`` when the broker answers: Redis ``PING``
    (``Broker.ping``), or for the ORM broker a count of its queue table. Raises the broker's
    error otherwise (e.g. ``redis.ConnectionError``)."""
    broker = _broker(timeout)
    try:
        if Conf.ORM:
            broker.queue_size()
            return {"status": OK, "kind": "orm"}
        if not broker.ping():
            raise ConnectionError("the broker did not answer PING")
        return {"status": OK, "kind": "redis"}
    finally:
        _close(broker)


def _alive_clusters(broker: Broker) -> list:
    with translation.override(None):  # the status is a lazy translation: compare untranslated
        alive = {str(Conf.IDLE), str(Conf.WORKING)}
        return [s for s in Stat.get_all(broker=broker) if str(s.status) in alive and s.workers]


def worker_check(*, timeout: float, max_age: float, now: float | None = None) -> dict:
    """Whether a qcluster of this deployment (same ``Q_CLUSTER_NAME`` and ``SECRET_KEY``) is alive.

    ``now``: epoch seconds (default: the clock). Returns ``{"status": "ok", "clusters": n,
    "workers": n, "last_seen_seconds": s}`` when a cluster reports itself ``Idle`` or ``Working``
    now (``s`` = 0), or was last seen ``s`` ≤ ``max_age`` seconds ago; else ``{"status":
    "error", "reason": "no_heartbeat", "clusters": 0, "workers": 0, "max_age_seconds":
    max_age}``. Raises the broker's error when the stats cannot be read.
    """
    now = time.time() if now is None else now
    broker = _broker(timeout)
    try:
        clusters = _alive_clusters(broker)
    finally:
        _close(broker)
    if clusters:
        try:
            cache.set(LAST_SEEN_KEY, now, timeout=max(1, int(max_age)))
        except Exception as exc:  # the memory only bridges gaps: the stats just read are the answer
            log.warning("health: cannot record the worker heartbeat in the cache: %s", type(exc).__name__)
        return {"status": OK, "clusters": len(clusters), "workers": sum(len(s.workers) for s in clusters),
                "last_seen_seconds": 0.0}
    try:
        seen = cache.get(LAST_SEEN_KEY)
    except Exception as exc:
        log.warning("health: cannot read the worker heartbeat from the cache: %s", type(exc).__name__)
        seen = None
    if isinstance(seen, (int, float)) and 0 <= now - seen <= max_age:
        return {"status": OK, "clusters": 0, "workers": 0, "last_seen_seconds": round(now - seen, 1)}
    return {"status": ERROR, "reason": NO_HEARTBEAT, "clusters": 0, "workers": 0, "max_age_seconds": max_age}


# What gates the top-level status: every component ("all", for monitoring), or what a web process
# needs to serve ("web": database and broker; a load balancer must not take every web server out of
# rotation when the workers stop, since ingest only queues work).
SCOPES = {"all": COMPONENTS, "web": ("database", "broker")}


def health_report(*, now: float | None = None, scope: str = "all") -> dict:
    """Run the three checks at once, each bounded by ``BIZMEMORY_HEALTH_TIMEOUT_SECONDS``.

    Returns ``{"status": "ok" | "error", "failing": [component, …], "checks": {"database": …,
    "broker": …, "worker": …}}``; a component is ``{"status": "ok", …}`` or ``{"status": "error",
    "reason": "unavailable" | "timeout" | "busy" | "no_heartbeat", …}`` (see the module
    docstring). The top-level status is ``ok`` only when every component of ``scope`` is
    (:data:`SCOPES`: ``"all"``, or ``"web"`` for database and broker; the worker is still checked and
    reported). Raises ``KeyError`` for an unknown scope. Never raises for a component's failure;
    errors are logged (``bizmemory.health``), never put in the report.
    """
    gate = SCOPES[scope]
    cfg = settings.BIZMEMORY
    timeout, max_age = cfg["HEALTH_TIMEOUT_SECONDS"], cfg["HEALTH_WORKER_MAX_AGE_SECONDS"]
    checks: dict[str, Callable[[], dict]] = {
        "database": database_check,
        "broker": lambda: broker_check(timeout=timeout),
        "worker": lambda: worker_check(timeout=timeout, max_age=max_age, now=now),
    }
    deadline = time.monotonic() + timeout
    started = {}
    for name, fn in checks.items():
        try:
            started[name] = _start(name, fn)
        except _Busy:
            started[name] = (None, {})
    report = {name: _outcome(name, *started[name], deadline) for name in COMPONENTS}
    failing = [name for name in COMPONENTS if name in gate and report[name]["status"] != OK]
    return {"status": ERROR if failing else OK, "failing": failing, "checks": report}
