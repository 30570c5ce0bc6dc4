"""Snapshots, memory versions, confirmation requests and consolidation proposals belong to the
memory store (``profiles``), not the pipeline (issue 15: dependencies run one way).

The tables are renamed to ``profiles_*`` here and the models leave this app's state;
``profiles.0008_memory_versions`` adds them to profiles' state without touching the database.
Rows, ids, indexes and constraints are kept as they are.
"""

from django.db import migrations

MOVED = ("snapshot", "memoryversion", "confirmationrequest", "consolidationproposal")


class Migration(migrations.Migration):

    dependencies = [
        ("consolidation", "0008_alter_message_role"),
        ("profiles", "0007_lexical_postings"),
    ]

    operations = [
        *(migrations.AlterModelTable(name=name, table=f"profiles_{name}") for name in MOVED),
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name=name) for name in MOVED],
        ),
    ]
