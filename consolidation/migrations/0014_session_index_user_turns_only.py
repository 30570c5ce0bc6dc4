"""The session index holds the user's own turns only, masked with the floor (issue 14).

Chunks written before: assistant turns were indexed, and a user turn's text was masked only
where the detector of the day found PII (its lexical postings kept the rest, so a query could
confirm a guessed number). This migration

1. deletes every ``message`` chunk that is not a user turn (``kind`` other than ``user``), with
   its postings;
2. re-masks each remaining chunk's text as ``consolidation.session_index.chunk_text`` does now
   (the current detector, then ``audit.floor.mask_floor``); a chunk whose text changes loses its
   postings and its vector (``terms_count`` NULL, ``model`` ""): search writes the postings
   again from the masked text on the user's next query, and ``manage.py rebuild_embeddings``
   re-embeds it (until then it is found by the lexical list only).

Not reversible in content: going back leaves the index as it is (deleted chunks are not
restored, and there is nothing to restore them from but the raw turns).
"""

from django.db import migrations

BATCH = 500


def _session_chunks_rule(apps, schema_editor):
    MemoryVector = apps.get_model("profiles", "MemoryVector")
    LexicalPosting = apps.get_model("profiles", "LexicalPosting")
    chunks = MemoryVector.objects.filter(source="message")
    not_user = list(chunks.exclude(kind="user").values_list("pk", flat=True))
    for i in range(0, len(not_user), BATCH):
        ids = not_user[i : i + BATCH]
        LexicalPosting.objects.filter(vector_id__in=ids).delete()
        MemoryVector.objects.filter(pk__in=ids).delete()
    if not chunks.exists():
        return
    # Imported only when there is something to mask: the sanitizer loads presidio (~2 s).
    from audit.floor import mask_floor
    from audit.sanitizer import analyze, mask

    last = 0
    vendor = schema_editor.connection.vendor
    while True:
        rows = list(chunks.filter(pk__gt=last).order_by("pk").values_list("pk", "text")[:BATCH])
        if not rows:
            break
        last = rows[-1][0]
        changed = []
        for pk, text in rows:
            hits = analyze(text)
            new = mask_floor(mask(text, hits) if hits else text)
            if new != text:
                changed.append((pk, new))
        for pk, new in changed:
            MemoryVector.objects.filter(pk=pk).update(text=new, terms_count=None, model="", dim=0, embedding=b"")
        ids = [pk for pk, _ in changed]
        if ids:
            LexicalPosting.objects.filter(vector_id__in=ids).delete()
            if vendor == "postgresql":
                with schema_editor.connection.cursor() as cur:
                    cur.execute("UPDATE profiles_memoryvector SET embedding_pg = NULL WHERE id = ANY(%s)", [ids])


class Migration(migrations.Migration):

    dependencies = [
        ("consolidation", "0013_due_work_data"),
        ("profiles", "0010_identifier_collation"),
    ]

    operations = [migrations.RunPython(_session_chunks_rule, migrations.RunPython.noop, elidable=True)]
