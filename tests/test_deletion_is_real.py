"""Deletion is real (issue #8): after clear-all nothing of the user's long-term memory remains.

A conversation (profile, preferences, a dated fact, a PII turn) runs through the real pipeline
(``manage.py replay``: ingest → sanitizer/quarantine → extraction → consolidation → snapshot),
the search index is built, then ``profiles.services.memory_clear_all`` — the service behind
/memory/clear/ — runs. Afterwards every column that can hold text (char/text/JSON/binary) of
every row of every model (``apps.get_models()``) is scanned for the user's memory strings, as
are the vector index (``MemoryVector`` rows; on PostgreSQL the pgvector column) and the search
results. Conversation messages may remain only when history is kept. Another user's memory is
untouched.
"""

from __future__ import annotations

import json

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection, models

from audit.models import QuarantineRecord
from consolidation.models import JournalEntry, Message
from profiles.models import Snapshot
from profiles.models import ContextPack, LexicalPosting, MemoryDocument, MemoryItem, MemoryVector
from profiles.search import memory_index_refresh, memory_search
from consolidation.session_index import session_index_refresh
from profiles.selectors import memory_context
from profiles.services import memory_clear_all

OWNER = {
    "user_id": "dora",
    "sessions": [{"session_id": "dora-1", "started_at": "2026-03-02T09:00:00+00:00", "messages": [
        {"role": "user", "content": "I live in Reykjavik and I work as a glassblower."},
        {"role": "assistant", "content": "Nice to meet you."},
        {"role": "user", "content": "I prefer very short answers. I relocated from Timbuktu two years ago."},
        {"role": "assistant", "content": "Understood."},
        {"role": "user", "content": "我喜欢用表格回答。"},
        {"role": "assistant", "content": "好的"},
        {"role": "user", "content": "我的手机是13912345678"},
        {"role": "assistant", "content": "收到"},
    ]}],
}
OTHER = {
    "user_id": "emil",
    "sessions": [{"session_id": "emil-1", "started_at": "2026-03-02T09:00:00+00:00", "messages": [
        {"role": "user", "content": "I live in Valparaiso and I work as a beekeeper."},
        {"role": "assistant", "content": "Ok."},
        {"role": "user", "content": "我的邮箱是emil@example.com"},
        {"role": "assistant", "content": "Ok."},
    ]}],
}
# The owner's memory strings (what extraction keeps) and the PII the sanitizer kept out.
OWNER_MEMORY = ("Reykjavik", "glassblower", "short answers", "Timbuktu", "表格")
OWNER_PII = ("13912345678",)
# Search queries that find the facts before the clear.
QUERIES = ("Reykjavik", "glassblower", "short answers", "Timbuktu", "表格")
# Conversation history: the only place the strings may survive when history is kept.
HISTORY_MODELS = {"consolidation.Message"}


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    # The conversations are dated 2026-03-02: a retention window longer than their age keeps
    # session search able to find them, so "no hits after the clear" is not vacuous.
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=256, MESSAGE_RETENTION_DAYS=36500)


def _replay(tmp_path, *convs) -> None:
    f = tmp_path / "convs.jsonl"
    f.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in convs), encoding="utf-8")
    call_command("replay", str(f), quiet_stats=True)


def _text_fields(model) -> list[str]:
    return [
        f.attname for f in model._meta.concrete_fields
        if isinstance(f, (models.CharField, models.TextField, models.JSONField, models.BinaryField))
    ]


def _as_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def scan(needles, *, skip_models=(), skip=None) -> dict[str, list[str]]:
    """Every row of every model (all rows: stricter than filtering by the user FK, and it also
    covers models without one); ``{"app.Model.field": [needles found]}``. ``skip(model, row_pk)``
    may exempt rows (message vectors when history is kept)."""
    found: dict[str, list[str]] = {}
    for model in apps.get_models():
        label = model._meta.label
        fields = _text_fields(model)
        if label in skip_models or not fields:
            continue
        for row in model._base_manager.values_list("pk", *fields):
            pk, values = row[0], row[1:]
            if skip and skip(model, pk):
                continue
            for name, value in zip(fields, values):
                text = _as_text(value)
                hits = [n for n in needles if n in text]
                if hits:
                    found.setdefault(f"{label}.{name}", []).extend(hits)
    return found


def pgvector_rows(user_id: int) -> int | None:
    """Rows of the user with a pgvector embedding (PostgreSQL with the column only), else None."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cur:
        cols = [c.name for c in connection.introspection.get_table_description(cur, MemoryVector._meta.db_table)]
        if "embedding_pg" not in cols:
            return None
        cur.execute(f"SELECT count(*) FROM {MemoryVector._meta.db_table} WHERE user_id = %s AND embedding_pg IS NOT NULL",
                    [user_id])
        return cur.fetchone()[0]


def search_hits(user, queries, scope="memory") -> list[str]:
    return [h.text for q in queries for h in memory_search(user=user, agent_slug="main", query=q, scope=scope, top_k=10).hits]


def other_state(user) -> dict:
    return {
        "items": sorted(MemoryItem.objects.filter(user=user).values_list("pk", "value")),
        "journal": JournalEntry.objects.filter(user=user).count(),
        "snapshots": sorted(Snapshot.objects.filter(user=user).values_list("version", flat=True)),
        "vectors": MemoryVector.objects.filter(user=user).count(),
        "quarantine": QuarantineRecord.objects.filter(user=user).count(),
        "messages": Message.objects.filter(session__user=user).count(),
        "document": list(MemoryDocument.objects.filter(user=user).values_list("pk", flat=True)),
    }


@pytest.fixture
def filled(db, tmp_path):
    """Two users through the real pipeline, with their search index built."""
    from django.contrib.auth import get_user_model

    _replay(tmp_path, OWNER, OTHER)
    users = {u.username: u for u in get_user_model().objects.filter(username__in=["dora", "emil"])}
    for u in users.values():
        memory_index_refresh(user_id=u.pk)
        session_index_refresh(user_id=u.pk)
    return users["dora"], users["emil"]


def _assert_owner_has_everything(owner):
    assert MemoryItem.objects.filter(user=owner).count() >= 4
    assert JournalEntry.objects.filter(user=owner).exists()
    assert Snapshot.objects.filter(user=owner).exists()
    assert MemoryDocument.objects.filter(user=owner).exists()
    assert MemoryVector.objects.filter(user=owner, source="item").exists()
    assert MemoryVector.objects.filter(user=owner, source="message").exists()
    assert LexicalPosting.objects.filter(user=owner).exists()
    assert QuarantineRecord.objects.filter(user=owner).exists()
    values = " ".join(MemoryItem.objects.filter(user=owner).values_list("value", flat=True))
    assert all(s in values for s in OWNER_MEMORY), values  # the pipeline really learned each string
    found = scan(OWNER_MEMORY)
    assert {"profiles.MemoryItem.value", "profiles.MemoryVector.text", "consolidation.Message.content"} <= set(found), found
    assert search_hits(owner, QUERIES), "search finds the facts before the clear"
    assert search_hits(owner, QUERIES, scope="sessions"), "and the turns"


def _assert_nothing_left(owner, *, history_kept: bool):
    skip_models = HISTORY_MODELS if history_kept else ()
    assert scan(OWNER_MEMORY + OWNER_PII, skip_models=skip_models) == {}
    for model in (MemoryItem, JournalEntry, Snapshot, MemoryDocument, MemoryVector, QuarantineRecord,
                  LexicalPosting, ContextPack):
        assert not model.objects.filter(user=owner).exists(), model._meta.label
    assert pgvector_rows(owner.pk) in (None, 0)
    assert search_hits(owner, QUERIES) == []
    assert not MemoryVector.objects.filter(user=owner, source="item").exists()  # searching did not rebuild any
    assert memory_context(user=owner, agent_slug="main", budget=800).reason == "no_memory"


def test_it_leaves_nothing_when_history_is_kept(filled):
    owner, other = filled
    _assert_owner_has_everything(owner)
    other_before = other_state(other)
    counts = memory_clear_all(user=owner, include_history=False)
    assert counts["items"] >= 4 and counts["vectors"] >= 1 and counts["quarantine"] == 1 and counts["messages"] == 0
    _assert_nothing_left(owner, history_kept=True)
    # History kept: the raw conversation is still there (and only there), as chosen.
    assert Message.objects.filter(session__user=owner).count() == 8
    assert scan(OWNER_MEMORY, skip=lambda m, pk: m is not Message)  # the strings live on in messages only
    # ... and kept history is never a search source: session search rebuilds nothing from it.
    assert search_hits(owner, QUERIES, scope="sessions") == []
    assert not MemoryVector.objects.filter(user=owner).exists()
    assert other_state(other) == other_before
    assert search_hits(other, ["beekeeper"]), "the other user's memory is still searchable"


def test_it_leaves_nothing_at_all_when_history_is_deleted(filled):
    owner, other = filled
    _assert_owner_has_everything(owner)
    other_before = other_state(other)
    counts = memory_clear_all(user=owner, include_history=True)
    assert counts["messages"] == 8 and counts["sessions"] == 1
    _assert_nothing_left(owner, history_kept=False)
    assert not Message.objects.filter(session__user=owner).exists()
    assert search_hits(owner, QUERIES, scope="sessions") == []
    assert not MemoryVector.objects.filter(user=owner).exists()  # session search rebuilt nothing
    assert other_state(other) == other_before
    assert search_hits(other, ["beekeeper"])


def test_the_scan_would_see_a_leftover(filled):
    """The scan is not vacuous: a memory string hidden in an unrelated table is found."""
    owner, _ = filled
    memory_clear_all(user=owner, include_history=True)
    from audit.services import audit_record

    audit_record(action="test.leftover", actor=None, subject_user=owner, target_type="user", target_id=str(owner.pk),
                 details={"note": "glassblower"})
    assert "audit.AuditLog.details" in scan(OWNER_MEMORY)
