"""Shared by the health tests: real brokers (Redis at REDIS_URL, or the ORM broker on the test
database), a cluster heartbeat written the way a qcluster's guard writes it, closed ports and a
database alias that cannot be reached."""

from __future__ import annotations

import os
import socket
import uuid
from types import SimpleNamespace

import pytest
from django.db import connections
from django.utils import timezone
from django_q.brokers import get_broker
from django_q.conf import Conf
from django_q.signing import SignedPackage
from django_q.status import Stat

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released): connecting is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def heartbeat(*, status=None, workers=(101, 102)) -> Stat:
    """Save one cluster's stats through the configured broker, as the guard of a running
    ``qcluster`` does every 0.5 s (``Stat(sentinel).save()``; kept 3 s). The sentinel is a
    stand-in carrying the attributes ``Stat`` reads; what is stored and read back is django-q2's."""
    queue = SimpleNamespace(qsize=lambda: 0)
    sentinel = SimpleNamespace(
        parent_pid=None, pid=4242, cluster_id=uuid.uuid4(), broker=get_broker(), tob=timezone.now(),
        reincarnations=0, status=lambda: status if status is not None else Conf.IDLE,
        result_queue=queue, task_queue=queue, monitor=None, pusher=None,
        pool=[SimpleNamespace(pid=pid) for pid in workers],
    )
    stat = Stat(sentinel)
    # Stored as Stat.save() stores it (django_q.status), but kept 60 s rather than the guard's 3 s,
    # which a loaded machine can spend between this write and the check's read (the guard rewrites
    # it every 0.5 s, a test once).
    stat.broker.set_stat(stat.key, SignedPackage.dumps(stat, True), 60)
    return stat


@pytest.fixture(autouse=True)
def fresh_health_state():
    """No heartbeat remembered from an earlier test (the test cache outlives a test), and no check
    thread of this test left waiting on its driver when the next one starts. Autouse where imported."""
    from django.core.cache import cache

    from bizmemory import health

    cache.clear()  # the test cache (locmem): also the ORM broker's cluster stats
    yield
    for thread in list(health._running.values()):
        thread.join(15)


@pytest.fixture
def redis_broker(monkeypatch):
    """django-q2 configured for the Redis broker at ``REDIS_URL`` (127.0.0.1:6379 here), its
    cluster stats under a key prefix of this test's own (Redis is shared and outlives the test)."""
    import redis

    client = redis.from_url(REDIS_URL)
    client.ping()  # fails here, naming Redis, when it cannot be reached
    prefix = f"django_q:health-test-{uuid.uuid4().hex[:8]}:cluster"
    monkeypatch.setattr(Conf, "ORM", None)
    monkeypatch.setattr(Conf, "REDIS", REDIS_URL)
    monkeypatch.setattr(Conf, "Q_STAT", prefix)
    yield client
    for key in client.keys(f"{prefix}:*"):
        client.delete(key)
    client.close()


@pytest.fixture
def redis_down(monkeypatch):
    """django-q2 configured for a Redis broker on a closed port."""
    monkeypatch.setattr(Conf, "ORM", None)
    monkeypatch.setattr(Conf, "REDIS", f"redis://127.0.0.1:{closed_port()}/0")


def unreachable_database(monkeypatch, *, port: int, connect_timeout: int = 2) -> None:
    """Point the health check's database at PostgreSQL on 127.0.0.1:``port``: a real psycopg
    connection attempt, on a connection of its own (the check's thread opens and closes it)."""
    from django.db.utils import load_backend

    from bizmemory import health

    settings_dict = dict(
        connections.settings["default"], ENGINE="django.db.backends.postgresql", NAME="bizmemory",
        USER="bizmemory", PASSWORD="", HOST="127.0.0.1", PORT=str(port), OPTIONS={"connect_timeout": connect_timeout},
    )
    backend = load_backend(settings_dict["ENGINE"])
    monkeypatch.setattr(health, "database_connection",
                        lambda: backend.DatabaseWrapper(settings_dict, alias=f"health-probe-{port}"))
