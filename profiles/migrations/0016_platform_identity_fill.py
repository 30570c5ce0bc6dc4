"""Platform user ids become their own namespace (issue 14): every existing platform end user gets
its ``PlatformIdentity`` and the id column is byte-exact on MariaDB/MySQL.

Until now a platform user id was ``auth_user.username``, shared with staff logins: ingest had to
refuse a staff login as ``user`` with a 400 saying so, which told an ingest key which staff
accounts exist. From here a platform id names only the account linked by ``PlatformIdentity``.
Every account that is neither staff nor superuser was a platform user under its username, so it
is linked under that id (the same id keeps the same memory); staff and superuser accounts get no
identity, and a platform id equal to a staff login is from now on another, separate user.

On MySQL/MariaDB ``profiles_platformidentity.external_id`` gets the binary no-pad collation of
``profiles.0010`` ("alice", "Alice" and "alice " are three users); SQLite and PostgreSQL already
compare bytes. Not reversed: reversing ``0015`` drops the table.
"""

from django.db import migrations

from bizmemory.collation import column_make_exact

BATCH = 2000


def _binary_collation_on_mysql(apps, schema_editor):
    column_make_exact(schema_editor, apps.get_model("profiles", "PlatformIdentity"), "external_id")


def platform_identities_fill(apps, schema_editor):
    """Link every account that is neither staff nor superuser under its username."""
    User = apps.get_model("auth", "User")
    PlatformIdentity = apps.get_model("profiles", "PlatformIdentity")
    users = (
        User.objects.filter(is_staff=False, is_superuser=False, platform_identity__isnull=True)
        .order_by("pk").values_list("pk", "username")
    )
    batch = []
    for pk, username in users.iterator(chunk_size=BATCH):
        batch.append(PlatformIdentity(user_id=pk, external_id=username))
        if len(batch) == BATCH:
            PlatformIdentity.objects.bulk_create(batch)
            batch = []
    PlatformIdentity.objects.bulk_create(batch)


class Migration(migrations.Migration):

    dependencies = [
        ("profiles", "0015_platformidentity"),
    ]

    operations = [
        migrations.RunPython(_binary_collation_on_mysql, migrations.RunPython.noop, atomic=False, elidable=False),
        migrations.RunPython(platform_identities_fill, migrations.RunPython.noop, elidable=False),
    ]
