"""PostgreSQL only: a pgvector column mirroring MemoryVector.embedding, with HNSW cosine indexes.

The column has no fixed dimension (embedders differ: USE 512, hashing 256, OpenAI
1536…), so each index is a partial expression index per dimension, as pgvector
documents for mixed dimensions: ``USING hnsw ((embedding_pg::vector(N)) vector_cosine_ops)
WHERE dim = N``. The column is not in Django's model state: it is written and read
with raw SQL by ``profiles.search`` only when ``connection.vendor == "postgresql"``.
SQLite and MySQL/MariaDB skip this migration's SQL and compute similarity in Python.
"""

from django.db import migrations

INDEXED_DIMS = (256, 384, 512, 768, 1024, 1536)


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER TABLE profiles_memoryvector ADD COLUMN IF NOT EXISTS embedding_pg vector")
    for dim in INDEXED_DIMS:
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS memvec_hnsw_{dim} ON profiles_memoryvector "
            f"USING hnsw ((embedding_pg::vector({dim})) vector_cosine_ops) WHERE dim = {dim}"
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for dim in INDEXED_DIMS:
        schema_editor.execute(f"DROP INDEX IF EXISTS memvec_hnsw_{dim}")
    schema_editor.execute("ALTER TABLE profiles_memoryvector DROP COLUMN IF EXISTS embedding_pg")


class Migration(migrations.Migration):
    dependencies = [("profiles", "0003_platformapikey_agents_memoryvector")]
    operations = [migrations.RunPython(forwards, backwards)]
