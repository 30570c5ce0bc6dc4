"""The memory store refers to the pipeline's rows by id, not by foreign key (issue 15).

``MemoryItem.source_session`` and ``MemoryVector.message`` were foreign keys into
``consolidation``; they become plain ``source_session_id`` / ``message_id`` columns with the
same names and values. Only the database's foreign-key constraints are dropped; no data moves.
Message chunks are deleted by the pipeline with their messages from now on
(``consolidation.session_index.session_chunks_delete``).
"""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Q


class Migration(migrations.Migration):

    dependencies = [
        ("profiles", "0008_memory_versions"),
        ("consolidation", "0009_memory_versions_to_profiles"),
    ]

    operations = [
        migrations.AlterField(
            model_name="snapshot",
            name="reason",
            field=models.CharField(
                choices=[
                    ("consolidation", "Consolidation"), ("manual", "Manual"), ("rollback_point", "Rollback Point"),
                    ("restore", "Restore"), ("confirmation", "Confirmation"), ("proposal", "Proposal"),
                    ("user_edit", "User Edit"), ("staff_edit", "Staff Edit"),
                ],
                max_length=32,
            ),
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.AlterField(
                    model_name="memoryitem",
                    name="source_session",
                    field=models.ForeignKey(
                        "consolidation.Session", null=True, blank=True, on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+", db_constraint=False,
                    ),
                ),
                migrations.AlterField(
                    model_name="memoryvector",
                    name="message",
                    field=models.OneToOneField(
                        "consolidation.Message", null=True, blank=True, on_delete=django.db.models.deletion.CASCADE,
                        related_name="+", db_constraint=False,
                    ),
                ),
            ],
            state_operations=[
                migrations.RemoveConstraint(model_name="memoryvector", name="memvec_one_source"),
                migrations.RemoveField(model_name="memoryitem", name="source_session"),
                migrations.RemoveField(model_name="memoryvector", name="message"),
                migrations.AddField(
                    model_name="memoryitem",
                    name="source_session_id",
                    field=models.BigIntegerField(blank=True, db_index=True, null=True),
                ),
                migrations.AddField(
                    model_name="memoryvector",
                    name="message_id",
                    field=models.BigIntegerField(blank=True, null=True, unique=True),
                ),
                migrations.AddConstraint(
                    model_name="memoryvector",
                    constraint=models.CheckConstraint(
                        condition=Q(source="item", message_id__isnull=True) | Q(source="message", item__isnull=True),
                        name="memvec_one_source",
                    ),
                ),
            ],
        ),
    ]
