"""PostgreSQL timeouts and keepalives against the real server, some through a TCP proxy that stops
forwarding without closing (``tests/tcp_proxy.py``): the half-open connection of the issue.

Runs on ``DATABASE_URL=postgres://…`` only. Each connection is built by
``bizmemory.database.database_settings`` from the environment plus short ``DB_*`` overrides.

What the frozen proxy shows about libpq (psycopg 3): its kernel keeps acknowledging data and
keepalive probes, so neither keepalives nor ``tcp_user_timeout`` fire for a query waiting on its
answer — libpq has no read timeout, and the client waits until the proxy forwards again
(``test_libpq_does_not_bound_a_read_on_a_frozen_proxy_but_the_task_timeout_does``). What is
bounded: the server ends the stalled session (idle in transaction) and its locks go; a write the
proxy never takes (``tcp_user_timeout`` on a closed receive window); a new connection
(``connect_timeout``); and a django-q2 task (its SIGALRM timeout interrupts psycopg's wait).
"""

import socket
import time

import pytest
from django.db import InternalError, OperationalError, connection

from tests.ci import absent
from tests.database_probe import TABLE, in_thread, probe, scalar, timed  # noqa: F401 (probe: fixture)

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql",
                                reason="PostgreSQL's timeouts (DATABASE_URL=postgres://…)")

MARGIN = 3.0  # seconds of scheduling slack on 2 shared cores


def _tcp(sock_fd: int, option: int, level=socket.IPPROTO_TCP) -> int:
    s = socket.socket(fileno=sock_fd)
    try:
        return s.getsockopt(level, option)
    finally:
        s.detach()  # the fd is libpq's


def test_the_settings_reach_the_server_and_the_socket(probe):
    conn = probe.connect(DB_STATEMENT_TIMEOUT="7", DB_LOCK_TIMEOUT="3", DB_IDLE_IN_TRANSACTION_TIMEOUT="5",
                         DB_KEEPALIVES_IDLE="31", DB_KEEPALIVES_INTERVAL="11", DB_KEEPALIVES_COUNT="4",
                         DB_WRITE_TIMEOUT="9")
    assert scalar(conn, "SHOW statement_timeout") == "7s"
    assert scalar(conn, "SHOW lock_timeout") == "3s"
    assert scalar(conn, "SHOW idle_in_transaction_session_timeout") == "5s"
    if not hasattr(socket, "TCP_USER_TIMEOUT"):
        absent("TCP_USER_TIMEOUT (Linux) is not available on this platform")
    fd = conn.connection.pgconn.socket
    assert _tcp(fd, socket.SO_KEEPALIVE, socket.SOL_SOCKET) == 1
    assert (_tcp(fd, socket.TCP_KEEPIDLE), _tcp(fd, socket.TCP_KEEPINTVL), _tcp(fd, socket.TCP_KEEPCNT)) == (31, 11, 4)
    assert _tcp(fd, socket.TCP_USER_TIMEOUT) == 9000


def test_the_defaults_reach_the_server(probe):
    conn = probe.connect()
    assert [scalar(conn, f"SHOW {name}") for name in
            ("statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout")] == ["30s", "10s", "1min"]


def test_statement_timeout_cancels_a_long_pg_sleep(probe):
    conn = probe.connect(DB_STATEMENT_TIMEOUT="1")
    seconds, exc = timed(scalar, conn, "SELECT pg_sleep(20)")
    assert isinstance(exc, OperationalError) and "statement timeout" in str(exc)
    assert 0.9 < seconds < 1 + MARGIN
    assert scalar(conn, "SELECT 1") == 1  # the connection stays usable


def test_lock_timeout_fails_a_blocked_update_quickly(probe):
    admin = probe.table()
    holder, waiter = probe.connect(), probe.connect(DB_LOCK_TIMEOUT="1", DB_STATEMENT_TIMEOUT="20")
    holder.set_autocommit(False)
    scalar(holder, f"SELECT n FROM {TABLE} WHERE id = 1 FOR UPDATE")
    seconds, exc = timed(scalar, waiter, f"UPDATE {TABLE} SET n = n + 1 WHERE id = 1 RETURNING n")
    assert isinstance(exc, OperationalError) and "lock timeout" in str(exc)
    assert 0.9 < seconds < 1 + MARGIN
    holder.rollback()
    assert scalar(admin, f"SELECT n FROM {TABLE} WHERE id = 1") == 0


def test_the_server_ends_a_session_stalled_in_a_transaction_behind_a_frozen_proxy(probe):
    admin = probe.table()
    proxy = probe.proxy()
    stalled = probe.connect(via=proxy, DB_IDLE_IN_TRANSACTION_TIMEOUT="2")
    stalled.set_autocommit(False)
    pid = scalar(stalled, "SELECT pg_backend_pid()")
    scalar(stalled, f"SELECT n FROM {TABLE} WHERE id = 1 FOR UPDATE")
    proxy.freeze()  # the worker's path goes half-open while it holds the row lock
    start = time.monotonic()
    # Another worker, default timeouts except a lock wait long enough to outlast the stalled session.
    other = probe.connect(DB_LOCK_TIMEOUT="20")
    assert scalar(other, f"UPDATE {TABLE} SET n = n + 1 WHERE id = 1 RETURNING n") == 1
    assert time.monotonic() - start < 2 + MARGIN
    assert not scalar(admin, "SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid])
    # Once the path carries packets again the stalled client learns at once that its session is gone
    # (SQLSTATE 25P03, which psycopg and Django class as an InternalError, not an OperationalError).
    proxy.thaw()
    seconds, exc = timed(scalar, stalled, "SELECT 1")
    assert isinstance(exc, InternalError) and "idle-in-transaction timeout" in str(exc)
    assert seconds < MARGIN


def test_libpq_does_not_bound_a_read_on_a_frozen_proxy_but_the_task_timeout_does(probe):
    # Keepalives and tcp_user_timeout as short as they go, and a statement timeout: the proxy's
    # kernel acknowledges the query and answers every keepalive probe, so neither fires, and the
    # server never sees the query; the client waits for an answer that never comes.
    # django-q2 runs each task under SIGALRM (Q_TIMEOUT) raising TimeoutException, a SystemExit:
    # psycopg takes it as an interruption, tries to cancel the query (up to 5 s, over a new
    # connection — through the same frozen path), waits up to 5 s more, then closes the
    # connection and lets the exception through. In a cluster the guard kills the worker at
    # Q_TIMEOUT + 3 s anyway (django_q.cluster), before psycopg is done.
    from django_q.exceptions import TimeoutException
    from django_q.timeout import TimeoutHandler

    proxy = probe.proxy()
    frozen = probe.connect(via=proxy, DB_KEEPALIVES_IDLE="1", DB_KEEPALIVES_INTERVAL="1", DB_KEEPALIVES_COUNT="1",
                           DB_WRITE_TIMEOUT="1", DB_STATEMENT_TIMEOUT="1")
    proxy.freeze()
    task_timeout = 4  # > keepalive idle + interval × count and > tcp_user_timeout, with room

    def task():
        with TimeoutHandler(task_timeout):
            scalar(frozen, "SELECT 1")

    start = time.monotonic()
    with pytest.raises(TimeoutException):  # a SystemExit; not an OperationalError from libpq first
        task()
    assert task_timeout - 0.5 < time.monotonic() - start < task_timeout + 10 + MARGIN
    assert frozen.connection.closed  # psycopg gave the connection up: the next task reconnects


def test_tcp_user_timeout_ends_a_write_the_frozen_proxy_never_takes(probe):
    # A statement bigger than the socket buffers: the proxy stops reading, its receive window
    # closes, and the kernel drops the connection once TCP_USER_TIMEOUT passes in zero-window
    # probing (Linux ≥ 5.11 counts those against the timeout).
    proxy = probe.proxy()
    frozen = probe.connect(via=proxy, DB_WRITE_TIMEOUT="2")
    proxy.freeze()
    result = {}

    def write():
        result["seconds"], result["exc"] = timed(scalar, frozen, "SELECT length(%s)", ["x" * 8_000_000])

    t = in_thread(write)
    t.join(2 + 4 * MARGIN)
    assert not t.is_alive(), "the write through the frozen proxy was not ended by tcp_user_timeout"
    assert isinstance(result["exc"], OperationalError)
    assert 1.5 < result["seconds"] < 2 + MARGIN


def test_a_new_connection_through_a_frozen_proxy_gives_up_after_connect_timeout(probe):
    proxy = probe.proxy()
    proxy.freeze()
    seconds, exc = timed(lambda: probe.connect(via=proxy, DB_CONNECT_TIMEOUT="2"))
    assert isinstance(exc, OperationalError)
    assert 1.5 < seconds < 2 + MARGIN
