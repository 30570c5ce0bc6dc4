"""MariaDB timeouts against the real server, some through a TCP proxy that stops forwarding without
closing (``tests/tcp_proxy.py``): the half-open connection of the issue.

Runs on ``DATABASE_URL=mysql://…`` only. Each connection is built by
``bizmemory.database.database_settings`` from the environment plus short ``DB_*`` overrides.
Unlike libpq, mysqlclient (MariaDB Connector/C) bounds a read: ``read_timeout`` ends a query
whose answer never comes, after exactly that long (no retries), with error 2013.
"""

import socket
import time

import pytest
from django.db import OperationalError, connection

from tests.database_probe import TABLE, in_thread, probe, scalar, timed  # noqa: F401 (probe: fixture)

pytestmark = pytest.mark.skipif(connection.vendor != "mysql", reason="MariaDB's timeouts (DATABASE_URL=mysql://…)")

MARGIN = 3.0  # seconds of scheduling slack on 2 shared cores


def _code(exc) -> int:
    return exc.args[0] if exc is not None and exc.args else None


def test_the_settings_reach_the_server(probe):
    conn = probe.connect(DB_STATEMENT_TIMEOUT="7", DB_LOCK_TIMEOUT="3", DB_IDLE_IN_TRANSACTION_TIMEOUT="5")
    got = scalar(conn, "SELECT CONCAT_WS(' ', @@session.max_statement_time, @@session.innodb_lock_wait_timeout, "
                       "@@session.lock_wait_timeout, @@session.idle_transaction_timeout, @@session.sql_mode)")
    assert got == "7.000000 3 3 5 STRICT_TRANS_TABLES"


def test_the_defaults_reach_the_server_and_connector_c_keeps_the_kernels_keepalive(probe):
    conn = probe.connect()
    got = scalar(conn, "SELECT CONCAT_WS(' ', @@session.max_statement_time, @@session.innodb_lock_wait_timeout, "
                       "@@session.lock_wait_timeout, @@session.idle_transaction_timeout)")
    assert got == "30.000000 10 10 60"
    # mysqlclient has no keepalive options: Connector/C sets SO_KEEPALIVE and leaves the timers to
    # the kernel (net.ipv4.tcp_keepalive_time), which is why DB_KEEPALIVES_* apply to PostgreSQL only.
    s = socket.socket(fileno=conn.connection.fileno())
    try:
        assert s.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
    finally:
        s.detach()


def test_max_statement_time_cancels_select_sleep(probe):
    conn = probe.connect(DB_STATEMENT_TIMEOUT="1", DB_READ_TIMEOUT="10")
    seconds, exc = timed(scalar, conn, "SELECT SLEEP(20)")
    assert isinstance(exc, OperationalError) and _code(exc) == 1969  # max_statement_time exceeded
    assert 0.9 < seconds < 1 + MARGIN
    assert scalar(conn, "SELECT 1") == 1  # the connection stays usable


def test_the_lock_wait_timeout_fails_a_blocked_update_quickly(probe):
    admin = probe.table()
    holder, waiter = probe.connect(), probe.connect(DB_LOCK_TIMEOUT="1", DB_STATEMENT_TIMEOUT="20")
    holder.set_autocommit(False)
    scalar(holder, f"SELECT n FROM {TABLE} WHERE id = 1 FOR UPDATE")
    seconds, exc = timed(scalar, waiter, f"UPDATE {TABLE} SET n = n + 1 WHERE id = 1")
    assert isinstance(exc, OperationalError) and _code(exc) == 1205  # lock wait timeout exceeded
    assert 0.9 < seconds < 1 + MARGIN
    holder.rollback()
    assert scalar(admin, f"SELECT n FROM {TABLE} WHERE id = 1") == 0


def test_the_server_ends_a_session_stalled_in_a_transaction_behind_a_frozen_proxy(probe):
    admin = probe.table()
    proxy = probe.proxy()
    stalled = probe.connect(via=proxy, DB_IDLE_IN_TRANSACTION_TIMEOUT="2", DB_READ_TIMEOUT="3",
                            DB_STATEMENT_TIMEOUT="2")
    stalled.set_autocommit(False)
    thread_id = scalar(stalled, "SELECT CONNECTION_ID()")
    scalar(stalled, f"SELECT n FROM {TABLE} WHERE id = 1 FOR UPDATE")
    proxy.freeze()  # the worker's path goes half-open while it holds the row lock
    start = time.monotonic()
    # Another worker, default timeouts except a lock wait long enough to outlast the stalled session.
    other = probe.connect(DB_LOCK_TIMEOUT="20")
    with other.cursor() as c:
        assert c.execute(f"UPDATE {TABLE} SET n = n + 1 WHERE id = 1") == 1
    assert time.monotonic() - start < 2 + MARGIN
    assert not scalar(admin, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = %s", [thread_id])
    # The stalled client's next query, still through the frozen proxy, fails after its read timeout.
    seconds, exc = timed(scalar, stalled, "SELECT 1")
    assert isinstance(exc, OperationalError) and _code(exc) in (2006, 2013)
    assert seconds < 3 + MARGIN


def test_read_timeout_ends_a_query_through_a_frozen_proxy(probe):
    proxy = probe.proxy()
    frozen = probe.connect(via=proxy, DB_READ_TIMEOUT="2", DB_STATEMENT_TIMEOUT="1")
    proxy.freeze()
    seconds, exc = timed(scalar, frozen, "SELECT 1")
    assert isinstance(exc, OperationalError) and _code(exc) == 2013  # lost connection during query
    assert 1.9 < seconds < 2 + MARGIN


def test_write_timeout_ends_a_write_the_frozen_proxy_never_takes(probe):
    proxy = probe.proxy()
    frozen = probe.connect(via=proxy, DB_WRITE_TIMEOUT="2")
    proxy.freeze()
    result = {}

    def write():
        result["seconds"], result["exc"] = timed(scalar, frozen, "SELECT LENGTH(%s)", ["x" * 8_000_000])

    t = in_thread(write)
    t.join(2 + 4 * MARGIN)
    assert not t.is_alive(), "the write through the frozen proxy was not ended by write_timeout"
    assert isinstance(result["exc"], OperationalError)
    assert 1.5 < result["seconds"] < 2 + MARGIN


def test_a_new_connection_through_a_frozen_proxy_gives_up_after_connect_timeout(probe):
    proxy = probe.proxy()
    proxy.freeze()
    seconds, exc = timed(lambda: probe.connect(via=proxy, DB_CONNECT_TIMEOUT="2"))
    assert isinstance(exc, OperationalError)
    assert 1.5 < seconds < 2 + MARGIN
