"""Consolidation service: pending journal → memory items → MEMORY.md → snapshot.

A run **plans** in memory, then **applies** the plan in one transaction guarded by
compare-and-set; nothing is written when the plan is refused.

Batches. Pending journal entries are read in id order in batches of at most
``BIZMEMORY['CONSOLIDATION_BATCH_TOKENS']`` tiktoken tokens (an entry larger than the
budget forms a batch of its own), at most ``CONSOLIDATION_MAX_BATCHES`` batches per
run; the rest stays pending for the next run. Two runs for one user are at least
``CONSOLIDATION_MIN_INTERVAL_SECONDS`` apart unless forced.

Merge rules (one current value per ``(kind, policy.merge_key)``):

* the same value again (case/space-insensitive) is the same item: only ``confirmed_at``
  and its sources are refreshed; a fact keeps the date it was first given;
* dated facts (registry merge ``event``) stand side by side: a different value for the key is a
  new event, only a near-duplicate replaces;
* a different value for the key replaces it (latest wins): the old item keeps its
  ``valid_until`` (history kept, not served) and, for facts, its ``fact_date``;
  preferences merge by topic (``pref:<topic>[:<sub>]``), facts by
  ``fact:<topic>[:<member>]``;
* a near-duplicate under another key of the same family (``skill:*``, ``pref:<topic>:*``,
  ``fact:<topic>:*``) — :func:`near_duplicate`, difflib ratio ≥ :data:`NEAR_DUP_RATIO` on
  values of ≥ :data:`NEAR_DUP_MIN_CHARS` characters — updates that item rather than adding;
* a contradiction that matters (keys in :data:`CONFIRM_KEYS`: city, role, company,
  department) makes the new value current and opens a pending
  :class:`~consolidation.models.ConfirmationRequest` (not for near-duplicates);
* a new ``company`` retires the ``responsibility`` items stated before it (duties belong to
  the old job; superseded, not lost, and rectified out of older snapshots) — when a company was
  known before, or the same message holds a ``fact:job_change`` (the first employer named may
  otherwise be the same job);
* ``retract`` closes the current value(s) matching the retracted value;
* an entry observed before the current value of its key became valid (``valid_from``,
  e.g. the user edited it meanwhile) changes nothing — the newer value stays.

Self-correction. After the journal, every current item is re-checked with
:func:`consolidation.policy.item_policy_violation`; violators are deleted and each
deletion is audited (``memory.item_removed``: id, kind, reason code — never text).
Items an admin kept by rejecting a proposal are exempt.

Loss guard. A *removal* is an item current at the start of the run that the run
closes or deletes **without a replacement** (retractions and self-correction; a
latest-value-wins replacement or near-duplicate update is not a removal). When
``removed >= LOSS_GUARD_MIN_REMOVALS`` (2: one retraction alone never trips it) and
``removed > BIZMEMORY['CONSOLIDATION_MAX_LOSS_SHARE'] × items_at_start``, nothing is
applied: a :class:`~consolidation.models.ConsolidationProposal` is stored and audited,
its entries stay pending, and the user's consolidations wait (status ``held``) until an
admin approves (:func:`proposal_approve`) or rejects (:func:`proposal_reject`) it.

Concurrency. The plan records the user's memory version and a fingerprint of the current
items. It is applied only if ``MemoryVersion.version`` is unchanged (conditional UPDATE,
row count checked), the fingerprint still matches, every claimed journal entry is still
pending and every touched item is still current; otherwise the transaction rolls back
and the run re-plans (up to :data:`CAS_ATTEMPTS` times) or returns ``deferred``. So
entries and items written while a run was planning are never overwritten.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from audit.services import audit_record
from profiles.changeset import ChangesetConflict, memory_changeset
from profiles.models import (
    ConfirmationRequest, ConfirmationStatus, ConsolidationProposal, MemoryItem, MemorySettings, ProposalStatus,
    SnapshotReason,
)
from profiles.taxonomy import CONFIRM_NAMES, key_name, key_spec
from profiles.versions import memory_version_read, snapshot_item_dict

from .due import consolidation_due_mark
from .models import JournalEntry, JournalStatus
from .policy import item_policy_violation, key_family, merge_key
from .supersession import STYLE_WORDS, weak_model_stage

__all__ = [
    "ConsolidationResult", "ProposalError", "consolidation_run", "proposal_approve", "proposal_reject", "near_duplicate",
]

CONFIRM_KEYS = CONFIRM_NAMES  # the key registry's confirm flag: city, role, company, department
NEAR_DUP_RATIO = 0.85
NEAR_DUP_MIN_CHARS = 4
LOSS_GUARD_MIN_REMOVALS = 2
CAS_ATTEMPTS = 3
_CHUNK = 500


class ProposalError(ValueError):
    """The proposal is not pending (already resolved) or could not be applied."""


class _Conflict(Exception):
    """Memory changed between planning and applying (lost compare-and-set)."""


@dataclass
class ConsolidationResult:
    """Outcome of one run.

    ``status``: ``done`` (applied), ``nothing_pending`` (nothing to change), ``too_soon``
    (retry at ``retry_at``), ``held`` (loss guard; ``proposal_id`` awaits an admin) or
    ``deferred`` (lost the compare-and-set ``CAS_ATTEMPTS`` times; run again).
    Counts are of journal entries and memory items; ``retries`` is how many plans were
    discarded because memory changed while planning.
    """

    status: str
    batches: int = 0
    entries: int = 0
    items_added: int = 0
    items_closed: int = 0
    items_removed: int = 0
    confirmations: int = 0
    pending_left: int = 0
    snapshot_version: int | None = None
    retry_at: dt.datetime | None = None
    retries: int = 0
    proposal_id: int | None = None


def _norm(value: str) -> str:
    return " ".join((value or "").casefold().split())


def near_duplicate(a: str, b: str, *, same_key: bool = False) -> bool:
    """True when two values say the same thing in other words.

    Rule: after case-folding and collapsing spaces, ``difflib.SequenceMatcher`` ratio
    ≥ :data:`NEAR_DUP_RATIO` with both values ≥ :data:`NEAR_DUP_MIN_CHARS` characters;
    for values of the same key, also when one contains the other (``深圳`` / ``深圳市``).
    Values that both carry numbers and whose numbers differ are never near-duplicates.
    """
    a, b = _norm(a), _norm(b)
    if a == b:
        return True
    if not a or not b:
        return False
    if same_key and (a in b or b in a):
        return True
    if min(len(a), len(b)) < NEAR_DUP_MIN_CHARS:
        return False
    da, db = re.findall(r"\d+", a), re.findall(r"\d+", b)
    if da and db and da != db:
        return False  # "plan 2" is not "plan 3": values whose numbers differ are different things
    return difflib.SequenceMatcher(None, a, b).ratio() >= NEAR_DUP_RATIO


def _family(kind: str, mkey: str) -> str:
    # Cross-key near-duplicates only within a family: skill:*, pref:<topic>:*, fact:<topic>:*.
    parts = mkey.split(":")
    return ":".join(parts[:2]) if kind in ("preference", "fact") else parts[0]


@dataclass(eq=False)
class _Slot:
    """Working copy of one item during planning."""

    item: MemoryItem
    mkey: str
    new: bool = False
    seen: tuple | None = None  # (value, confirmed_at) as read — compare-and-set on apply
    closed_at: dt.datetime | None = None
    replaced: bool = False
    touched: bool = False
    removed_reason: str | None = None
    replaced_by: "_Slot | None" = None

    @property
    def current(self) -> bool:
        return self.closed_at is None and self.removed_reason is None


@dataclass
class _Plan:
    user_id: int
    version: int
    fingerprint: list
    slots: list[_Slot]
    start_ids: set[int]
    entries: list[JournalEntry] = field(default_factory=list)
    batches: int = 0
    confirmations: list[tuple[str, _Slot, _Slot]] = field(default_factory=list)

    def current(self, kind: str, mkey: str) -> list[_Slot]:
        return [s for s in self.slots if s.current and s.item.kind == kind and s.mkey == mkey]

    def removals(self) -> list[_Slot]:
        return [s for s in self.slots if not s.new and s.item.pk in self.start_ids and not s.current and not s.replaced]


def _fingerprint(user_id: int) -> list:
    return list(
        MemoryItem.objects.current().filter(user_id=user_id).order_by("id").values_list("id", "value", "confirmed_at")
    )


def _pending_entries(user_id: int, cfg: dict, entry_ids: list[int] | None) -> tuple[list[JournalEntry], int]:
    budget, max_batches = cfg["CONSOLIDATION_BATCH_TOKENS"], cfg["CONSOLIDATION_MAX_BATCHES"]
    qs = JournalEntry.objects.filter(user_id=user_id, status=JournalStatus.PENDING).order_by("id")
    if entry_ids is not None:
        qs = qs.filter(pk__in=entry_ids)
    taken, batches, used = [], 0, 0
    for entry in qs.iterator(chunk_size=_CHUNK):
        if batches == 0 or (used and used + entry.tokens > budget):
            if batches == max_batches:
                break
            batches, used = batches + 1, 0
        taken.append(entry)
        used += entry.tokens
    return taken, batches


def _touch(slot: _Slot, entry: JournalEntry) -> None:
    item = slot.item
    item.confirmed_at = max(item.confirmed_at, entry.observed_at)
    item.source_message_ids = sorted(set(item.source_message_ids or []) | set(entry.source_message_ids or []))
    if item.kind == "fact" and item.fact_date is None and entry.fact_date:
        item.fact_date = entry.fact_date  # facts keep the date first given; fill it only when missing
    slot.touched = True


def _apply_entry(plan: _Plan, entry: JournalEntry) -> None:
    mkey = merge_key(kind=entry.kind, key=entry.key)
    same_key = plan.current(entry.kind, mkey)
    if same_key and all(s.item.valid_from > entry.observed_at for s in same_key):
        return  # said before the current value became valid (e.g. a user edit meanwhile): history, not news
    if entry.operation == "retract":
        hits = [s for s in same_key if not entry.value or near_duplicate(s.item.value, entry.value, same_key=True)]
        for s in hits:
            s.closed_at = entry.observed_at
        return
    for s in same_key:
        if _norm(s.item.value) == _norm(entry.value):
            _touch(s, entry)
            return
    replaced = list(same_key)
    spec = key_spec(kind=entry.kind, key=mkey)
    if same_key and spec is not None and spec.merge == "latest" and weak_model_stage(entry.stage) and not _fact_in_message(
            plan, entry, names=("job_change", "relocation")):
        return  # a value the model was unsure of does not replace one already held (see below)
    if spec is not None and spec.merge == "event":
        # Dated facts are events: another relocation stands beside the first; only the same event
        # said again (a near-duplicate value) takes its place.
        replaced = [s for s in same_key if near_duplicate(s.item.value, entry.value, same_key=True)]
    if entry.kind == "preference" and entry.operation == "set":
        replaced += _style_instructions(plan, mkey, entry)
    if not replaced:
        fam = _family(entry.kind, mkey)
        replaced = [
            s for s in plan.slots
            if s.current and s.item.kind == entry.kind and _family(s.item.kind, s.mkey) == fam
            and near_duplicate(s.item.value, entry.value)
        ][:1]
    key = entry.key if entry.key.lower() == mkey else mkey
    new = _Slot(
        MemoryItem(
            user_id=entry.user_id, kind=entry.kind, key=key, value=entry.value, text=entry.text,
            source_message_ids=list(entry.source_message_ids or []), source_session_id=entry.session_id,
            fact_date=entry.fact_date, valid_from=entry.observed_at, confirmed_at=entry.observed_at,
        ),
        mkey,
        new=True,
    )
    for s in replaced:
        s.closed_at = entry.observed_at
        s.replaced = True
        s.replaced_by = new
        if entry.kind == "fact" and near_duplicate(s.item.value, entry.value, same_key=True) and s.item.fact_date:
            new.item.fact_date = s.item.fact_date  # the same event said again keeps its date
    if entry.kind == "profile" and key_family(kind="profile", key=mkey) == "company" and (
            same_key or _fact_in_message(plan, entry)):
        # A new employer retires the duties the user stated for the old one (said before this
        # message); they are superseded by the change, not lost (the loss guard does not count them).
        # With no employer known before, the same message must say it is a change ("I joined
        # Northwind Grid two weeks ago as …": heldout ho-en-001), or it may be the same job.
        for s in plan.slots:
            if (
                s.current and s.item.kind == "profile" and _family("profile", s.mkey) == "responsibility"
                and s.item.valid_from < entry.observed_at
            ):
                s.closed_at = entry.observed_at
                s.replaced = True
    if (
        entry.kind == "profile" and key_family(kind="profile", key=mkey) in CONFIRM_KEYS and len(same_key) == 1
        and not near_duplicate(same_key[0].item.value, entry.value, same_key=True)
    ):
        plan.confirmations.append((mkey, same_key[0], new))
    plan.slots.append(new)


def _style_instructions(plan: _Plan, mkey: str, entry: JournalEntry) -> list[_Slot]:
    """Current ``pref:instruction:*`` slots worded about the answer style ``entry`` sets (see
    :data:`consolidation.supersession.STYLE_WORDS`), said before it: a new value of that style supersedes them."""
    words = STYLE_WORDS.get(mkey)
    if words is None:
        return []
    return [
        s for s in plan.slots
        if s.current and s.item.kind == "preference" and s.mkey.startswith("pref:instruction")
        and s.item.valid_from < entry.observed_at and words.search(s.item.value)
    ]


def _fact_in_message(plan: _Plan, entry: JournalEntry, names: tuple[str, ...] = ("job_change",)) -> bool:
    """True when a fact entry of this run whose key name is in ``names`` (default ``job_change``)
    came from a message ``entry`` came from."""
    sources = set(entry.source_message_ids or [])
    return bool(sources) and any(
        e.kind == "fact" and key_name(kind="fact", key=e.key) in names and sources & set(e.source_message_ids or [])
        for e in plan.entries
    )


def _successor(slot: _Slot) -> dict | None:
    """The snapshot dict of the item that finally took ``slot``'s place, None when it was
    retracted or removed (after ``_write``: every new slot has its pk)."""
    seen = set()
    nxt = slot.replaced_by
    while nxt is not None and id(nxt) not in seen:
        seen.add(id(nxt))
        if nxt.current:
            return snapshot_item_dict(nxt.item)
        nxt = nxt.replaced_by
    return None


def _left_memory(plan: _Plan) -> dict[int, dict | None]:
    """Item id → successor dict (or None) for every item the user's own newer statements took
    out of current memory (superseded or retracted). Items removed by self-correction
    (``removed_reason``) are not listed: an older snapshot is how staff undo a wrong removal."""
    return {
        s.item.pk: _successor(s)
        for s in plan.slots
        if not s.new and s.item.pk in plan.start_ids and s.closed_at is not None and s.removed_reason is None
    }


def _exempt_ids(user_id: int) -> set[int]:
    ids = set()
    for removals in ConsolidationProposal.objects.filter(user_id=user_id, status=ProposalStatus.REJECTED).values_list(
        "removals", flat=True
    ):
        ids.update(r["item_id"] for r in removals if r.get("reason") != "retract")
    return ids


def _plan(user_id: int, cfg: dict, entry_ids: list[int] | None) -> _Plan:
    version = memory_version_read(user_id=user_id)
    items = list(MemoryItem.objects.current().filter(user_id=user_id).order_by("id"))
    plan = _Plan(
        user_id=user_id, version=version,
        fingerprint=[(i.pk, i.value, i.confirmed_at) for i in items],
        slots=[_Slot(i, merge_key(kind=i.kind, key=i.key), seen=(i.value, i.confirmed_at)) for i in items],
        start_ids={i.pk for i in items},
    )
    plan.entries, plan.batches = _pending_entries(user_id, cfg, entry_ids)
    for entry in plan.entries:
        _apply_entry(plan, entry)
    exempt = _exempt_ids(user_id)
    for s in plan.slots:
        if s.current and s.item.pk not in exempt:
            reason = item_policy_violation(kind=s.item.kind, key=s.item.key, value=s.item.value, text=s.item.text)
            if reason:
                s.removed_reason = reason
    return plan


def _guard_trips(plan: _Plan, cfg: dict) -> bool:
    removed = len(plan.removals())
    share = cfg["CONSOLIDATION_MAX_LOSS_SHARE"]
    return removed >= LOSS_GUARD_MIN_REMOVALS and removed > share * len(plan.start_ids)


def _hold(plan: _Plan, now: dt.datetime) -> ConsolidationProposal:
    removals = [
        {"item_id": s.item.pk, "reason": s.removed_reason or "retract"} for s in plan.removals()
    ]
    with transaction.atomic():
        proposal = ConsolidationProposal.objects.create(
            user_id=plan.user_id, journal_entry_ids=[e.pk for e in plan.entries], removals=removals,
            items_at_start=len(plan.start_ids), removed=len(removals), created_at=now,
        )
        audit_record(
            action="memory.consolidation_held", subject_user_id=plan.user_id, target_type="consolidation_proposal",
            target_id=str(proposal.pk),
            details={"items_at_start": len(plan.start_ids), "removed": len(removals), "entries": len(plan.entries)},
        )
    return proposal


def _write(plan: _Plan, now: dt.datetime, result: ConsolidationResult) -> bool:
    """Apply a plan inside its changeset (the version was already compare-and-set); raises
    _Conflict when memory changed since planning. Returns whether items changed."""
    if _fingerprint(plan.user_id) != plan.fingerprint:
        raise _Conflict("items")
    ids = [e.pk for e in plan.entries]
    for i in range(0, len(ids), _CHUNK):
        chunk = ids[i:i + _CHUNK]
        claimed = JournalEntry.objects.filter(pk__in=chunk, status=JournalStatus.PENDING).update(
            status=JournalStatus.ARCHIVED, consolidated_at=now
        )
        if claimed != len(chunk):
            raise _Conflict("journal")
    changed = False
    for s in plan.slots:
        if s.new:
            continue
        value, confirmed_at = s.seen
        same = MemoryItem.objects.filter(pk=s.item.pk, valid_until__isnull=True, value=value, confirmed_at=confirmed_at)
        if s.removed_reason:
            if same.delete()[0] < 1:
                raise _Conflict("item")
            audit_record(
                action="memory.item_removed", subject_user_id=plan.user_id, target_type="memory_item",
                target_id=str(s.item.pk), details={"reason": s.removed_reason, "kind": s.item.kind, "by": "policy"},
            )
            result.items_removed += 1
            changed = True
        elif s.closed_at is not None:
            if same.update(valid_until=s.closed_at) != 1:
                raise _Conflict("item")
            result.items_closed += 1
            changed = True
        elif s.touched:
            if same.update(
                confirmed_at=s.item.confirmed_at, source_message_ids=s.item.source_message_ids, fact_date=s.item.fact_date
            ) != 1:
                raise _Conflict("item")
    new_items = []
    for s in plan.slots:
        if s.new and s.removed_reason is None:
            if s.closed_at is not None:
                s.item.valid_until = s.closed_at
            new_items.append(s.item)
    if connection.features.can_return_rows_from_bulk_insert:
        MemoryItem.objects.bulk_create(new_items, batch_size=_CHUNK)  # sets pks (SQLite ≥ 3.35, PostgreSQL, MariaDB ≥ 10.5)
    else:
        for item in new_items:
            item.save(force_insert=True)
    result.items_added += len(new_items)
    changed = changed or bool(new_items)
    for mkey, old, new in plan.confirmations:
        if old.removed_reason or new.removed_reason or not new.current:
            continue
        ConfirmationRequest.objects.filter(
            user_id=plan.user_id, key=mkey, status=ConfirmationStatus.PENDING
        ).update(status=ConfirmationStatus.DISMISSED, resolved_at=now)
        ConfirmationRequest.objects.create(
            user_id=plan.user_id, key=mkey, old_item_id=old.item.pk, new_item_id=new.item.pk, created_at=now
        )
        result.confirmations += 1
    return changed


def _consolidate(
    *, user_id: int, now: dt.datetime, cfg: dict, entry_ids: list[int] | None, guard: bool, reason: str,
    on_planned=None,
) -> ConsolidationResult:
    result = ConsolidationResult("nothing_pending")
    for attempt in range(CAS_ATTEMPTS):
        plan = _plan(user_id, cfg, entry_ids)
        if on_planned is not None:
            on_planned(attempt)
        if guard and _guard_trips(plan, cfg):
            proposal = _hold(plan, now)
            result.status, result.proposal_id = "held", proposal.pk
            break
        if not plan.entries and not any(s.removed_reason for s in plan.slots):
            result = ConsolidationResult("nothing_pending", retries=attempt)
            break
        attempt_result = ConsolidationResult("done", batches=plan.batches, entries=len(plan.entries), retries=attempt)
        try:
            with memory_changeset(user_id=user_id, reason=reason, now=now, expected_version=plan.version) as cs:
                changed = _write(plan, now, attempt_result)
                if plan.entries or changed:
                    cs.snapshot = changed
                    if changed:
                        cs.left = _left_memory(plan)
                    MemorySettings.objects.filter(user_id=user_id).update(last_consolidation_at=now)
                    cs.audit_as("memory.consolidated", target_type="memory_document", target_id=None, details={
                        "entries": attempt_result.entries, "added": attempt_result.items_added,
                        "closed": attempt_result.items_closed, "removed": attempt_result.items_removed,
                        "confirmations": attempt_result.confirmations,
                    })
                else:
                    cs.snapshot = False
                    attempt_result.status = "nothing_pending"
            attempt_result.snapshot_version = cs.snapshot_version
        except (_Conflict, ChangesetConflict):
            result.retries = attempt + 1
            result.status = "deferred"
            continue
        result = attempt_result
        break
    result.pending_left = JournalEntry.objects.filter(user_id=user_id, status=JournalStatus.PENDING).count()
    return result


def consolidation_run(
    *, user_id: int, now: dt.datetime | None = None, force: bool = False, on_planned=None,
) -> ConsolidationResult:
    """Merge a user's pending journal into memory items, self-correct, re-render MEMORY.md, snapshot.

    Inputs: the user's primary key, the clock ``now`` (aware datetime; default: now),
    ``force`` (ignore the minimum interval) and ``on_planned`` — an optional
    ``callable(attempt: int)`` run after each plan is made and before it is applied
    (instrumentation and tests: a write it makes must survive). Returns a
    :class:`ConsolidationResult`; see the module docstring for the rules. The whole
    run is one transaction: on error nothing is applied and the entries stay pending.
    """
    now = now or timezone.now()
    cfg = settings.BIZMEMORY
    ms = MemorySettings.objects.get(user_id=user_id)
    interval = dt.timedelta(seconds=cfg["CONSOLIDATION_MIN_INTERVAL_SECONDS"])
    if not force and ms.last_consolidation_at and now - ms.last_consolidation_at < interval:
        return ConsolidationResult("too_soon", retry_at=ms.last_consolidation_at + interval)
    waiting = ConsolidationProposal.objects.filter(user_id=user_id, status=ProposalStatus.PENDING).first()
    if waiting is not None:
        pending = JournalEntry.objects.filter(user_id=user_id, status=JournalStatus.PENDING).count()
        return ConsolidationResult("held", proposal_id=waiting.pk, pending_left=pending)
    return _consolidate(
        user_id=user_id, now=now, cfg=cfg, entry_ids=None, guard=True, reason=SnapshotReason.CONSOLIDATION,
        on_planned=on_planned,
    )


def proposal_approve(*, proposal_id: int, actor=None, now: dt.datetime | None = None) -> ConsolidationResult:
    """Apply a held consolidation (loss guard off) for exactly its journal entries; audited.

    Inputs: the proposal id, the approving admin ``actor`` (a user or None) and the clock.
    Returns the :class:`ConsolidationResult` of the applied run. Raises
    :class:`ProposalError` when the proposal is not pending or memory kept changing
    (``deferred``); nothing is changed then.
    """
    now = now or timezone.now()
    with transaction.atomic():
        proposal = ConsolidationProposal.objects.filter(pk=proposal_id).first()
        if proposal is None or not ConsolidationProposal.objects.filter(
            pk=proposal_id, status=ProposalStatus.PENDING
        ).update(status=ProposalStatus.APPROVED, resolved_at=now, resolved_by=actor):
            raise ProposalError(f"proposal {proposal_id} is not pending")
        result = _consolidate(
            user_id=proposal.user_id, now=now, cfg=settings.BIZMEMORY, entry_ids=list(proposal.journal_entry_ids),
            guard=False, reason=SnapshotReason.PROPOSAL,
        )
        if result.status == "deferred":
            raise ProposalError("memory kept changing while applying; try again")
        audit_record(
            action="memory.proposal_approved", actor=actor, subject_user_id=proposal.user_id,
            target_type="consolidation_proposal", target_id=str(proposal.pk),
            details={"removed": result.items_removed + result.items_closed, "entries": result.entries},
        )
        _due_if_pending(user_id=proposal.user_id, now=now)
    return result


def _due_if_pending(*, user_id: int, now: dt.datetime) -> None:
    # A held user's other pending entries wait for the proposal (consolidation.due settles a
    # held run to "nothing due"): once it is resolved, the user is due again.
    if JournalEntry.objects.filter(user_id=user_id, status=JournalStatus.PENDING).exists():
        consolidation_due_mark(user_id=user_id, now=now)


def proposal_reject(*, proposal_id: int, actor=None, now: dt.datetime | None = None) -> ConsolidationProposal:
    """Refuse a held consolidation: its journal entries are archived unapplied and the items it
    would have removed by policy are kept (exempt from self-correction from now on); audited.
    Raises :class:`ProposalError` when the proposal is not pending."""
    now = now or timezone.now()
    with transaction.atomic():
        if not ConsolidationProposal.objects.filter(pk=proposal_id, status=ProposalStatus.PENDING).update(
            status=ProposalStatus.REJECTED, resolved_at=now, resolved_by=actor
        ):
            raise ProposalError(f"proposal {proposal_id} is not pending")
        proposal = ConsolidationProposal.objects.get(pk=proposal_id)
        JournalEntry.objects.filter(pk__in=proposal.journal_entry_ids, status=JournalStatus.PENDING).update(
            status=JournalStatus.ARCHIVED, consolidated_at=now
        )
        audit_record(
            action="memory.proposal_rejected", actor=actor, subject_user_id=proposal.user_id,
            target_type="consolidation_proposal", target_id=str(proposal.pk), details={"entries": len(proposal.journal_entry_ids)},
        )
        _due_if_pending(user_id=proposal.user_id, now=now)
    return proposal
