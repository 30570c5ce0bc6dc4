"""The ``DATABASES`` entry: parsed from ``DATABASE_URL``, with timeouts and TCP keepalives.

A database connection that goes half-open — the path stops carrying packets while neither
socket is closed — must not stall a worker forever, nor leave its transaction holding locks
everyone else queues behind. :func:`database_settings` maps the ``DB_*`` settings of
``bizmemory/conf.py`` (seconds; ``0`` = BizMemory sets nothing, the server's or driver's own
default applies) onto each engine's connection options:

- ``DB_STATEMENT_TIMEOUT``: PostgreSQL ``statement_timeout``; MariaDB ``max_statement_time``.
- ``DB_LOCK_TIMEOUT``: PostgreSQL ``lock_timeout``; MariaDB ``innodb_lock_wait_timeout`` (row
  locks) and ``lock_wait_timeout`` (metadata locks: DDL waiting for a table).
- ``DB_IDLE_IN_TRANSACTION_TIMEOUT``: PostgreSQL ``idle_in_transaction_session_timeout``;
  MariaDB ``idle_transaction_timeout``. The server ends the session, rolling back its
  transaction and releasing its locks: the half-open case, seen from the server.
- ``DB_CONNECT_TIMEOUT``: ``connect_timeout`` of both drivers (psycopg waits at least 2 s).
- ``DB_READ_TIMEOUT``: MariaDB only, mysqlclient's ``read_timeout``. libpq has no read timeout.
- ``DB_WRITE_TIMEOUT``: PostgreSQL ``tcp_user_timeout`` (Linux TCP_USER_TIMEOUT); MariaDB
  ``write_timeout``.
- ``DB_KEEPALIVES_IDLE`` / ``_INTERVAL`` / ``_COUNT``: PostgreSQL only, libpq's ``keepalives*``.
  mysqlclient has no such options; MariaDB Connector/C turns SO_KEEPALIVE on with the kernel's
  timers (``net.ipv4.tcp_keepalive_*``).

PostgreSQL's server-side limits travel in libpq's ``options`` (``-c name=value``, in the startup
packet: in force from the first statement, and what ``RESET`` returns to); MariaDB's in the
``init_command`` (``SET SESSION …``). SQLite has no network and gets none of them: its busy
timeout (20 s) is its lock timeout.

What ends what, on a path that stops forwarding (a stuck proxy or load balancer whose kernel
still acknowledges): the server ends its side — a long statement, a lock wait, a session idle in
a transaction. The client's wait ends only by a client-side timeout: MariaDB's ``read_timeout``
does; libpq's keepalives and ``tcp_user_timeout`` fire only when the peer's kernel stops
acknowledging, so through such a path they do not (``tcp_user_timeout`` does end a write whose
receive window stays closed). There the bound of a PostgreSQL client is the django-q2 task
``timeout`` (and a web server's worker timeout). Measured in
``tests/test_database_timeouts_postgresql.py`` and ``tests/test_database_timeouts_mariadb.py``.

``manage.py migrate`` runs without the statement timeout (:func:`statement_timeout_lifted`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import environ
from django.core.exceptions import ImproperlyConfigured

from . import conf

SQLITE = "django.db.backends.sqlite3"
POSTGRESQL = "django.db.backends.postgresql"
MYSQL = "django.db.backends.mysql"

def database_settings(values: Mapping[str, Any]) -> dict:
    """The ``default`` DATABASES entry from ``values`` (the settings :func:`bizmemory.conf.load`
    read: ``DATABASE_URL``, ``DB_CONN_MAX_AGE`` and the ``DB_*`` timeouts).

    Raises ImproperlyConfigured naming ``DATABASE_URL`` when it does not parse or its scheme is
    not sqlite, postgres or mysql, and naming the variables when MariaDB's read timeout would cut
    a statement its server still allows.
    """
    url = values["DATABASE_URL"]
    try:
        db = environ.Env.db_url_config(url)
    except Exception as exc:  # django-environ raises several types on bad URLs
        raise ImproperlyConfigured(f"DATABASE_URL is not a valid database URL: {exc}") from exc
    engine = db.get("ENGINE", "")
    if engine not in (SQLITE, POSTGRESQL, MYSQL):
        raise ImproperlyConfigured(
            f"DATABASE_URL scheme selects {engine or 'nothing'!r}; use sqlite://, postgres:// or mysql://"
        )
    opts = db.setdefault("OPTIONS", {})
    if engine == SQLITE:
        if db["NAME"] not in ("", ":memory:"):
            Path(db["NAME"]).parent.mkdir(parents=True, exist_ok=True)
        # A busy timeout lets the web process and qcluster workers share the file.
        opts["timeout"] = 20
        # BEGIN IMMEDIATE: a transaction takes the write lock up front, so it waits (timeout above)
        # instead of failing with "database is locked" when it upgrades from reading to writing
        # while a worker writes (benchmarks/soak.py measured 50% 503s on ingest without it).
        opts["transaction_mode"] = "IMMEDIATE"
        # The test database is a file so end-to-end tests can share it with a real qcluster.
        # One file per test process, so concurrent runs on one machine do not collide.
        db.setdefault("TEST", {})["NAME"] = str(conf.VAR_DIR / f"test-bizmemory-{os.getpid()}.sqlite3")
    elif engine == POSTGRESQL:
        _postgresql_options(opts, values)
    else:
        opts.setdefault("charset", "utf8mb4")
        opts.setdefault("init_command", "SET sql_mode='STRICT_TRANS_TABLES'")
        _mysql_options(opts, values)
        db.setdefault("TEST", {})["CHARSET"] = "utf8mb4"
        db["TEST"]["COLLATION"] = "utf8mb4_unicode_ci"
    db["ATOMIC_REQUESTS"] = False
    # Persistent connections for the servers (a new PostgreSQL/MariaDB connection per request costs
    # more than the context request itself); health checks drop a connection that died, e.g. across a
    # database restart, before it is used. SQLite opens a file: nothing to keep.
    server = engine != SQLITE
    age = values["DB_CONN_MAX_AGE"]
    db["CONN_MAX_AGE"] = (60 if server else 0) if age is None else age
    db["CONN_HEALTH_CHECKS"] = server
    return db


def _postgresql_options(opts: dict, v: Mapping[str, Any]) -> None:
    # Server-side limits travel in the startup packet (libpq "options"), so they hold from the
    # first statement, and RESET returns to them. Milliseconds: PostgreSQL's unit without a suffix.
    server = [
        f"-c {name}={v[key] * 1000}"
        for name, key in (
            ("statement_timeout", "DB_STATEMENT_TIMEOUT"),
            ("lock_timeout", "DB_LOCK_TIMEOUT"),
            ("idle_in_transaction_session_timeout", "DB_IDLE_IN_TRANSACTION_TIMEOUT"),
        )
        if v[key]
    ]
    if server:
        opts["options"] = " ".join([opts["options"], *server] if opts.get("options") else server)
    if v["DB_CONNECT_TIMEOUT"]:
        opts["connect_timeout"] = v["DB_CONNECT_TIMEOUT"]
    if v["DB_KEEPALIVES_IDLE"]:
        opts.update(keepalives=1, keepalives_idle=v["DB_KEEPALIVES_IDLE"],
                    keepalives_interval=v["DB_KEEPALIVES_INTERVAL"], keepalives_count=v["DB_KEEPALIVES_COUNT"])
    else:
        opts["keepalives"] = 0
    if v["DB_WRITE_TIMEOUT"]:
        # Linux TCP_USER_TIMEOUT: sent data unacknowledged, or unsent behind a closed receive
        # window, for this long drops the connection (libpq's nearest thing to a write timeout).
        opts["tcp_user_timeout"] = v["DB_WRITE_TIMEOUT"] * 1000


def _mysql_options(opts: dict, v: Mapping[str, Any]) -> None:
    statement, read = v["DB_STATEMENT_TIMEOUT"], v["DB_READ_TIMEOUT"]
    if read and statement and read <= statement:
        raise ImproperlyConfigured(
            f"DB_READ_TIMEOUT ({read}) must be longer than DB_STATEMENT_TIMEOUT ({statement}) on MySQL/MariaDB: "
            "the client would give up on a statement its server still runs"
        )
    lock = v["DB_LOCK_TIMEOUT"]
    assignments = [
        f"{name}={value}"
        for name, value in (
            ("max_statement_time", statement),
            ("innodb_lock_wait_timeout", lock),  # row locks
            ("lock_wait_timeout", lock),  # metadata locks: DDL waiting for a table
            ("idle_transaction_timeout", v["DB_IDLE_IN_TRANSACTION_TIMEOUT"]),
        )
        if value
    ]
    if assignments:
        ours = "SET SESSION " + ", ".join(assignments)
        # Connector/C runs a multi-statement init_command (mysqlclient enables multi-statements).
        opts["init_command"] = f"{opts['init_command']}; {ours}" if opts.get("init_command") else ours
    for key, setting in (("connect_timeout", "DB_CONNECT_TIMEOUT"), ("read_timeout", "DB_READ_TIMEOUT"),
                         ("write_timeout", "DB_WRITE_TIMEOUT")):
        if v[setting]:
            opts[key] = v[setting]


@contextlib.contextmanager
def statement_timeout_lifted(connection) -> Iterator[None]:
    """Run the block on ``connection`` (a Django connection) without a statement timeout.

    For commands that legitimately run one long statement: ``manage.py migrate`` (an ALTER TABLE
    or index build on a big table). PostgreSQL: ``SET statement_timeout = 0`` on the session,
    ``RESET`` (back to the connection's startup value) afterwards. MariaDB: the client-side read
    timeout cannot be changed on an open connection, so the connection is closed and reopened
    without ``read_timeout`` and with ``max_statement_time = 0``, and closed again afterwards (the
    next query reconnects with the usual options); that refuses to run inside a transaction
    (TransactionManagementError). SQLite: nothing to lift. Lock and idle-in-transaction timeouts
    stay in force.
    """
    from django.db.transaction import TransactionManagementError

    vendor = connection.vendor
    if vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET statement_timeout = 0")
        try:
            yield
        finally:
            if connection.is_usable():
                with connection.cursor() as cursor:
                    cursor.execute("RESET statement_timeout")
        return
    if vendor != "mysql":
        yield
        return
    if connection.in_atomic_block:
        raise TransactionManagementError("the statement timeout cannot be lifted inside a transaction on MySQL/MariaDB "
                                         "(the connection has to be reopened)")
    options = connection.settings_dict["OPTIONS"]
    connection.close()
    connection.settings_dict["OPTIONS"] = {k: v for k, v in options.items() if k != "read_timeout"}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SET SESSION max_statement_time = 0")
        yield
    finally:
        connection.settings_dict["OPTIONS"] = options
        connection.close()
