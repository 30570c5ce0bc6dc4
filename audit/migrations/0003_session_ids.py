"""Quarantine records refer to their session by id and keep the platform's session id for display;
no foreign key into ``consolidation`` (issue 15: audit is the leaf app)."""

import django.db.models.deletion
from django.db import migrations, models


def session_external_ids(apps, schema_editor):
    QuarantineRecord = apps.get_model("audit", "QuarantineRecord")
    Session = apps.get_model("consolidation", "Session")
    ids = set(QuarantineRecord.objects.exclude(session_id=None).values_list("session_id", flat=True))
    for pk, external_id in Session.objects.filter(pk__in=ids).values_list("pk", "external_id"):
        QuarantineRecord.objects.filter(session_id=pk).update(session_external_id=external_id)


class Migration(migrations.Migration):

    dependencies = [
        ("audit", "0002_initial"),
        ("consolidation", "0009_memory_versions_to_profiles"),
    ]

    operations = [
        migrations.AddField(
            model_name="quarantinerecord",
            name="session_external_id",
            field=models.CharField(blank=True, max_length=128),
        ),
        migrations.RunPython(session_external_ids, migrations.RunPython.noop),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.AlterField(
                    model_name="quarantinerecord",
                    name="session",
                    field=models.ForeignKey(
                        "consolidation.Session", null=True, blank=True, on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+", db_constraint=False,
                    ),
                ),
            ],
            state_operations=[
                migrations.RemoveField(model_name="quarantinerecord", name="session"),
                migrations.AddField(
                    model_name="quarantinerecord",
                    name="session_id",
                    field=models.BigIntegerField(blank=True, null=True),
                ),
            ],
        ),
    ]
