"""Message.external_id: the platform's optional message id, unique within a session.

NULLs are distinct in a unique index on SQLite, PostgreSQL and MariaDB/MySQL, so a plain
UniqueConstraint leaves messages without an id unconstrained. On MariaDB/MySQL the column
gets a binary no-pad collation before the index is built: the table's default
utf8mb4_unicode_ci would make "Ab" equal "ab" and "a" equal "a " and refuse ids that
PostgreSQL and SQLite keep apart. (A later AlterField of this column must keep it.)
"""

from django.db import migrations, models


def _binary_collation_on_mysql(apps, schema_editor):
    conn = schema_editor.connection
    if conn.vendor != "mysql":
        return
    collation = "utf8mb4_nopad_bin" if conn.mysql_is_mariadb else "utf8mb4_0900_bin"
    table = schema_editor.quote_name(apps.get_model("consolidation", "Message")._meta.db_table)
    schema_editor.execute(
        f"ALTER TABLE {table} MODIFY {schema_editor.quote_name('external_id')} "
        f"varchar(128) CHARACTER SET utf8mb4 COLLATE {collation} NULL"
    )


class Migration(migrations.Migration):

    dependencies = [
        ("consolidation", "0005_message_memory_source"),
    ]

    operations = [
        migrations.AddField(
            model_name="message",
            name="external_id",
            field=models.CharField(blank=True, max_length=128, null=True),
        ),
        migrations.RunPython(_binary_collation_on_mysql, migrations.RunPython.noop, atomic=False, elidable=False),
        migrations.AddConstraint(
            model_name="message",
            constraint=models.UniqueConstraint(fields=("session", "external_id"), name="message_session_external_id_uniq"),
        ),
    ]
