"""Connections to the test database built the way the product builds them, for timeout tests.

:class:`Probe` opens new Django connections whose settings come from
:func:`bizmemory.database.database_settings` fed with this process's environment plus a few
``DB_*`` overrides (short timeouts), optionally through a :class:`~tests.tcp_proxy.TcpProxy` —
so the tests exercise the real settings → OPTIONS → driver path, not a copy of it. The
``probe`` fixture gives one and, at teardown, closes its proxies first (a frozen connection is
then cut, so the server ends its session) and then its connections.

``probe.table()`` (re)creates ``bm_timeout_probe (id, n)`` holding the one row ``(1, 0)``: a
committed row other sessions can lock. It is not a model; the test database goes with the run.
"""

from __future__ import annotations

import os
import threading
import time
from urllib.parse import quote

import pytest
from django.db import connection as default_connection
from django.db.utils import ConnectionHandler

from bizmemory import conf
from bizmemory.database import database_settings
from tests.tcp_proxy import TcpProxy

TABLE = "bm_timeout_probe"


def _url(port: int | None = None) -> str:
    s = default_connection.settings_dict
    scheme = {"postgresql": "postgres", "mysql": "mysql"}[default_connection.vendor]
    auth = quote(s.get("USER") or "") + (":" + quote(s["PASSWORD"]) if s.get("PASSWORD") else "")
    return f"{scheme}://{auth}@127.0.0.1:{port or s.get('PORT') or ''}/{s['NAME']}"


class Probe:
    def __init__(self):
        self._proxies: list[TcpProxy] = []
        self._handlers: list[ConnectionHandler] = []

    @property
    def server(self) -> tuple[str, int]:
        s = default_connection.settings_dict
        default_port = 5432 if default_connection.vendor == "postgresql" else 3306
        return s.get("HOST") or "127.0.0.1", int(s.get("PORT") or default_port)

    def proxy(self) -> TcpProxy:
        """A proxy in front of the test database's server."""
        proxy = TcpProxy(*self.server)
        self._proxies.append(proxy)
        return proxy

    def settings_dict(self, via: TcpProxy | None = None, **env: str) -> dict:
        """The DATABASES entry the product would build from the environment plus ``env``."""
        values = conf.load({**os.environ, "DATABASE_URL": _url(via.port if via else None), **env}).values
        return database_settings(values)

    def connect(self, via: TcpProxy | None = None, **env: str):
        """A new, open Django connection (autocommit) to the test database."""
        # A handler of its own (its "default" is not the test's): the product's settings, unchanged.
        handler = ConnectionHandler({"default": self.settings_dict(via, **env)})
        self._handlers.append(handler)
        conn = handler["default"]
        conn.inc_thread_sharing()  # the tests hand a connection to a helper thread at times
        conn.ensure_connection()
        return conn

    def table(self):
        """(Re)create the probe table with the one committed row ``(1, 0)``; returns the admin connection."""
        admin = self.connect()
        with admin.cursor() as c:
            c.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (id integer PRIMARY KEY, n integer NOT NULL)")
            c.execute(f"DELETE FROM {TABLE}")
            c.execute(f"INSERT INTO {TABLE} (id, n) VALUES (1, 0)")
        return admin

    def close(self):
        for proxy in self._proxies:
            proxy.close()
        for handler in self._handlers:
            for conn in handler.all(initialized_only=True):
                try:
                    conn.close()
                except Exception:  # noqa: BLE001 - a connection the test broke on purpose
                    pass


@pytest.fixture
def probe(db):
    """A :class:`Probe` on the test database (its connections are not the test's own)."""
    p = Probe()
    try:
        yield p
    finally:
        p.close()


def scalar(conn, sql: str, params=None):
    """The first column of the first row of ``sql`` on ``conn``."""
    with conn.cursor() as c:
        c.execute(sql, params)
        return c.fetchone()[0]


def timed(func, *args):
    """``(seconds, exception or None)`` of calling ``func(*args)``."""
    start = time.monotonic()
    try:
        func(*args)
    except Exception as exc:  # noqa: BLE001 - the tests assert on the type
        return time.monotonic() - start, exc
    return time.monotonic() - start, None


def in_thread(func, *args) -> threading.Thread:
    """Start ``func(*args)`` in a daemon thread (for a call expected to block)."""
    t = threading.Thread(target=func, args=args, daemon=True)
    t.start()
    return t
