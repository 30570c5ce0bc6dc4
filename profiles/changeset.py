"""The one write path of a user's memory: :func:`memory_changeset`.

Every change to a user's current memory — consolidation, a rejected confirmation, a staff
restore, a user's delete or clear-all, a delete in the Django admin — runs inside one
changeset, whatever the caller (issue 15, "one write path"). The caller changes the rows; the
changeset does the follow-ups, in one place and in this order, inside the same transaction:

1. the memory version is bumped (compare-and-set when the caller planned on a version:
   ``expected_version``; :class:`ChangesetConflict` when another writer got there first);
2. MEMORY.md is re-rendered from the current items (or set to an exact text: ``document``);
3. a snapshot of the new state is taken (``snapshot=False`` for changes that leave nothing to
   version, e.g. clear-all, which also deletes the snapshots);
4. retained older snapshots are rectified (``left``: items that left memory, mapped to their
   successor or ``None``), so a restore never brings back what the user corrected or deleted;
5. the change is audited (``audit``), ids, kinds and counts only — never memory text.

After the transaction commits, derived state (search index, context pack) is rebuilt
(:func:`profiles.derived.derived_state_after_commit`), never inside it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from audit.services import audit_record

from .derived import derived_state_after_commit
from .versions import memory_document_refresh, memory_document_set, memory_version_bump, snapshot_create, snapshots_rectify


class ChangesetConflict(Exception):
    """The memory version moved since the caller read it (lost compare-and-set); nothing was written."""


@dataclass
class MemoryChangeset:
    """What one change of a user's memory must follow up; filled by the caller inside the block.

    ``left``: ``{item id: successor snapshot dict or None}`` for items that left current memory
    (rectified out of older snapshots). ``document``: exact MEMORY.md text to store instead of a
    re-render (a restore). ``render``: re-render MEMORY.md on close (clear-all deletes it instead).
    ``snapshot``: take a snapshot on close. ``audit``: ``(action,
    target_type, target_id, details)`` recorded on close, or None. ``snapshot_version`` is set
    on close when a snapshot was taken.
    """

    user_id: int
    reason: str
    actor: object = None
    now: dt.datetime = field(default_factory=timezone.now)
    version_bumped: bool = False
    snapshot: bool = True
    render: bool = True
    document: str | None = None
    left: dict[int, dict | None] = field(default_factory=dict)
    audit: tuple[str, str, str, dict] | None = None
    snapshot_version: int | None = None

    def audit_as(self, action: str, *, target_type: str, target_id: str | None, details: dict) -> None:
        """Record ``action`` on close (one audit row per changeset); ``target_id`` None names
        the MEMORY.md document the close renders (``target_type="memory_document"``)."""
        self.audit = (action, target_type, target_id, details)

    def _close(self) -> None:
        if not self.version_bumped:
            memory_version_bump(user_id=self.user_id, now=self.now)
        doc = None
        if self.document is not None:
            doc = memory_document_set(user_id=self.user_id, markdown=self.document)
        elif self.render:
            doc = memory_document_refresh(user_id=self.user_id)
        snap = None
        if self.snapshot:
            snap = snapshot_create(user_id=self.user_id, reason=self.reason, now=self.now)
            self.snapshot_version = snap.version
        if self.left:
            snapshots_rectify(user_id=self.user_id, replacements=self.left, exclude_pk=snap.pk if snap else None)
        if self.audit is not None:
            action, target_type, target_id, details = self.audit
            if target_id is None and doc is not None:  # "the document this change rendered"
                target_id = str(doc.pk)
            if self.snapshot_version is not None:
                details = {**details, "snapshot": self.snapshot_version}
            audit_record(
                action=action, actor=self.actor, subject_user_id=self.user_id, target_type=target_type,
                target_id=target_id, details=details,
            )


@contextlib.contextmanager
def memory_changeset(
    *, user_id: int, reason: str, actor=None, now: dt.datetime | None = None, expected_version: int | None = None,
):
    """Open one atomic change of ``user_id``'s memory; yields a :class:`MemoryChangeset`.

    Inputs: the user's primary key; ``reason`` a ``profiles.models.SnapshotReason`` value (the
    snapshot taken on close carries it); ``actor`` (a user or None: the audit row's actor);
    ``now`` (aware datetime; default the current time); ``expected_version`` — when given, the
    version is bumped first by compare-and-set from that value. The block's own row changes and
    the follow-ups (module docstring) commit together or not at all; an exception in the block
    rolls everything back and propagates. Derived state is rebuilt after commit.
    Raises :class:`ChangesetConflict` when ``expected_version`` is no longer current.
    Rule: issue 15, "every change to a user's memory goes through one service".
    """
    cs = MemoryChangeset(user_id=user_id, reason=reason, actor=actor, now=now or timezone.now())
    with transaction.atomic():
        if expected_version is not None:
            if not memory_version_bump(user_id=user_id, expected=expected_version, now=cs.now):
                raise ChangesetConflict(f"memory version of user {user_id} is no longer {expected_version}")
            cs.version_bumped = True
        yield cs
        cs._close()
    derived_state_after_commit(user_id=user_id)
