"""Session ids are byte-exact on MariaDB/MySQL (issue 14), as migration 0006 made message ids.

``consolidation_session.external_id`` had the table's default ``utf8mb4_unicode_ci``, which
makes "S1" equal "s1" and "s1" equal "s1 ". It gets a binary no-pad collation
(``utf8mb4_nopad_bin`` on MariaDB, ``utf8mb4_0900_bin`` on MySQL 8; plain ``utf8mb4_bin``
still pads trailing spaces, so "s1" = "s1 "). The unique index is rebuilt with the column; ids
unique case-insensitively stay unique byte-wise. SQLite and PostgreSQL already compare bytes:
no-op there. System check bizmemory.E041 refuses to start when the collation is lost (a later
``AlterField`` that changes this column's type re-emits it without one and must be followed by
the same ``ALTER``). Not reversed.
"""

from django.db import migrations


def _binary_collation_on_mysql(apps, schema_editor):
    conn = schema_editor.connection
    if conn.vendor != "mysql":
        return
    collation = "utf8mb4_nopad_bin" if conn.mysql_is_mariadb else "utf8mb4_0900_bin"
    model = apps.get_model("consolidation", "Session")
    field = model._meta.get_field("external_id")
    schema_editor.execute(
        f"ALTER TABLE {schema_editor.quote_name(model._meta.db_table)} MODIFY {schema_editor.quote_name(field.column)} "
        f"varchar({field.max_length}) CHARACTER SET utf8mb4 COLLATE {collation} NOT NULL"
    )


class Migration(migrations.Migration):

    dependencies = [
        ("consolidation", "0009_memory_versions_to_profiles"),
    ]

    operations = [
        migrations.RunPython(_binary_collation_on_mysql, migrations.RunPython.noop, atomic=False, elidable=False),
    ]
