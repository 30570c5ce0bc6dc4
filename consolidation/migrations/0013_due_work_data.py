"""Move due work from django-q2 Schedule rows onto the domain rows (issue 14).

- every session gets ``last_user_message_id`` (its newest user turn);
- a session with turns past its watermark becomes due now, and a user with pending journal
  entries becomes due for consolidation now, so nothing the old schedules were holding is lost;
- the old one-off schedules named by convention (``recover:*`` crash guards, ``extract:*``,
  ``extract-quiet:*`` and ``consolidate:*`` retries) are deleted: the sweep replaces them;
- the ``pipeline-sweep`` schedule (every minute, ``consolidation.tasks.pipeline_sweep``) is
  created, idempotently, like ``retention-purge-daily`` (0004).
"""

import datetime as dt

from django.db import migrations
from django.db.models import Max, OuterRef, Subquery

SWEEP = "pipeline-sweep"
OLD_PREFIXES = ("recover:", "extract:", "extract-quiet:", "consolidate:")


def forwards(apps, schema_editor):
    Session = apps.get_model("consolidation", "Session")
    Message = apps.get_model("consolidation", "Message")
    JournalEntry = apps.get_model("consolidation", "JournalEntry")
    MemorySettings = apps.get_model("profiles", "MemorySettings")
    Schedule = apps.get_model("django_q", "Schedule")
    now = dt.datetime.now(dt.timezone.utc)
    newest = (
        Message.objects.filter(session_id=OuterRef("pk"), role="user")
        .values("session_id").annotate(m=Max("id")).values("m")
    )
    for row in Session.objects.annotate(newest=Subquery(newest)).exclude(newest=None).values("pk", "newest", "watermark"):
        Session.objects.filter(pk=row["pk"]).update(last_user_message_id=row["newest"])
    for row in Session.objects.values("pk", "watermark"):
        if Message.objects.filter(session_id=row["pk"], id__gt=row["watermark"]).exists():
            Session.objects.filter(pk=row["pk"]).update(extraction_due_at=now)
    pending_users = JournalEntry.objects.filter(status="pending").values_list("user_id", flat=True).distinct()
    MemorySettings.objects.filter(user_id__in=list(pending_users)).update(consolidation_due_at=now)
    for prefix in OLD_PREFIXES:
        Schedule.objects.filter(name__startswith=prefix).delete()
    Schedule.objects.update_or_create(
        name=SWEEP,
        defaults={"func": "consolidation.tasks.pipeline_sweep", "schedule_type": "I", "minutes": 1,
                  "repeats": -1, "next_run": now},
    )


def backwards(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=SWEEP).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("consolidation", "0012_due_work"),
        ("profiles", "0011_due_work"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
