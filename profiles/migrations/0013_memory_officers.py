"""The "memory officers" group: the staff who may reveal, delete and release quarantined
originals, restore memory versions and read the audit log.

Being staff opens the staff pages and the masked quarantine previews only; each action that
shows decrypted PII or rewrites a user's memory needs its permission (``audit.QuarantineRecord``
and ``profiles.Snapshot`` ``Meta.permissions``, the audit log's ``audit.view_auditlog``, which the
admin's audit table needs as well). Superusers hold every permission anyway. The group lives here,
not in ``audit``, because it holds permissions of both apps (profiles may depend on audit).

Django creates permissions after ``migrate`` (``post_migrate``), so on a fresh database they do
not exist yet when this runs: the function creates them first, as ``post_migrate`` will (it
skips the ones that exist). Re-running it is harmless; reversing it deletes the group.
"""

from django.apps import apps as global_apps
from django.contrib.auth.management import create_permissions
from django.db import DEFAULT_DB_ALIAS, migrations

GROUP = "memory officers"
PERMISSIONS = (
    ("audit", "reveal_quarantine"),
    ("audit", "delete_quarantine_now"),
    ("audit", "release_quarantine"),
    ("audit", "view_auditlog"),
    ("profiles", "restore_snapshot"),
)


def memory_officers_create(apps, schema_editor):
    """Create (or complete) the group with exactly :data:`PERMISSIONS`. ``schema_editor`` may be
    None (tests call this to make an officer on a flushed database); then the default database."""
    using = schema_editor.connection.alias if schema_editor is not None else DEFAULT_DB_ALIAS
    for label in {label for label, _ in PERMISSIONS}:
        create_permissions(global_apps.get_app_config(label), apps=apps, verbosity=0, using=using)
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.using(using).get_or_create(name=GROUP)
    perms = [
        Permission.objects.using(using).get(content_type__app_label=label, codename=codename)
        for label, codename in PERMISSIONS
    ]
    group.permissions.set(perms)
    return group


def memory_officers_delete(apps, schema_editor):
    apps.get_model("auth", "Group").objects.using(schema_editor.connection.alias).filter(name=GROUP).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("audit", "0004_alter_quarantinerecord_options"),
        ("profiles", "0012_snapshot_restore_permission"),
    ]

    operations = [
        migrations.RunPython(memory_officers_create, memory_officers_delete),
    ]
