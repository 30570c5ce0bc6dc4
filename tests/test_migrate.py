"""``manage.py migrate`` runs without the statement timeout (bizmemory/management/commands/migrate.py,
``bizmemory.database.statement_timeout_lifted``): a long ALTER TABLE or index build must not be
cancelled half way. Lock timeouts stay. On PostgreSQL and MariaDB against the real server;
on SQLite there is nothing to lift."""

import pytest
from django.core.management import call_command
from django.core.management.commands import migrate as django_migrate
from django.db import OperationalError, connection
from django.db.transaction import TransactionManagementError, atomic

from bizmemory.database import statement_timeout_lifted
from tests.database_probe import probe, scalar, timed  # noqa: F401 (probe: fixture)

servers_only = pytest.mark.skipif(connection.vendor == "sqlite", reason="SQLite has no statement timeout")

# (statement timeout, lock timeout) as the session sees them
TIMEOUTS = {
    "postgresql": "SELECT current_setting('statement_timeout') || ' ' || current_setting('lock_timeout')",
    "mysql": "SELECT CONCAT_WS(' ', @@session.max_statement_time, @@session.innodb_lock_wait_timeout)",
}
SLEEP = {"postgresql": "SELECT pg_sleep(%s)", "mysql": "SELECT SLEEP(%s)"}


def _timeouts(conn):
    return scalar(conn, TIMEOUTS[conn.vendor])


@pytest.mark.django_db(transaction=True)  # on MariaDB the lift reopens the connection
def test_migrate_runs_without_the_statement_timeout_and_puts_it_back(monkeypatch):
    seen = {}

    def djangos_handle(self, *args, **options):  # Django's migrate, observed from inside
        seen["timeouts"] = _timeouts(connection) if connection.vendor != "sqlite" else None
        seen["options"] = dict(connection.settings_dict["OPTIONS"])

    monkeypatch.setattr(django_migrate.Command, "handle", djangos_handle)
    call_command("migrate", verbosity=0)
    if connection.vendor == "sqlite":
        assert seen["options"] == connection.settings_dict["OPTIONS"]
        return
    lifted, normal = {"postgresql": ("0 10s", "30s 10s"), "mysql": ("0.000000 10", "30.000000 10")}[connection.vendor]
    assert seen["timeouts"] == lifted  # the lock timeout stays
    assert "read_timeout" not in seen["options"]
    assert _timeouts(connection) == normal
    if connection.vendor == "mysql":
        assert connection.settings_dict["OPTIONS"]["read_timeout"] == 60


@servers_only
def test_a_statement_longer_than_both_timeouts_completes_inside_the_lift_only(probe):
    # Statement timeout 1 s (and, on MariaDB, a client read timeout of 2 s): a 3 s statement.
    conn = probe.connect(DB_STATEMENT_TIMEOUT="1", DB_READ_TIMEOUT="2")
    seconds, exc = timed(scalar, conn, SLEEP[conn.vendor], [3])
    assert isinstance(exc, OperationalError) and seconds < 2.9
    with statement_timeout_lifted(conn):
        seconds, exc = timed(scalar, conn, SLEEP[conn.vendor], [3])
    assert exc is None and seconds >= 3
    seconds, exc = timed(scalar, conn, SLEEP[conn.vendor], [3])
    assert isinstance(exc, OperationalError) and seconds < 2.9  # and back again


@pytest.mark.skipif(connection.vendor != "mysql", reason="only MariaDB has to reopen the connection")
@pytest.mark.django_db(transaction=True)
def test_on_mariadb_the_lift_refuses_to_run_inside_a_transaction():
    with atomic(), pytest.raises(TransactionManagementError, match="inside a transaction"):
        with statement_timeout_lifted(connection):
            pass


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the PostgreSQL lift keeps the connection open")
def test_on_postgresql_a_connection_closed_inside_the_lift_comes_back_with_its_timeout(probe):
    conn = probe.connect(DB_STATEMENT_TIMEOUT="1")
    with statement_timeout_lifted(conn):
        conn.close()
    assert scalar(conn, "SHOW statement_timeout") == "1s"
