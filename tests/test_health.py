"""bizmemory.health (issue 17, "a health endpoint for load balancers"): database, broker and
worker heartbeat, against the real test database, a real Redis (REDIS_URL, 127.0.0.1:6379 here)
or django-q2's ORM broker, and cluster stats stored the way a qcluster's guard stores them. The
endpoint itself is tests/test_api_health.py; a real gunicorn + qcluster, tests/e2e/test_serve.py."""

import json
import logging
import socket
import time

import pytest
from django_q.conf import Conf

from bizmemory import health
from tests.health_helpers import (  # noqa: F401  (fixtures)
    closed_port, fresh_health_state, heartbeat, redis_broker, redis_down, unreachable_database,
)

pytestmark = pytest.mark.django_db(transaction=True)  # the checks run in threads with connections of their own


def _leaks(report) -> list[str]:
    """What the report must never show: this host's name, loopback addresses, ports, exception text."""
    body = json.dumps(report)
    return [s for s in (socket.gethostname(), "127.0.0.1", "6379", "redis://", "Error", "refused") if s in body]


def test_it_reports_all_three_ok_with_the_orm_broker_and_a_live_cluster():
    heartbeat()
    report = health.health_report()
    assert report == {"status": "ok", "failing": [], "checks": {
        "database": {"status": "ok"},
        "broker": {"status": "ok", "kind": "orm"},
        "worker": {"status": "ok", "clusters": 1, "workers": 2, "last_seen_seconds": 0.0},
    }}


def test_it_reports_all_three_ok_with_the_redis_broker_and_a_live_cluster(redis_broker):
    heartbeat(workers=(7, 8, 9))
    report = health.health_report()
    assert report["status"] == "ok" and report["failing"] == []
    assert report["checks"]["broker"] == {"status": "ok", "kind": "redis"}
    assert report["checks"]["worker"] == {"status": "ok", "clusters": 1, "workers": 3, "last_seen_seconds": 0.0}
    assert _leaks(report) == []


def test_a_database_that_cannot_be_reached_fails_the_database_check_only(redis_broker, monkeypatch, caplog):
    port = closed_port()
    unreachable_database(monkeypatch, port=port)
    heartbeat()
    with caplog.at_level(logging.WARNING, logger="bizmemory.health"):
        report = health.health_report()
    assert "database check failed: OperationalError" in caplog.text and "Connection refused" in caplog.text
    assert report["status"] == "error" and report["failing"] == ["database"]
    assert report["checks"]["database"] == {"status": "error", "reason": "unavailable"}
    assert str(port) not in json.dumps(report) and _leaks(report) == []


def test_a_redis_broker_that_is_down_fails_the_broker_and_the_worker_check(redis_down, caplog):
    with caplog.at_level(logging.WARNING, logger="bizmemory.health"):
        report = health.health_report()
    assert "broker check failed: ConnectionError" in caplog.text  # the log says why; the body does not
    assert report["status"] == "error" and report["failing"] == ["broker", "worker"]
    assert report["checks"]["database"] == {"status": "ok"}
    assert report["checks"]["broker"] == {"status": "error", "reason": "unavailable"}
    # The stats live in the broker: with it down nothing can be said about the workers.
    assert report["checks"]["worker"] == {"status": "error", "reason": "unavailable"}
    assert _leaks(report) == []


def test_no_cluster_reporting_fails_the_worker_check(redis_broker, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, HEALTH_WORKER_MAX_AGE_SECONDS=45)
    report = health.health_report()
    assert report["status"] == "error" and report["failing"] == ["worker"]
    assert report["checks"]["worker"] == {"status": "error", "reason": "no_heartbeat", "clusters": 0, "workers": 0,
                                          "max_age_seconds": 45}


@pytest.mark.parametrize("status", [Conf.STARTING, Conf.STOPPING, Conf.STOPPED])
def test_a_cluster_that_is_not_running_does_not_count(redis_broker, status):
    heartbeat(status=status)
    assert health.health_report()["checks"]["worker"]["reason"] == "no_heartbeat"


def test_a_cluster_signed_with_another_secret_key_does_not_count(redis_broker, monkeypatch):
    """Stats are signed with SECRET_KEY: a cluster of another deployment on the same Redis is not ours."""
    ours = Conf.SECRET_KEY
    monkeypatch.setattr(Conf, "SECRET_KEY", "another deployment's key")
    heartbeat()
    monkeypatch.setattr(Conf, "SECRET_KEY", ours)
    assert redis_broker.keys(f"{Conf.Q_STAT}:*")  # it is there, and not read
    assert health.health_report()["checks"]["worker"]["reason"] == "no_heartbeat"


def test_a_gap_shorter_than_the_max_age_is_bridged_and_a_longer_one_is_not(redis_broker):
    """django-q2 keeps a cluster's stats 3 s; a guard busy longer (its scheduler) drops out for a
    moment. The check remembers when it last saw one, by the web server's clock."""
    t0 = time.time()
    stat = heartbeat()
    assert health.worker_check(timeout=2, max_age=30, now=t0)["clusters"] == 1
    redis_broker.delete(stat.key)  # the stats expired: the guard has not written for 3 s
    assert health.worker_check(timeout=2, max_age=30, now=t0 + 10) == {
        "status": "ok", "clusters": 0, "workers": 0, "last_seen_seconds": 10.0}
    assert health.worker_check(timeout=2, max_age=30, now=t0 + 31)["reason"] == "no_heartbeat"


def test_a_check_that_does_not_answer_in_time_times_out_and_is_not_started_twice(monkeypatch, settings):
    """A database that accepts the connection and never answers (a listening socket nobody
    serves): the report comes after the health timeout, not the driver's connect timeout, and
    while that attempt still waits a second request does not start another."""
    settings.BIZMEMORY = dict(settings.BIZMEMORY, HEALTH_TIMEOUT_SECONDS=0.5)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        unreachable_database(monkeypatch, port=silent.getsockname()[1], connect_timeout=5)
        heartbeat()
        first = health.health_report()
        second = health.health_report()
    assert first["failing"] == ["database"] and first["checks"]["database"] == {"status": "error", "reason": "timeout"}
    assert second["failing"] == ["database"] and second["checks"]["database"] == {"status": "error", "reason": "busy"}
    assert first["checks"]["broker"]["status"] == first["checks"]["worker"]["status"] == "ok"
