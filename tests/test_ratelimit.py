"""profiles.ratelimit: per-key counts in the shared cache — the sliding-window estimate, the wait
it reports, refused requests not counted, a failing cache not refusing everyone — and the
database cache's atomic incr across processes (bizmemory.cache). Across gunicorn processes:
tests/e2e/test_rate_limit_processes.py."""

import logging
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from bizmemory.settings import cache_config
from profiles.ratelimit import rate_limit_hit, rate_parse
from tests.e2e.conftest import database_url_of_test_db

ROOT = Path(__file__).resolve().parents[1]
T = 1_800_057_600.0  # a Unix time at the start of a minute, an hour and a day (divisible by 86400)


@pytest.fixture(autouse=True)
def _empty_locmem():
    """The tests' cache is locmem, whose store outlives a settings change: start each test empty."""
    from django.core.cache import cache

    cache.clear()


def hits(ident, rate, times):
    return [rate_limit_hit(ident=ident, rate=rate, now=t) for t in times]


def test_rates_parse_like_drf():
    assert rate_parse("1200/min") == (1200, 60) and rate_parse("5/s") == (5, 1) and rate_parse("2/day") == (2, 86400)
    with pytest.raises(ValueError):
        rate_parse("lots")


def test_it_allows_the_limit_per_period_then_says_how_long_to_wait():
    assert hits("k", "3/min", [T, T + 1, T + 2]) == [None, None, None]
    wait = rate_limit_hit(ident="k", rate="3/min", now=T + 3)
    assert wait == pytest.approx(57 + 60 * (1 - 2 / 3))  # this window is full; the next starts weighted by it
    assert rate_limit_hit(ident="other", rate="3/min", now=T + 3) is None  # per ident


def test_the_previous_window_counts_by_its_share_of_the_last_period():
    assert hits("k", "4/min", [T + 50, T + 51, T + 52, T + 53]) == [None] * 4
    # 30 s into the next window the old four weigh 2: two more fit, the third waits.
    assert hits("k", "4/min", [T + 90, T + 90]) == [None, None]
    wait = rate_limit_hit(ident="k", rate="4/min", now=T + 90)
    assert wait == pytest.approx(15)  # at T + 105 the old four weigh 1
    assert rate_limit_hit(ident="k", rate="4/min", now=T + 90 + wait - 1) is not None
    assert rate_limit_hit(ident="k", rate="4/min", now=T + 90 + wait + 0.01) is None


def test_refused_requests_are_not_counted():
    hits("k", "2/min", [T, T])
    assert all(w is not None for w in hits("k", "2/min", [T + 1] * 20))
    # 20 refusals later the count is still 2: at the next window's 40 % the old two weigh 1.2 → room for 0.
    assert rate_limit_hit(ident="k", rate="2/min", now=T + 84) is not None
    assert rate_limit_hit(ident="k", rate="2/min", now=T + 91) is None  # they weigh < 1 now


def test_a_failing_cache_lets_requests_through_and_logs(monkeypatch, caplog):
    class Down:
        def __getattr__(self, name):
            def call(*args, **kwargs):
                raise RedisConnectionError("Connection refused")

            return call

    monkeypatch.setattr("profiles.ratelimit.cache", Down())
    with caplog.at_level(logging.ERROR, logger="bizmemory.ratelimit"):
        assert hits("k", "1/min", [T, T, T]) == [None, None, None]
    assert "rate limit not applied" in caplog.text


@pytest.fixture(params=["database", "redis"])
def shared_cache(request, settings, transactional_db):
    """The project's real cache of that kind (Redis at REDIS_URL, 127.0.0.1:6379 here; the
    database cache's table in the test database, made by migration bizmemory.0001)."""
    from django.core.cache import cache

    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    settings.CACHES = {"default": cache_config(request.param, redis_url)}
    cache.get("probe")  # fails here, naming the cache, when it cannot be reached
    return request.param, redis_url


def test_both_shared_caches_count_the_same_way(shared_cache):
    kind, _ = shared_cache
    ident = f"same-{kind}-{uuid.uuid4().hex}"  # Redis is shared and outlives the test
    assert hits(ident, "3/min", [T, T + 1, T + 2]) == [None] * 3
    assert rate_limit_hit(ident=ident, rate="3/min", now=T + 3) == pytest.approx(57 + 20)


INCREMENTS = """
import sys
import django
django.setup()
from django.core.cache import cache
cache.get("warm-up")  # connect before the start line
print("ready", flush=True)
sys.stdin.readline()
for _ in range({n}):
    cache.incr({key!r})
"""


def test_incr_is_atomic_across_processes(shared_cache):
    """Two processes incrementing one key at the same moment lose no count. Django's own
    DatabaseCache.incr reads and writes back: run this way it ended at 301 of 600 on SQLite."""
    from django.core.cache import cache

    kind, redis_url = shared_cache
    key = f"atomic-{kind}-{uuid.uuid4().hex}"
    cache.set(key, 0, timeout=600)
    env = {**os.environ, "DATABASE_URL": database_url_of_test_db(), "CACHE": kind, "REDIS_URL": redis_url,
           "DJANGO_SETTINGS_MODULE": "bizmemory.settings", "PYTHONPATH": str(ROOT)}
    script = INCREMENTS.format(n=300, key=key)
    procs = [subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(2)]
    for p in procs:  # both set up (a few seconds of imports) before either starts counting
        assert p.stdout.readline().strip() == "ready", p.stderr.read()[-2000:]
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        _, err = p.communicate(timeout=180)
        assert p.returncode == 0, err[-2000:]
    assert cache.get(key) == 600
