"""Per-key rate limits that hold across processes: counted in the shared cache (settings.CACHES:
Redis, or the database cache), with atomic increments.

DRF's ``SimpleRateThrottle`` keeps a list of timestamps per key and writes it back after each
request: with several gunicorn workers two requests read the same list and one count is lost,
and the per-process default cache gave each worker its own limit. Here each request is one
atomic ``incr`` of a counter per fixed window (``INCR`` on Redis, a locked update in
``bizmemory.cache.DatabaseCache``), and the limit is checked on the sliding-window estimate
``previous window × its share still inside the last period + current window`` (at most the
limit over any period, give or take the weighting; no burst of twice the limit at a window
edge). A refused request is taken back (``decr``), so a client that keeps retrying while refused
does not push its own wait further out; what was allowed stays counted, so concurrent requests
from any number of processes never exceed the limit.
"""

from __future__ import annotations

import logging
import math
import time

from django.core.cache import cache
from django.db import DatabaseError
from redis.exceptions import RedisError

logger = logging.getLogger("bizmemory.ratelimit")

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}  # the first letter of sec/min/hour/day, as DRF reads it


def rate_parse(rate: str) -> tuple[int, int]:
    """``"1200/min"`` → ``(1200, 60)``: requests per period in seconds (``BIZMEMORY_API_RATE_*``'s
    format, checked by bizmemory.E032). Raises ``ValueError`` for another shape."""
    count, _, period = rate.partition("/")
    if not count.isdigit() or not period or period[0] not in PERIODS:
        raise ValueError(f"not a rate like 1200/min: {rate!r}")
    return int(count), PERIODS[period[0]]


def _wait(limit: int, duration: int, elapsed: float, previous: int, current: int) -> float:
    """Seconds until one more request fits: while this window lasts the previous one's weight
    falls; when this window alone is full, the next one must start and this one's weight fall."""
    if current < limit and previous:
        return max(0.0, duration * (1 - elapsed - (limit - current - 1) / previous))
    return duration * (1 - elapsed) + duration * max(0.0, 1 - (limit - 1) / max(current, 1))


def rate_limit_hit(*, ident: str, rate: str, now: float | None = None) -> float | None:
    """Count one request of ``ident`` (e.g. an API key's scope and prefix) against ``rate``.

    Returns None when the request is allowed (it is counted), else the seconds until the next one
    would be (it is not counted). ``now`` is Unix time (tests). When the cache cannot be reached
    (Redis down, a database error) the request is allowed and the failure logged: the limit
    protects capacity, it is no reason to refuse every read.
    """
    limit, duration = rate_parse(rate)
    now = time.time() if now is None else now
    window = math.floor(now / duration)
    elapsed = now / duration - window
    # Lower-case hex: the database cache's key column compares case-insensitively on MariaDB.
    base = f"ratelimit:{ident.encode().hex()}:{duration}:"
    current_key, previous_key = f"{base}{window}", f"{base}{window - 1}"
    try:
        found = cache.get_many([current_key, previous_key])
        if current_key not in found:
            cache.add(current_key, 0, timeout=2 * duration + 1)  # a no-op when another process added it
        current = cache.incr(current_key)
        previous = found.get(previous_key, 0)
        if previous * (1 - elapsed) + current <= limit:
            return None
        cache.decr(current_key)
    except (RedisError, DatabaseError, ValueError) as exc:  # ValueError: the key vanished (flushed)
        logger.error("rate limit not applied for %s: the cache failed (%s)", ident, exc)
        return None
    return _wait(limit, duration, elapsed, previous, current - 1)
