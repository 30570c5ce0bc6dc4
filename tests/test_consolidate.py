"""Consolidation service: latest value wins, batches under a token budget, snapshots."""

import datetime as dt

from consolidation.consolidate import consolidation_run
from consolidation.models import JournalEntry, JournalStatus, Snapshot
from profiles.models import MemoryDocument, MemoryItem


def _entry(user, key, value, at, kind="profile", text=None, tokens=5, op="set"):
    return JournalEntry.objects.create(
        user=user, kind=kind, key=key, value=value, text=text or f"{key}: {value}", observed_at=at,
        created_at=at, tokens=tokens, operation=op,
    )


def test_latest_value_wins_and_history_is_kept(alice, t0):
    _entry(alice, "city", "成都", t0)
    _entry(alice, "city", "上海", t0 + dt.timedelta(days=30))
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=30))
    assert res.status == "done"
    current = MemoryItem.objects.current().get(user=alice, key="city")
    assert current.value == "上海"
    old = MemoryItem.objects.get(user=alice, key="city", value="成都")
    assert old.valid_until == t0 + dt.timedelta(days=30)
    doc = MemoryDocument.objects.get(user=alice)
    assert "上海" in doc.markdown and "成都" not in doc.markdown
    assert not JournalEntry.objects.filter(status=JournalStatus.PENDING).exists()


def test_the_same_value_twice_is_one_item(alice, t0):
    _entry(alice, "pref:format", "表格", t0, kind="preference")
    _entry(alice, "pref:format", "表格", t0 + dt.timedelta(days=1), kind="preference")
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    item = MemoryItem.objects.get(user=alice)
    assert item.confirmed_at == t0 + dt.timedelta(days=1)


def test_retract_closes_the_current_value(alice, t0):
    _entry(alice, "role", "team lead", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    _entry(alice, "role", "team lead", t0 + dt.timedelta(days=2), op="retract")
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=2))
    assert not MemoryItem.objects.current().filter(user=alice).exists()


def test_an_over_budget_journal_is_split_into_batches_and_drained(alice, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, CONSOLIDATION_BATCH_TOKENS=20, CONSOLIDATION_MAX_BATCHES=2)
    for i in range(10):
        _entry(alice, f"skill:{i}", f"skill{i}", t0, tokens=10)
    first = consolidation_run(user_id=alice.pk, now=t0)
    assert first.batches == 2 and first.entries == 4 and first.pending_left == 6
    later = t0
    while JournalEntry.objects.filter(status=JournalStatus.PENDING).exists():
        later += dt.timedelta(hours=1)
        consolidation_run(user_id=alice.pk, now=later)
    assert MemoryItem.objects.current().filter(user=alice).count() == 10


def test_minimum_interval_is_respected(alice, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, CONSOLIDATION_MIN_INTERVAL_SECONDS=60)
    _entry(alice, "city", "广州", t0)
    assert consolidation_run(user_id=alice.pk, now=t0).status == "done"
    _entry(alice, "city", "深圳", t0)
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(seconds=30))
    assert res.status == "too_soon" and res.retry_at == t0 + dt.timedelta(seconds=60)
    assert consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(seconds=61)).status == "done"


def test_every_change_snapshots_items_and_document(alice, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, SNAPSHOTS_KEEP=2)
    for day, city in enumerate(["北京", "广州", "深圳"]):
        _entry(alice, "city", city, t0 + dt.timedelta(days=day))
        consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=day))
    snaps = list(Snapshot.objects.filter(user=alice).order_by("version"))
    assert [s.version for s in snaps] == [2, 3]
    assert snaps[-1].items[0]["value"] == "深圳"
    assert "深圳" in snaps[-1].memory_md


def test_the_document_respects_its_token_cap(alice, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, MEMORY_DOCUMENT_TOKENS=40)
    for i in range(30):
        _entry(alice, f"skill:{i}", f"skill number {i}", t0 + dt.timedelta(minutes=i))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(hours=1))
    from bizmemory.tokens import count_tokens

    doc = MemoryDocument.objects.get(user=alice)
    assert 0 < count_tokens(doc.markdown) <= 40
    assert "skill number 29" in doc.markdown  # most recently confirmed stays
    assert "skill number 0\n" not in doc.markdown
    assert MemoryItem.objects.current().filter(user=alice).count() == 30
