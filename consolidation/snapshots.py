"""Versions of a user's memory: the CAS version number, MEMORY.md, snapshots and restore.

* ``memory_version_read`` / ``memory_version_bump`` — the per-user compare-and-set
  token (``consolidation.models.MemoryVersion``). Every writer of a user's memory
  items bumps it inside its transaction; consolidation applies a plan only when the
  version it planned on is still current.
* ``memory_document_refresh`` — re-render MEMORY.md from the current items.
* ``snapshot_create`` — save the current items + MEMORY.md as the next version,
  keeping the newest ``BIZMEMORY['SNAPSHOTS_KEEP']``.
* ``snapshot_restore`` — replace the current memory with a snapshot's, after saving
  the current state as a rollback point; restoring that rollback point gives back
  exactly what was there (equal item dicts, byte-identical MEMORY.md).
* ``snapshots_rectify`` — when an item leaves memory because the user superseded,
  retracted or deleted it, retained snapshots stop carrying it: a superseded value is
  replaced by the value that superseded it, a retracted or deleted one is dropped, and the
  snapshot's MEMORY.md is re-rendered. So a restore rolls back a bad consolidation but never
  brings back a value the user has since corrected or deleted (GDPR Art. 5(1)(d),
  accuracy: inaccurate personal data are erased or rectified without delay). The
  superseded item rows themselves stay as history (confirm/reject of a change needs them)
  until ``ARCHIVE_RETENTION_DAYS`` (``consolidation.retention.superseded_item_purge``).
"""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from audit.services import audit_record
from bizmemory.tokens import count_tokens
from profiles.models import MemoryDocument, MemoryItem
from profiles.rendering import render_memory_markdown

from .models import ConfirmationRequest, ConfirmationStatus, MemoryVersion, Snapshot, SnapshotReason


log = logging.getLogger("bizmemory.consolidation")


class SnapshotNotFound(LookupError):
    """No snapshot with that version is retained for the user."""


def memory_version_read(*, user_id: int) -> int:
    """The user's current memory version (0 when none was ever written; no row is created)."""
    return MemoryVersion.objects.filter(user_id=user_id).values_list("version", flat=True).first() or 0


def memory_version_bump(*, user_id: int, expected: int | None = None, now: dt.datetime | None = None) -> bool:
    """Advance the user's memory version by one; returns True when this call did it.

    With ``expected`` it is a compare-and-set: only succeeds when the stored version
    still equals ``expected`` (one conditional UPDATE, row-count checked — the same on
    SQLite, PostgreSQL and MariaDB). Without it, it always bumps. Call it inside the
    transaction that writes the user's memory items.
    """
    now = now or timezone.now()
    qs = MemoryVersion.objects.filter(user_id=user_id)
    if expected is not None:
        qs = qs.filter(version=expected)
    if qs.update(version=F("version") + 1, updated_at=now) == 1:
        return True
    if expected not in (None, 0):
        return False
    try:  # first write for this user: the row does not exist yet (a concurrent first writer wins)
        with transaction.atomic():
            MemoryVersion.objects.create(user_id=user_id, version=1, updated_at=now)
    except IntegrityError:
        return False
    return True


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


def memory_index_sync(*, user_id: int) -> None:
    """Bring the user's search index in line with the current items after a memory change
    (``profiles.search.memory_index_refresh``). Never raises: a failure is logged and the
    search selector re-indexes a stale user itself."""
    try:
        from profiles.search import memory_index_refresh
    except ImportError:  # search not installed in this build
        return
    try:
        memory_index_refresh(user_id=user_id)
    except Exception:  # noqa: BLE001 — the index heals itself; memory writes must not fail on it
        log.warning("search index refresh failed for user %s", user_id, exc_info=True)


def snapshot_item_dict(item: MemoryItem) -> dict:
    """An item as a snapshot stores it: ``MemoryItem.as_dict()`` plus ``confirmed_at``
    (ISO 8601), so a restore also restores which items the token cap keeps."""
    d = item.as_dict()
    d["confirmed_at"] = item.confirmed_at.isoformat()
    return d


def current_item_dicts(*, user_id: int) -> list[dict]:
    """The user's current items as snapshot dicts, in id order."""
    return [snapshot_item_dict(i) for i in MemoryItem.objects.current().filter(user_id=user_id).order_by("id")]


@transaction.atomic
def snapshot_create(*, user_id: int, reason: str, now: dt.datetime | None = None, actor=None) -> Snapshot:
    """Save the user's current items and MEMORY.md as the next version; keep the newest K.

    ``reason`` is a :class:`SnapshotReason` value. K is ``BIZMEMORY['SNAPSHOTS_KEEP']``
    (≥ 2, system check E005); older versions are deleted. A ``manual`` snapshot is audited.
    Returns the new :class:`Snapshot`.
    """
    now = now or timezone.now()
    doc = MemoryDocument.objects.filter(user_id=user_id).first()
    last = Snapshot.objects.filter(user_id=user_id).aggregate(v=Max("version"))["v"] or 0
    snap = Snapshot.objects.create(
        user_id=user_id, version=last + 1, reason=reason, items=current_item_dicts(user_id=user_id),
        memory_md=doc.markdown if doc else "", created_at=now,
    )
    keep = settings.BIZMEMORY["SNAPSHOTS_KEEP"]
    old = list(Snapshot.objects.filter(user_id=user_id).order_by("-version").values_list("pk", flat=True)[keep:])
    if old:
        Snapshot.objects.filter(pk__in=old).delete()
    if reason == SnapshotReason.MANUAL:
        audit_record(
            action="memory.snapshot_created", actor=actor, subject_user_id=user_id, target_type="snapshot",
            target_id=str(snap.pk), details={"version": snap.version, "items": len(snap.items)},
        )
    return snap


def _snapshot_markdown(item_dicts: list[dict]) -> str:
    """MEMORY.md for a list of snapshot item dicts, rendered as for current items."""
    items = []
    for d in item_dicts:
        item = MemoryItem(**_item_fields(d))
        item.pk = d.get("id")
        items.append(item)
    md, _ = render_memory_markdown(items, max_tokens=settings.BIZMEMORY["MEMORY_DOCUMENT_TOKENS"])
    return md


def snapshots_rectify(*, user_id: int, replacements: dict[int, dict | None], exclude_pk: int | None = None) -> int:
    """Rewrite the user's retained snapshots so that items that left memory are not kept there.

    ``replacements`` maps the id of an item that left current memory to the snapshot dict
    (:func:`snapshot_item_dict`) of the item that superseded it, or to ``None`` when it was
    retracted or deleted. In each snapshot holding such an item, the item is replaced by its
    successor (unless the snapshot already holds the successor, then it is dropped) or
    dropped; the snapshot's MEMORY.md is re-rendered from the rectified items. Snapshots
    without such items are not touched (their MEMORY.md stays byte-identical).
    ``exclude_pk`` skips one snapshot (e.g. the one just taken). Call inside the
    transaction that made the change. Returns the number of snapshots rewritten.
    """
    if not replacements:
        return 0
    rewritten = 0
    snaps = Snapshot.objects.filter(user_id=user_id).order_by("version")
    if exclude_pk is not None:
        snaps = snaps.exclude(pk=exclude_pk)
    for snap in snaps:
        ids = {d.get("id") for d in snap.items}
        if not ids & set(replacements):
            continue
        items = []
        for d in snap.items:
            if d.get("id") not in replacements:
                items.append(d)
                continue
            successor, seen = replacements[d["id"]], {d["id"]}
            while successor is not None and successor.get("id") in replacements and successor["id"] not in seen:
                seen.add(successor["id"])  # superseded twice since: follow to the last value
                successor = replacements[successor["id"]]
            if successor is not None and successor.get("id") not in ids:
                items.append(successor)
                ids.add(successor["id"])
        snap.items = sorted(items, key=lambda d: d.get("id") or 0)  # id order, as snapshot_create stores them
        snap.memory_md = _snapshot_markdown(items)
        snap.save(update_fields=["items", "memory_md"])
        rewritten += 1
    return rewritten


def _item_fields(d: dict) -> dict:
    valid_from = parse_datetime(d["valid_from"])
    return {
        "kind": d["kind"],
        "key": d["key"],
        "value": d["value"],
        "text": d.get("text", ""),
        "fact_date": parse_date(d["fact_date"]) if d.get("fact_date") else None,
        "valid_from": valid_from,
        "confirmed_at": parse_datetime(d["confirmed_at"]) if d.get("confirmed_at") else valid_from,
        "source_message_ids": list(d.get("source_message_ids") or []),
        "valid_until": None,
    }


@transaction.atomic
def snapshot_restore(*, user_id: int, version: int, actor=None, now: dt.datetime | None = None) -> Snapshot:
    """Replace the user's current memory with snapshot ``version``, in one transaction.

    First the current state is saved as a ``rollback_point`` snapshot; then every
    current item not in the snapshot is closed (``valid_until = now``, kept as
    history), every snapshot item is made current again with its stored fields (same
    id; re-created with that id if it was deleted), MEMORY.md is set to the
    snapshot's text byte for byte, the memory version is bumped, pending
    confirmations that no longer apply are dismissed, a ``restore`` snapshot is
    taken and the action is audited (ids and counts only).
    Returns the rollback-point :class:`Snapshot` (restore it to undo).
    Raises :class:`SnapshotNotFound` when the version is not retained.
    """
    now = now or timezone.now()
    target = Snapshot.objects.filter(user_id=user_id, version=version).first()
    if target is None:
        raise SnapshotNotFound(f"no snapshot version {version} for this user")
    target_items = list(target.items)
    target_md = target.memory_md
    rollback = snapshot_create(user_id=user_id, reason=SnapshotReason.ROLLBACK_POINT, now=now)
    wanted = {d["id"]: d for d in target_items}
    closed = MemoryItem.objects.current().filter(user_id=user_id).exclude(pk__in=list(wanted)).update(valid_until=now)
    existing = {i.pk: i for i in MemoryItem.objects.filter(user_id=user_id, pk__in=list(wanted))}
    taken = set(MemoryItem.objects.filter(pk__in=list(wanted)).exclude(user_id=user_id).values_list("pk", flat=True))
    for item_id, d in wanted.items():
        fields = _item_fields(d)
        item = existing.get(item_id)
        if item is None:
            # Deleted since (e.g. by self-correction): bring it back under its old id when free.
            item = MemoryItem(user_id=user_id, **fields)
            if item_id not in taken:
                item.pk = item_id
            item.save(force_insert=True)
            continue
        for name, value in fields.items():
            setattr(item, name, value)
        item.save(update_fields=list(fields))
    doc, _ = MemoryDocument.objects.get_or_create(user_id=user_id)
    doc.markdown = target_md
    doc.tokens = count_tokens(target_md)
    doc.version += 1
    doc.save(update_fields=["markdown", "tokens", "version", "updated_at"])
    memory_version_bump(user_id=user_id, now=now)
    current_ids = set(MemoryItem.objects.current().filter(user_id=user_id).values_list("pk", flat=True))
    stale = [
        c.pk for c in ConfirmationRequest.objects.filter(user_id=user_id, status=ConfirmationStatus.PENDING)
        if c.new_item_id not in current_ids
    ]
    if stale:
        ConfirmationRequest.objects.filter(pk__in=stale).update(status=ConfirmationStatus.DISMISSED, resolved_at=now)
    after = snapshot_create(user_id=user_id, reason=SnapshotReason.RESTORE, now=now)
    memory_index_sync(user_id=user_id)
    audit_record(
        action="memory.restored", actor=actor, subject_user_id=user_id, target_type="snapshot", target_id=str(after.pk),
        details={
            "restored_version": version, "rollback_version": rollback.version, "items": len(wanted), "closed": closed,
        },
    )
    return rollback
