"""Consolidation service: pending journal → memory items → MEMORY.md → snapshot.

Merge rules (v1): one current value per key — the latest observation wins and
the replaced item keeps its ``valid_until`` (history kept, not served); the
same value again only refreshes ``confirmed_at`` and its sources; ``retract``
closes the current value. Journal entries are read in id order in batches of
at most ``BIZMEMORY['CONSOLIDATION_BATCH_TOKENS']`` tokens, at most
``CONSOLIDATION_MAX_BATCHES`` batches per run; consolidated entries are marked
``archived``. Two runs for one user at least
``CONSOLIDATION_MIN_INTERVAL_SECONDS`` apart unless forced.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from audit.services import audit_record
from profiles.models import MemoryDocument, MemoryItem, MemorySettings
from profiles.rendering import render_memory_markdown
from bizmemory.tokens import count_tokens

from .models import JournalEntry, JournalStatus, Snapshot, SnapshotReason


@dataclass
class ConsolidationResult:
    """``status``: ``done``, ``nothing_pending`` or ``too_soon`` (retry at ``retry_at``)."""

    status: str
    batches: int = 0
    entries: int = 0
    items_added: int = 0
    items_closed: int = 0
    pending_left: int = 0
    snapshot_version: int | None = None
    retry_at: dt.datetime | None = None


def _take_batch(user_id: int, budget: int) -> list[JournalEntry]:
    batch, used = [], 0
    for entry in JournalEntry.objects.filter(user_id=user_id, status=JournalStatus.PENDING).order_by("id").iterator(chunk_size=200):
        if batch and used + entry.tokens > budget:
            break
        batch.append(entry)
        used += entry.tokens
    return batch


def _apply(entry: JournalEntry, now: dt.datetime) -> tuple[int, int]:
    current = list(MemoryItem.objects.current().filter(user_id=entry.user_id, kind=entry.kind, key=entry.key))
    if entry.operation == "retract":
        for item in current:
            item.valid_until = now
            item.save(update_fields=["valid_until"])
        return 0, len(current)
    same = [i for i in current if i.value.casefold() == entry.value.casefold()]
    if same:
        item = same[0]
        item.confirmed_at = max(item.confirmed_at, entry.observed_at)
        item.source_message_ids = sorted(set(item.source_message_ids) | set(entry.source_message_ids))
        item.save(update_fields=["confirmed_at", "source_message_ids"])
        return 0, 0
    for item in current:
        item.valid_until = entry.observed_at
        item.save(update_fields=["valid_until"])
    MemoryItem.objects.create(
        user_id=entry.user_id,
        kind=entry.kind,
        key=entry.key,
        value=entry.value,
        text=entry.text,
        source_message_ids=entry.source_message_ids,
        source_session_id=entry.session_id,
        fact_date=entry.fact_date,
        valid_from=entry.observed_at,
        confirmed_at=entry.observed_at,
    )
    return 1, len(current)


def memory_document_refresh(*, user_id: int) -> MemoryDocument:
    """Re-render a user's MEMORY.md from the current items (token cap from settings) and store it."""
    items = list(MemoryItem.objects.current().filter(user_id=user_id))
    md, _ = render_memory_markdown(items, max_tokens=settings.BIZMEMORY["MEMORY_DOCUMENT_TOKENS"])
    doc, _ = MemoryDocument.objects.get_or_create(user_id=user_id)
    if doc.markdown != md:
        doc.markdown = md
        doc.tokens = count_tokens(md)
        doc.version += 1
        doc.save(update_fields=["markdown", "tokens", "version", "updated_at"])
    return doc


def snapshot_create(*, user_id: int, reason: str, now: dt.datetime | None = None) -> Snapshot:
    """Save the user's current items and MEMORY.md as the next version; keep the newest K."""
    now = now or timezone.now()
    items = [i.as_dict() for i in MemoryItem.objects.current().filter(user_id=user_id).order_by("id")]
    doc = MemoryDocument.objects.filter(user_id=user_id).first()
    last = Snapshot.objects.filter(user_id=user_id).aggregate(v=Max("version"))["v"] or 0
    snap = Snapshot.objects.create(
        user_id=user_id, version=last + 1, reason=reason, items=items, memory_md=doc.markdown if doc else "", created_at=now
    )
    keep = settings.BIZMEMORY["SNAPSHOTS_KEEP"]
    old = list(Snapshot.objects.filter(user_id=user_id).order_by("-version").values_list("pk", flat=True)[keep:])
    if old:
        Snapshot.objects.filter(pk__in=old).delete()
    return snap


def consolidation_run(*, user_id: int, now: dt.datetime | None = None, force: bool = False) -> ConsolidationResult:
    """Merge a user's pending journal into memory items, re-render MEMORY.md and snapshot.

    Inputs: the user's primary key, the clock ``now`` and ``force`` (ignore the
    minimum interval). Returns a :class:`ConsolidationResult`. Each batch is one
    transaction; a failure leaves earlier batches applied and later entries pending.
    """
    now = now or timezone.now()
    cfg = settings.BIZMEMORY
    ms = MemorySettings.objects.get(user_id=user_id)
    interval = dt.timedelta(seconds=cfg["CONSOLIDATION_MIN_INTERVAL_SECONDS"])
    if not force and ms.last_consolidation_at and now - ms.last_consolidation_at < interval:
        return ConsolidationResult("too_soon", retry_at=ms.last_consolidation_at + interval)
    result = ConsolidationResult("nothing_pending")
    for _ in range(cfg["CONSOLIDATION_MAX_BATCHES"]):
        with transaction.atomic():
            batch = _take_batch(user_id, cfg["CONSOLIDATION_BATCH_TOKENS"])
            if not batch:
                break
            claimed = JournalEntry.objects.filter(pk__in=[e.pk for e in batch], status=JournalStatus.PENDING).update(
                status=JournalStatus.ARCHIVED, consolidated_at=now
            )
            if claimed != len(batch):
                # Another consolidation claimed part of this batch; let it finish.
                transaction.set_rollback(True)
                break
            for entry in batch:
                added, closed = _apply(entry, now)
                result.items_added += added
                result.items_closed += closed
            result.batches += 1
            result.entries += len(batch)
    if result.batches:
        with transaction.atomic():
            memory_document_refresh(user_id=user_id)
            snap = snapshot_create(user_id=user_id, reason=SnapshotReason.CONSOLIDATION, now=now)
            MemorySettings.objects.filter(user_id=user_id).update(last_consolidation_at=now)
            audit_record(
                action="memory.consolidated",
                subject_user_id=user_id,
                target_type="snapshot",
                target_id=str(snap.pk),
                details={"entries": result.entries, "added": result.items_added, "closed": result.items_closed},
            )
        result.status = "done"
        result.snapshot_version = snap.version
    result.pending_left = JournalEntry.objects.filter(user_id=user_id, status=JournalStatus.PENDING).count()
    return result
