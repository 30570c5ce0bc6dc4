"""System checks bizmemory.E040 (profiles) and E041 (consolidation): on MySQL/MariaDB every
identifier column is byte-exact, or the server refuses to start (issue 14). The alterations run
on MariaDB only (``DATABASE_URL=mysql://…``); elsewhere the checks have nothing to inspect."""

import contextlib

import pytest
from django.contrib.auth import get_user_model
from django.core import checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import connection

from bizmemory.collation import ExactColumn, collation_problems, exact_collation
from consolidation.checks import check_consolidation_identifier_collation
from consolidation.models import Message, Session
from profiles.checks import check_profiles_identifier_collation
from profiles.models import Agent

mysql_only = pytest.mark.skipif(connection.vendor != "mysql", reason="collations are MySQL/MariaDB's")

# (model, field, nullable, check, check id)
COLUMNS = [
    (get_user_model(), "username", False, check_profiles_identifier_collation, "bizmemory.E040"),
    (Agent, "slug", False, check_profiles_identifier_collation, "bizmemory.E040"),
    (Session, "external_id", False, check_consolidation_identifier_collation, "bizmemory.E041"),
    (Message, "external_id", True, check_consolidation_identifier_collation, "bizmemory.E041"),
]


def _collation(model, field) -> str:
    column = model._meta.get_field(field).column
    with connection.cursor() as c:
        c.execute("SELECT COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() "
                  "AND TABLE_NAME = %s AND COLUMN_NAME = %s", [model._meta.db_table, column])
        return c.fetchone()[0]


@contextlib.contextmanager
def _collated(model, field, nullable, collation):
    """Give the column another collation for the block, then restore the exact one (DDL commits
    on MySQL: the tests using this are transactional)."""
    f = model._meta.get_field(field)

    def alter(to):
        with connection.cursor() as c:
            c.execute(f"ALTER TABLE `{model._meta.db_table}` MODIFY `{f.column}` varchar({f.max_length}) "
                      f"CHARACTER SET utf8mb4 COLLATE {to} {'NULL' if nullable else 'NOT NULL'}")

    alter(collation)
    try:
        yield
    finally:
        alter(exact_collation(connection))


@pytest.mark.django_db
def test_the_checks_pass_on_the_migrated_database_whatever_the_engine():
    assert check_profiles_identifier_collation() == [] and check_consolidation_identifier_collation() == []


@mysql_only
@pytest.mark.django_db
def test_the_migrations_leave_every_identifier_column_binary_and_no_pad():
    for model, field, *_ in COLUMNS:
        assert _collation(model, field) == exact_collation(connection), (model, field)


@mysql_only
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("model,field,nullable,check,check_id", COLUMNS, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("wrong", ["utf8mb4_unicode_ci", "utf8mb4_bin"])  # utf8mb4_bin still pads: "a" = "a "
def test_a_wrongly_collated_column_is_an_error_naming_it_with_the_fix(model, field, nullable, check, check_id, wrong):
    column = f"{model._meta.db_table}.{model._meta.get_field(field).column}"
    with _collated(model, field, nullable, wrong):
        assert _collation(model, field) == wrong
        errors = check()
        assert [e.id for e in errors] == [check_id]
        error = errors[0]
        assert isinstance(error, checks.Error) and error.level == checks.ERROR  # not a warning: start is refused
        assert column in error.msg and wrong in error.msg and exact_collation(connection) in error.msg
        assert "ALTER TABLE" in error.msg and error.hint
        with pytest.raises(SystemCheckError, match=check_id):  # what every management command does at start
            call_command("check")
    assert check() == [] and _collation(model, field) == exact_collation(connection)


@mysql_only
@pytest.mark.django_db(transaction=True)
def test_a_column_whose_migration_has_not_run_is_left_to_migrate():
    # migrate runs the checks before it migrates: refusing then would make the fix impossible
    with _collated(Session, "external_id", False, "utf8mb4_unicode_ci"):
        pending = ExactColumn(Session, "external_id", ("consolidation", "9999_not_applied_yet"))
        applied = ExactColumn(Session, "external_id", ("consolidation", "0010_session_external_id_collation"))
        assert collation_problems([pending]) == []
        assert len(collation_problems([applied])) == 1


@pytest.mark.skipif(connection.vendor == "mysql", reason="the other engines compare bytes already")
@pytest.mark.django_db
def test_sqlite_and_postgresql_have_nothing_to_check():
    assert collation_problems([ExactColumn(Session, "external_id", ("consolidation", "0001_initial"))]) == []
