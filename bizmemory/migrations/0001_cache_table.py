"""The database cache's table (``CACHE=database``, the default without Redis): made by ``migrate``,
so a fresh database — the quick start's SQLite file, a test database, a new server — has it
without a separate ``createcachetable`` step.

It is created whichever cache the settings choose now, so switching ``CACHE`` later needs nothing
more. ``createcachetable`` skips a table that exists (one made by hand before this migration).
Reversing drops it: it holds nothing that is not rebuilt (rate-limit counts).
"""

from django.core.management import call_command
from django.db import migrations

from bizmemory.conf import CACHE_TABLE


def cache_table_create(apps, schema_editor):
    call_command("createcachetable", CACHE_TABLE, database=schema_editor.connection.alias, verbosity=0)


def cache_table_drop(apps, schema_editor):
    schema_editor.execute(f"DROP TABLE IF EXISTS {schema_editor.quote_name(CACHE_TABLE)}")


class Migration(migrations.Migration):

    dependencies = []

    operations = [
        migrations.RunPython(cache_table_create, cache_table_drop),
    ]
