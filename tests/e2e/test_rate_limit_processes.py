"""E2E — a per-key rate limit holds across server processes: two gunicorn servers (separate
processes, one worker each) on the test database share one limit through the shared cache,
the database cache (``CACHE=database``) or a real Redis (``CACHE=redis``, 127.0.0.1:6379).

With Django's per-process default cache each server counted alone and let twice the limit through.
"""

import os
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from profiles.models import PlatformAPIKey

from .conftest import start_gunicorn, stack_env

pytestmark = pytest.mark.e2e

LIMIT = 10


@pytest.fixture(params=["database", "redis"])
def two_servers(request, transactional_db, settings, cluster_name):
    env = stack_env(settings, cluster_name, CACHE=request.param,
                    REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
                    BIZMEMORY_API_RATE_READ=f"{LIMIT}/hour")  # one window for the whole test
    procs = []
    try:
        for _ in range(2):
            procs.append(start_gunicorn(env, workers=1))
        yield [url for _, url in procs]
    finally:
        for proc, _ in procs:
            proc.stop()


def _read(url: str, key: str) -> int:
    r = requests.get(f"{url}/api/v1/context", params={"user": "nobody", "agent": "main"},
                     headers={"X-Api-Key": key}, timeout=60)
    assert r.status_code in (200, 429), r.text[:300]
    if r.status_code == 429:
        assert r.json()["error"]["code"] == "throttled" and int(r.headers["Retry-After"]) > 0
    return r.status_code


def test_two_servers_share_one_limit_taking_turns(two_servers):
    _, key = PlatformAPIKey.objects.create_key(name="turns", scope="read")
    codes = [_read(two_servers[n % 2], key) for n in range(LIMIT + 6)]
    assert codes == [200] * LIMIT + [429] * 6
    _, other = PlatformAPIKey.objects.create_key(name="other", scope="read")
    assert _read(two_servers[1], other) == 200  # per key


def test_two_servers_hammered_at_once_let_exactly_the_limit_through(two_servers):
    _, key = PlatformAPIKey.objects.create_key(name="burst", scope="read")
    urls = [two_servers[n % 2] for n in range(3 * LIMIT)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        codes = list(pool.map(lambda url: _read(url, key), urls))
    assert codes.count(200) == LIMIT and codes.count(429) == 2 * LIMIT
