"""bizmemory/database.py: DATABASE_URL and the DB_* timeouts → the DATABASES entry, per engine.

These read the options the settings produce; that the servers apply them, and that they end
what they should end through a proxy that stops forwarding, is in
test_database_timeouts_postgresql.py and test_database_timeouts_mariadb.py.
"""

import pytest
from django.core.exceptions import ImproperlyConfigured

from bizmemory import conf
from bizmemory.database import database_settings

PG = "postgres://postgres@127.0.0.1:5432/bm"
MY = "mysql://root@127.0.0.1:3306/bm"


def _db(url, **env):
    return database_settings(conf.load({"DATABASE_URL": url, **env}).values)


def test_postgresql_gets_server_timeouts_in_its_startup_options_and_libpq_keepalives():
    opts = _db(PG)["OPTIONS"]
    assert opts["options"] == ("-c statement_timeout=30000 -c lock_timeout=10000 "
                               "-c idle_in_transaction_session_timeout=60000")
    assert opts["connect_timeout"] == 10
    keepalives = ("keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count")
    assert [opts[k] for k in keepalives] == [1, 30, 10, 3]
    assert opts["tcp_user_timeout"] == 60000  # milliseconds
    assert "read_timeout" not in opts  # libpq has none


def test_mariadb_gets_session_timeouts_in_its_init_command_and_client_timeouts():
    opts = _db(MY)["OPTIONS"]
    assert opts["init_command"] == ("SET sql_mode='STRICT_TRANS_TABLES'; SET SESSION max_statement_time=30, "
                                    "innodb_lock_wait_timeout=10, lock_wait_timeout=10, idle_transaction_timeout=60")
    assert (opts["connect_timeout"], opts["read_timeout"], opts["write_timeout"]) == (10, 60, 60)
    assert opts["charset"] == "utf8mb4" and not any(k.startswith("keepalive") for k in opts)


def test_sqlite_gets_only_its_busy_timeout(tmp_path):
    opts = _db(f"sqlite:///{tmp_path}/x.sqlite3", DB_STATEMENT_TIMEOUT="5")["OPTIONS"]
    assert opts == {"timeout": 20, "transaction_mode": "IMMEDIATE"}


def test_zero_leaves_a_timeout_to_the_server_and_turns_keepalives_off():
    zeros = {k: "0" for k in ("DB_CONNECT_TIMEOUT", "DB_STATEMENT_TIMEOUT", "DB_LOCK_TIMEOUT",
                              "DB_IDLE_IN_TRANSACTION_TIMEOUT", "DB_READ_TIMEOUT", "DB_WRITE_TIMEOUT",
                              "DB_KEEPALIVES_IDLE")}
    assert _db(PG, **zeros)["OPTIONS"] == {"keepalives": 0}
    assert _db(MY, **zeros)["OPTIONS"] == {"charset": "utf8mb4", "init_command": "SET sql_mode='STRICT_TRANS_TABLES'"}


def test_one_timeout_alone():
    opts = _db(PG, DB_STATEMENT_TIMEOUT="0", DB_IDLE_IN_TRANSACTION_TIMEOUT="0", DB_LOCK_TIMEOUT="3")["OPTIONS"]
    assert opts["options"] == "-c lock_timeout=3000"
    opts = _db(MY, DB_STATEMENT_TIMEOUT="0", DB_IDLE_IN_TRANSACTION_TIMEOUT="0", DB_LOCK_TIMEOUT="3")["OPTIONS"]
    assert opts["init_command"].endswith("; SET SESSION innodb_lock_wait_timeout=3, lock_wait_timeout=3")


def test_options_given_in_the_url_are_kept():
    opts = _db(PG + "?options=-c%20search_path%3Dbm&sslmode=disable")["OPTIONS"]
    assert opts["options"].startswith("-c search_path=bm -c statement_timeout=30000")
    assert opts["sslmode"] == "disable"
    opts = _db(MY + "?init_command=SET%20time_zone%3D%27%2B00%3A00%27")["OPTIONS"]
    assert opts["init_command"].startswith("SET time_zone='+00:00'; SET SESSION max_statement_time=30")


def test_a_mariadb_read_timeout_that_would_cut_an_allowed_statement_stops_start_up():
    with pytest.raises(ImproperlyConfigured, match="DB_READ_TIMEOUT .* DB_STATEMENT_TIMEOUT"):
        _db(MY, DB_STATEMENT_TIMEOUT="60", DB_READ_TIMEOUT="60")
    assert _db(MY, DB_STATEMENT_TIMEOUT="0", DB_READ_TIMEOUT="60")["OPTIONS"]["read_timeout"] == 60
    assert _db(PG, DB_STATEMENT_TIMEOUT="60", DB_READ_TIMEOUT="60")  # PostgreSQL has no read timeout to cut


def test_an_unknown_scheme_stops_start_up_naming_database_url():
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        _db("oracle://u@h/db")


def test_the_settings_in_force_are_the_ones_the_environment_gives(settings):
    values = conf.load().values
    assert settings.DATABASES["default"]["OPTIONS"] == database_settings(values)["OPTIONS"]
    assert settings.DB_STATEMENT_TIMEOUT == values["DB_STATEMENT_TIMEOUT"]


def test_the_task_timeout_outlasts_the_database_timeouts_and_the_retry_outlasts_the_task_timeout(settings):
    # Where the database can end a stuck statement it does so first, with a database error; a task
    # stuck beyond that (PostgreSQL on a frozen path) is killed at Q_TIMEOUT + 3 s by django-q2's
    # guard and delivered again only after Q_RETRY, so never twice at once (README).
    defaults = conf.load({}).values
    assert defaults["DB_LOCK_TIMEOUT"] < defaults["DB_STATEMENT_TIMEOUT"] < defaults["DB_READ_TIMEOUT"]
    assert defaults["DB_READ_TIMEOUT"] < defaults["Q_TIMEOUT"] and defaults["Q_TIMEOUT"] + 3 < defaults["Q_RETRY"]
    env = conf.load().values
    assert (settings.Q_CLUSTER["timeout"], settings.Q_CLUSTER["retry"]) == (env["Q_TIMEOUT"], env["Q_RETRY"])
