"""``manage.py migrate``, Django's command run without the statement timeout.

An ALTER TABLE or index build on a big table is one statement that may legitimately run for
minutes; under ``DB_STATEMENT_TIMEOUT`` (30 s by default) it would be cancelled — on MariaDB,
whose DDL is not transactional, half way through a migration. So the run lifts the statement
timeout (and MariaDB's client-side read timeout): :func:`bizmemory.database.statement_timeout_lifted`.
Lock timeouts stay: a migration that waits for a lock behind a long transaction fails after
``DB_LOCK_TIMEOUT`` instead of queueing every other query on that table behind its own; run it
again when the table is quieter.
"""

from django.core.management.commands.migrate import Command as DjangoMigrateCommand
from django.db import connections

from bizmemory.database import statement_timeout_lifted


class Command(DjangoMigrateCommand):
    help = DjangoMigrateCommand.help + " Runs without the statement timeout (DB_STATEMENT_TIMEOUT)."

    def handle(self, *args, **options):
        with statement_timeout_lifted(connections[options["database"]]):
            return super().handle(*args, **options)
