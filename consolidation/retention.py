"""Retention: rows past their retention are physically deleted.

=====================  ===========================================  ==============================
purge                  deletes                                      setting (days unless noted)
=====================  ===========================================  ==============================
journal_archive_purge  archived journal entries, consolidated        ``ARCHIVE_RETENTION_DAYS``
                       more than N days ago
journal_pending_purge  pending ("daily") journal entries written     ``JOURNAL_RETENTION_DAYS``
                       more than N days ago
superseded_item_purge  memory items superseded (``valid_until`` set)  ``ARCHIVE_RETENTION_DAYS``
                       more than N days ago, unless a pending
                       confirmation still names them
snapshot_purge         snapshots beyond the newest K per user        ``SNAPSHOTS_KEEP`` (count)
message_purge          session messages older than N days that       ``MESSAGE_RETENTION_DAYS``
                       extraction has processed (id ≤ the session's
                       watermark); later messages are never deleted
quarantine             ``audit.retention.quarantine_purge``          ``QUARANTINE_RETENTION_DAYS``
=====================  ===========================================  ==============================

:func:`retention_purge_all` runs them all; django-q2 runs it daily (schedule
``retention-purge-daily``, created by migration ``consolidation.0004``); each purge is
also a management command (``purge_journal_archive``, ``purge_journal``,
``purge_snapshots``, ``purge_messages``, ``purge_quarantine``, ``purge_all``).
Deletes run in chunks of :data:`CHUNK` rows, one transaction per chunk, so a purge
never holds a long lock; each purge with a non-zero count writes one audit record
(``retention.purged``: which purge and how many — nothing else).
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from audit.retention import quarantine_purge as audit_quarantine_purge
from audit.services import audit_record
from profiles.models import ConfirmationRequest, ConfirmationStatus, MemoryItem, Snapshot

from .models import JournalEntry, JournalStatus, Message
from .session_index import session_chunks_delete

CHUNK = 2000


def _delete_in_chunks(qs) -> int:
    total = 0
    while True:
        ids = list(qs.order_by("pk").values_list("pk", flat=True)[:CHUNK])
        if not ids:
            return total
        with transaction.atomic():
            total += qs.model.objects.filter(pk__in=ids).delete()[1].get(qs.model._meta.label, 0)


def _audited(what: str, count: int) -> int:
    if count:
        audit_record(action="retention.purged", target_type=what, details={"count": count})
    return count


def _cutoff(now: dt.datetime | None, days_setting: str) -> dt.datetime:
    return (now or timezone.now()) - dt.timedelta(days=settings.BIZMEMORY[days_setting])


def journal_archive_purge(*, now: dt.datetime | None = None) -> int:
    """Delete archived (consolidated) journal entries consolidated — or, when that time is
    missing, created — more than ``ARCHIVE_RETENTION_DAYS`` days before ``now``. Returns the count."""
    cutoff = _cutoff(now, "ARCHIVE_RETENTION_DAYS")
    qs = JournalEntry.objects.filter(status=JournalStatus.ARCHIVED).filter(
        Q(consolidated_at__lt=cutoff) | Q(consolidated_at__isnull=True, created_at__lt=cutoff)
    )
    return _audited("journal_entry_archived", _delete_in_chunks(qs))


def journal_pending_purge(*, now: dt.datetime | None = None) -> int:
    """Delete pending journal entries written more than ``JOURNAL_RETENTION_DAYS`` days before
    ``now`` (a journal nobody consolidated in that time is dropped, not kept forever). Returns the count."""
    qs = JournalEntry.objects.filter(status=JournalStatus.PENDING, created_at__lt=_cutoff(now, "JOURNAL_RETENTION_DAYS"))
    return _audited("journal_entry_pending", _delete_in_chunks(qs))


def superseded_item_purge(*, now: dt.datetime | None = None) -> int:
    """Delete memory items that left current memory (``valid_until`` set) more than
    ``ARCHIVE_RETENTION_DAYS`` days before ``now`` — the history rows that confirm/reject of a
    change reads — except those a pending confirmation request still names. Their search
    vectors and resolved confirmation requests cascade. Current items are never touched.
    Returns the count."""
    pending = ConfirmationRequest.objects.filter(status=ConfirmationStatus.PENDING)
    qs = MemoryItem.objects.filter(valid_until__lt=_cutoff(now, "ARCHIVE_RETENTION_DAYS")).exclude(
        pk__in=pending.values("old_item_id")
    ).exclude(pk__in=pending.values("new_item_id"))
    return _audited("memory_item_superseded", _delete_in_chunks(qs))


def snapshot_purge(*, now: dt.datetime | None = None) -> int:
    """Delete each user's snapshots beyond the newest ``SNAPSHOTS_KEEP`` (K lowered since they
    were written; ``snapshot_create`` prunes as it goes). ``now`` is unused (kept for a uniform
    signature). Returns the count."""
    keep = settings.BIZMEMORY["SNAPSHOTS_KEEP"]
    total = 0
    over = Snapshot.objects.values("user_id").annotate(n=Count("id")).filter(n__gt=keep).values_list("user_id", flat=True)
    for user_id in list(over):
        with transaction.atomic():
            old = list(Snapshot.objects.filter(user_id=user_id).order_by("-version").values_list("pk", flat=True)[keep:])
            total += Snapshot.objects.filter(pk__in=old).delete()[0]
    return _audited("snapshot", total)


def message_purge(*, now: dt.datetime | None = None) -> int:
    """Delete session messages created more than ``MESSAGE_RETENTION_DAYS`` days before ``now``
    that extraction already processed (``id ≤ session.watermark``); messages after a session's
    watermark are kept whatever their age. Their session-search chunks are deleted in the same
    transaction. Returns the count."""
    qs = Message.objects.filter(created_at__lt=_cutoff(now, "MESSAGE_RETENTION_DAYS"), id__lte=F("session__watermark"))
    total = 0
    while True:
        rows = list(qs.order_by("pk").values_list("pk", "session__user_id")[:CHUNK])
        if not rows:
            return _audited("message", total)
        with transaction.atomic():
            by_user: dict[int, list[int]] = {}
            for pk, user_id in rows:
                by_user.setdefault(user_id, []).append(pk)
            for user_id, ids in by_user.items():
                session_chunks_delete(user_id=user_id, message_ids=ids)
            total += Message.objects.filter(pk__in=[pk for pk, _ in rows]).delete()[1].get(Message._meta.label, 0)


def quarantine_purge(*, now: dt.datetime | None = None) -> int:
    """Quarantine records past their retention (``audit.retention.quarantine_purge``: the audit
    app owns it). Returns the count."""
    return audit_quarantine_purge(now=now)


PURGES = {
    "journal_archived": journal_archive_purge,
    "journal_pending": journal_pending_purge,
    "superseded_items": superseded_item_purge,
    "snapshots": snapshot_purge,
    "messages": message_purge,
    "quarantine": quarantine_purge,
}


def retention_purge_all(*, now: dt.datetime | None = None) -> dict[str, int]:
    """Run every purge with the same clock; returns ``{purge name: rows deleted}`` with the
    keys of :data:`PURGES`. One purge failing does not stop the others; the first error is
    re-raised after all ran."""
    now = now or timezone.now()
    counts, error = {}, None
    for name, purge in PURGES.items():
        try:
            counts[name] = purge(now=now)
        except Exception as exc:  # noqa: BLE001 — run the other purges, then report
            counts[name] = -1
            error = error or exc
    if error is not None:
        raise error
    return counts
