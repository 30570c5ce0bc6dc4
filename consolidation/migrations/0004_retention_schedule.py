"""Create the daily django-q2 schedule that runs every retention purge (idempotent).

The schedule is data, so it is created here rather than by a set-up command: every
database that is migrated — laptop, CI, production — gets exactly one
``retention-purge-daily`` row (update_or_create by name), first run at the next 03:00 UTC.
"""

import datetime as dt

from django.db import migrations

NAME = "retention-purge-daily"


def create_schedule(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    now = dt.datetime.now(dt.timezone.utc)
    first = now.replace(hour=3, minute=0, second=0, microsecond=0)
    if first <= now:
        first += dt.timedelta(days=1)
    Schedule.objects.update_or_create(
        name=NAME,
        defaults={
            "func": "consolidation.tasks.retention_purge",
            "schedule_type": "D",  # Schedule.DAILY
            "repeats": -1,
            "next_run": first,
        },
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("consolidation", "0003_alter_snapshot_reason_memoryversion_and_more"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]

    operations = [migrations.RunPython(create_schedule, remove_schedule)]
