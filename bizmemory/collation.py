"""Byte-exact identifier columns on MySQL/MariaDB (issue 14).

MariaDB's default collation ``utf8mb4_unicode_ci`` compares case-, accent- and
trailing-space-insensitively, so "alice", "Alice", "ALICE" and "alice " were one row and
"jose" was "josé". The platform's identifiers — user ids (``auth_user.username``), agent and
expert slugs, session and message ids — must compare as SQLite and PostgreSQL compare them:
byte for byte. Migrations give those columns a binary *no-pad* collation (plain
``utf8mb4_bin`` pads trailing spaces, so it still has "alice" = "alice "); the system checks of
the apps that own the columns (``profiles``: bizmemory.E040, ``consolidation``: E041) use
:func:`collation_problems` to refuse to start when one of them has lost it.

Foundation layer: imports no domain app; the apps pass their own models in.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import DatabaseError, connections
from django.db.migrations.recorder import MigrationRecorder

# The collation the migrations set, per server flavour; both are binary and NO PAD.
MARIADB_EXACT = "utf8mb4_nopad_bin"
MYSQL_EXACT = "utf8mb4_0900_bin"
EXACT_COLLATIONS = frozenset({MARIADB_EXACT, MYSQL_EXACT})


@dataclass(frozen=True)
class ExactColumn:
    """An identifier column that must be byte-exact: ``model``'s field ``field`` (a CharField),
    made so by migration ``migration`` (``(app_label, name)``)."""

    model: type
    field: str
    migration: tuple[str, str]


def exact_collation(connection) -> str:
    """The binary no-pad collation for ``connection`` (a MySQL-vendor connection):
    ``utf8mb4_nopad_bin`` on MariaDB, ``utf8mb4_0900_bin`` on MySQL 8."""
    return MARIADB_EXACT if connection.mysql_is_mariadb else MYSQL_EXACT


def column_make_exact(schema_editor, model, field_name: str) -> None:
    """For a migration's ``RunPython``: give ``model``'s ``CharField`` ``field_name`` (a historical
    model from ``apps.get_model``) the byte-exact collation of :func:`exact_collation`, keeping its
    length and NULL-ability. Does nothing on SQLite and PostgreSQL, which compare bytes already."""
    conn = schema_editor.connection
    if conn.vendor != "mysql":
        return
    field = model._meta.get_field(field_name)
    schema_editor.execute(
        f"ALTER TABLE {schema_editor.quote_name(model._meta.db_table)} MODIFY "
        f"{schema_editor.quote_name(field.column)} varchar({field.max_length}) "
        f"CHARACTER SET utf8mb4 COLLATE {exact_collation(conn)} {'NULL' if field.null else 'NOT NULL'}"
    )


def collation_problems(columns: list[ExactColumn], *, using: str = "default") -> list[str]:
    """Messages for the ``columns`` whose collation on database ``using`` is not byte-exact.

    Only MySQL/MariaDB is inspected (SQLite and PostgreSQL compare bytes: ``[]``). A column is
    reported when the migration that makes it exact is recorded as applied and
    ``information_schema`` gives it another collation; a column whose migration has not run yet
    is left to ``manage.py migrate`` (which runs the checks first and must not be refused).
    A database that cannot be reached gives ``[]``: the command that needs it reports that.
    Each message names ``table.column``, the collation found and the ``ALTER TABLE`` that
    fixes it. Rule source: issue 14, "Users and memories must never mix".
    """
    conn = connections[using]
    if conn.vendor != "mysql":
        return []
    try:
        applied = MigrationRecorder(conn).applied_migrations()
        due = [c for c in columns if c.migration in applied]
        if not due:
            return []
        wanted = exact_collation(conn)
        places = {(c.model._meta.db_table, c.model._meta.get_field(c.field).column): c for c in due}
        with conn.cursor() as cursor:
            cursor.execute(
                "SELECT TABLE_NAME, COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS "
                "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (%s)" % ", ".join(["%s"] * len(places)),
                sorted({table for table, _ in places}),
            )
            found = {(table, column): collation for table, column, collation in cursor.fetchall()}
    except DatabaseError:
        return []
    problems = []
    for (table, column), spec in places.items():
        collation = found.get((table, column))
        if (table, column) not in found or collation in EXACT_COLLATIONS:
            continue  # a missing column is the migrations' business, not this check's
        field = spec.model._meta.get_field(spec.field)
        null = "NULL" if field.null else "NOT NULL"
        problems.append(
            f"{table}.{column} has collation {collation}, not a binary no-pad one: MySQL/MariaDB would take "
            f"ids that differ in case, accents or trailing spaces for one. Fix: ALTER TABLE `{table}` MODIFY "
            f"`{column}` varchar({field.max_length}) CHARACTER SET utf8mb4 COLLATE {wanted} {null};"
        )
    return sorted(problems)
