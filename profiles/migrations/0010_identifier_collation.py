"""User ids and agent / expert slugs are byte-exact on MariaDB/MySQL (issue 14).

``auth_user.username`` holds the platform's user id and ``profiles_agent.slug`` the agent and
expert slugs. With MariaDB's default ``utf8mb4_unicode_ci`` "alice", "Alice", "ALICE" and
"alice " were one account (and "jose" was "josé"): two platform users wrote into, and read,
one memory. Both columns get a binary no-pad collation (``utf8mb4_nopad_bin`` on MariaDB,
``utf8mb4_0900_bin`` on MySQL 8; plain ``utf8mb4_bin`` still pads, so "alice" = "alice "), as
``consolidation.0006`` did for the message id. SQLite and PostgreSQL already compare bytes:
no-op there.

``auth_user`` is Django's table, so this migration lives here and runs after auth's latest
migration of Django 5.2 (``0012``; a fixed name, not ``__latest__``, which would make an
applied migration depend on a future unapplied one). A later auth migration that alters
``username`` re-emits the column without the collation: system check bizmemory.E040 then
refuses to start until the same ``ALTER`` runs again (a new migration here).

Existing rows stay: ids unique case-insensitively are unique byte-wise. Not reversed (a
case-insensitive index could refuse the accounts the binary one let apart).
"""

from django.db import migrations

COLUMNS = (("auth", "User", "username"), ("profiles", "Agent", "slug"))


def _binary_collation_on_mysql(apps, schema_editor):
    conn = schema_editor.connection
    if conn.vendor != "mysql":
        return
    collation = "utf8mb4_nopad_bin" if conn.mysql_is_mariadb else "utf8mb4_0900_bin"
    for app_label, model_name, field_name in COLUMNS:
        model = apps.get_model(app_label, model_name)
        field = model._meta.get_field(field_name)
        schema_editor.execute(
            f"ALTER TABLE {schema_editor.quote_name(model._meta.db_table)} MODIFY "
            f"{schema_editor.quote_name(field.column)} varchar({field.max_length}) "
            f"CHARACTER SET utf8mb4 COLLATE {collation} NOT NULL"
        )


class Migration(migrations.Migration):

    dependencies = [
        ("profiles", "0009_pipeline_refs_are_ids"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.RunPython(_binary_collation_on_mysql, migrations.RunPython.noop, atomic=False, elidable=False),
    ]
