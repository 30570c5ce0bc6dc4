"""Write services for users, agents, memory switches and the user's own memory controls.

Every function is keyword-only and transactional; views, tasks, commands and
tests all call these rather than touching the models directly.
"""

from __future__ import annotations

import datetime as dt
import uuid

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import IntegrityError, transaction
from django.utils import timezone

from audit.models import QuarantineRecord
from audit.permissions import RESTORE, permission_require
from audit.services import audit_record, quarantine_clear_user

from .changeset import memory_changeset
from .models import (
    Agent, ConfirmationRequest, ConfirmationStatus, ConsolidationProposal, ContextPack, ExpertSetting,
    ExtractionPolicy, MemoryDocument, MemoryItem, MemorySettings, MemoryVector, PlatformIdentity, Snapshot,
    SnapshotReason,
)
from .ports import conversations
from .versions import SnapshotNotFound, item_fields, snapshot_create, snapshot_item_dict

User = get_user_model()


USER_ID_MAX = 150  # PlatformIdentity.external_id


def user_ensure(*, external_id: str):
    """Return the account of the platform end user ``external_id``, creating it if missing.

    Platform ids are their own namespace (issue 14, ``PlatformIdentity``): the id names the
    account linked to it, never one that merely has that ``username``. A new platform user gets
    an account named after its id when that username is free, and a generated one
    (``platform-<hex>``) when a staff login or any other account already holds it, so a platform
    id equal to a staff login is simply another user: callers answer it as they answer any new
    id, and nothing is ever filed under the staff account. A new account has no usable password. The id is taken exactly: never
    trimmed, case- and accent-sensitive on every database ("alice", "Alice" and "josé" are
    three users; byte-exact on MySQL/MariaDB, migration ``profiles.0016``, check
    bizmemory.E040). Raises ``ValueError`` for an id that is not a string of 1-150 characters
    or that starts or ends with whitespace ("bob " would otherwise be a second account, or
    quietly ``bob`` where a layer trims).
    """
    if not isinstance(external_id, str) or not 1 <= len(external_id) <= USER_ID_MAX:
        raise ValueError(f"user id must be 1-{USER_ID_MAX} characters")
    if external_id != external_id.strip():
        raise ValueError("user id must not start or end with whitespace (ids are compared exactly, never trimmed)")
    identity = PlatformIdentity.objects.select_related("user").filter(external_id=external_id).first()
    if identity is None:
        try:
            # A savepoint, as get_or_create takes: a concurrent first ingest of the same id wins
            # the unique index, and this one then reads the winner's row.
            with transaction.atomic():
                taken = User.objects.filter(username=external_id).exists()
                # No usable password: nobody signs in to an account that ingest made until an
                # operator gives it one (Django's password-reset form skips it too).
                user = User.objects.create(username=f"platform-{uuid.uuid4().hex}" if taken else external_id,
                                           password=make_password(None))
                identity = PlatformIdentity.objects.create(user=user, external_id=external_id)
        except IntegrityError:
            identity = PlatformIdentity.objects.select_related("user").filter(external_id=external_id).first()
            if identity is None:
                raise  # the winner has not committed yet: the caller's retry reads it (ingest does)
    MemorySettings.objects.get_or_create(user=identity.user)
    return identity.user


def agent_ensure(*, slug: str, is_entry: bool = False) -> Agent:
    """Return the agent with ``slug``, creating it if missing (entry agent when ``is_entry``)."""
    agent, created = Agent.objects.get_or_create(slug=slug, defaults={"name": slug, "is_entry": is_entry})
    if is_entry and not agent.is_entry:
        agent.is_entry = True
        agent.save(update_fields=["is_entry"])
    return agent


def memory_settings_get(*, user) -> MemorySettings:
    """The user's MemorySettings row (created with defaults when missing)."""
    ms, _ = MemorySettings.objects.get_or_create(user=user)
    return ms


@transaction.atomic
def memory_settings_update(
    *,
    user,
    memory_enabled: bool | None = None,
    extraction_policy: str | None = None,
    experts_disabled: list[str] | None = None,
    experts_excluded_from_extraction: list[str] | None = None,
    actor=None,
) -> MemorySettings:
    """Apply a user's memory switches; ``None`` leaves a setting unchanged.

    ``experts_disabled`` / ``experts_excluded_from_extraction`` are complete lists of
    expert slugs (experts not listed are switched back on). Raises ``ValueError``
    for an unknown ``extraction_policy``. Writes an audit record.
    """
    ms = MemorySettings.objects.select_for_update().get_or_create(user=user)[0]
    fields = []
    if memory_enabled is not None and ms.memory_enabled != memory_enabled:
        ms.memory_enabled = memory_enabled
        fields.append("memory_enabled")
    if extraction_policy is not None:
        if extraction_policy not in ("", *ExtractionPolicy.values):
            raise ValueError(f"extraction_policy must be one of {ExtractionPolicy.values} or empty")
        ms.extraction_policy = extraction_policy
        fields.append("extraction_policy")
    if fields:
        ms.save(update_fields=[*fields, "updated_at"])
        if "extraction_policy" in fields:
            conversations().extraction_wake(user_id=user.pk)  # sessions parked under "never"
    for slugs, attr in ((experts_disabled, "memory_enabled"), (experts_excluded_from_extraction, "excluded_from_extraction")):
        if slugs is None:
            continue
        wanted = set(slugs)
        for slug in wanted:
            agent_ensure(slug=slug)
        for es in ExpertSetting.objects.filter(user=user).select_related("agent"):
            off = es.agent.slug in wanted
            value = (not off) if attr == "memory_enabled" else off
            if getattr(es, attr) != value:
                setattr(es, attr, value)
                es.save(update_fields=[attr])
        existing = set(ExpertSetting.objects.filter(user=user, agent__slug__in=wanted).values_list("agent__slug", flat=True))
        for slug in wanted - existing:
            ExpertSetting.objects.create(
                user=user, agent=Agent.objects.get(slug=slug), **{attr: attr != "memory_enabled"}
            )
    audit_record(
        action="memory.settings_changed",
        actor=actor,
        subject_user=user,
        target_type="memory_settings",
        target_id=str(ms.pk),
        details={"fields": fields, "experts_disabled": experts_disabled, "experts_excluded": experts_excluded_from_extraction},
    )
    return ms


def expert_flags(*, user) -> tuple[set[str], set[str]]:
    """Return ``(disabled_slugs, excluded_from_extraction_slugs)`` for the user's experts."""
    disabled, excluded = set(), set()
    for slug, enabled, excl in ExpertSetting.objects.filter(user=user).values_list(
        "agent__slug", "memory_enabled", "excluded_from_extraction"
    ):
        if not enabled:
            disabled.add(slug)
        if excl:
            excluded.add(slug)
    return disabled, excluded


# --------------------------------------------------------------------------- the user's own controls
# Called by the memory pages (profiles/views.py). Each one audits what happened with ids,
# kinds and counts only — never the memory text (rule: issue #7, "audited, without content").


def _deleted(result: tuple[int, dict], model) -> int:
    """Rows of ``model`` itself in a ``QuerySet.delete()`` result (cascades are not counted)."""
    return result[1].get(model._meta.label, 0)


def memory_item_delete(*, user, item_id: int, actor=None) -> dict:
    """Delete one of ``user``'s current memory items now, everywhere it is served from.

    One :func:`~profiles.changeset.memory_changeset` (reason ``user_edit``): the item row is
    deleted (any confirmation request naming it cascades); journal entries — pending or
    archived — carrying the same kind and value are deleted too, so a later consolidation
    cannot bring it back, and the messages it came from leave session search (both through
    ``profiles.ports``); the changeset bumps the version, re-renders MEMORY.md, snapshots, drops
    the item from the retained older snapshots (a staff restore cannot bring back what the user
    deleted) and audits ``memory.item_deleted`` with the item id, its kind and the counts.
    Search index and context pack are rebuilt after commit.

    Returns ``{"item_id": int, "kind": str, "journal_entries": int}``.
    Raises ``MemoryItem.DoesNotExist`` for an unknown id, a superseded item or another
    user's item (indistinguishable on purpose: views turn it into 404).
    Rule: issue #7, "Delete one entry: gone from current memory, the rendered document, the
    search index and future snapshots at once"; issue 14, "the deleted content must leave every
    agent-visible path".
    """
    with memory_changeset(user_id=user.pk, reason=SnapshotReason.USER_EDIT, actor=actor or user) as cs:
        item = MemoryItem.objects.current().get(user=user, pk=item_id)
        journal = conversations().forget_value(
            # By kind and value: consolidation may rewrite the key (``pet`` → ``fact:pet``).
            user_id=user.pk, kind=item.kind, value=item.value,
            message_ids=[m for m in (item.source_message_ids or []) if isinstance(m, int)],
        )
        MemoryVector.objects.filter(item_id=item.pk).delete()
        MemoryItem.objects.filter(pk=item.pk).delete()
        cs.left = {item_id: None}
        # When it was learned (a date, never the key or value) lets the user's history date the
        # entry and join it to the values it replaced (profiles.timeline).
        cs.audit_as("memory.item_deleted", target_type="memory_item", target_id=str(item_id),
                    details={"kind": item.kind, "learned_at": item.valid_from.isoformat(), "journal_entries": journal})
    return {"item_id": item_id, "kind": item.kind, "journal_entries": journal}


def memory_items_delete_by_staff(*, item_ids: list[int], actor) -> int:
    """A staff member deletes memory items (the Django admin's delete): each current item goes
    through :func:`memory_item_delete` (so MEMORY.md, snapshots, the index and the journal follow,
    audited with the staff ``actor``); a superseded (history) row is deleted in a changeset of its
    own user with reason ``staff_edit``, audited as ``memory.history_deleted``. Returns the number
    of items deleted; ids that no longer exist are skipped."""
    deleted = 0
    for item in MemoryItem.objects.filter(pk__in=item_ids).select_related("user").order_by("pk"):
        if item.valid_until is None:
            memory_item_delete(user=item.user, item_id=item.pk, actor=actor)
        else:
            with memory_changeset(user_id=item.user_id, reason=SnapshotReason.STAFF_EDIT, actor=actor) as cs:
                cs.snapshot = False
                MemoryItem.objects.filter(pk=item.pk).delete()
                cs.left = {item.pk: None}
                cs.audit_as("memory.history_deleted", target_type="memory_item", target_id=str(item.pk),
                            details={"kind": item.kind})
        deleted += 1
    return deleted


def memory_clear_all(*, user, include_history: bool = False, actor=None) -> dict[str, int]:
    """Forget everything long-term about ``user``; optionally their conversation history too.

    Deletes, in one :func:`~profiles.changeset.memory_changeset` (no snapshot: the snapshots go
    too): every memory item (current and superseded), snapshots, the search index (item and
    message vectors), MEMORY.md's content and the context pack, confirmation requests, held
    consolidation proposals and the user's quarantine records; through ``profiles.ports`` the
    journal (pending and archived) and, with ``include_history``, their sessions and messages.
    When history is kept, every kept turn becomes history only (never a memory or search source
    again) and every watermark moves past it, so nothing said before the clear — even inside the
    throttle window — comes back as memory. The memory version is bumped so a consolidation
    planned before cannot write back. Kept: the account, the memory switches, the audit log.
    Audited as ``memory.cleared`` with counts only.

    Returns ``{"items", "journal", "snapshots", "vectors", "documents", "confirmations",
    "proposals", "quarantine", "sessions", "messages"}`` → rows deleted (int).
    Rule: issue #7, "Clear everything"; issue 14, "clearing must advance every watermark".
    """
    counts: dict[str, int] = {}
    with memory_changeset(user_id=user.pk, reason=SnapshotReason.USER_EDIT, actor=actor or user) as cs:
        cs.snapshot = cs.render = False
        steps = [
            ("confirmations", ConfirmationRequest), ("proposals", ConsolidationProposal), ("vectors", MemoryVector),
            ("items", MemoryItem), ("snapshots", Snapshot), ("documents", MemoryDocument),
            ("quarantine", QuarantineRecord),
        ]
        for name, model in steps:
            counts[name] = _deleted(model.objects.filter(user=user).delete(), model)
        ContextPack.objects.filter(user=user).delete()  # derived cache of the items above (not counted)
        counts.update(conversations().erase(user_id=user.pk, include_history=include_history))
        cs.audit_as("memory.cleared", target_type="user", target_id=str(user.pk),
                    details={"include_history": include_history, **counts})
    return counts


def snapshot_restore(*, user_id: int, version: int, actor, now: dt.datetime | None = None) -> Snapshot:
    """Replace the user's current memory with snapshot ``version``, in one changeset.

    First the current state is saved as a ``rollback_point`` snapshot; then every current item
    not in the snapshot is closed (``valid_until = now``, kept as history), every snapshot item
    is made current again with its stored fields (same id; re-created with that id if it was
    deleted), pending confirmations that no longer apply are dismissed; the changeset sets
    MEMORY.md to the snapshot's text byte for byte, bumps the version, takes a ``restore``
    snapshot and audits ``memory.restored`` (ids and counts only). Restoring the rollback point
    gives back exactly what was there (equal item dicts, byte-identical MEMORY.md).
    Returns the rollback-point :class:`~profiles.models.Snapshot` (restore it to undo).
    ``actor`` is the staff account restoring: it must hold ``profiles.restore_snapshot`` (the
    group "memory officers"; superusers hold it), checked first, or ``PermissionDenied`` is
    raised and nothing changes (:func:`audit.permissions.permission_require`; issue 14).
    Raises :class:`~profiles.versions.SnapshotNotFound` when the version is not retained.
    """
    permission_require(actor=actor, perm=RESTORE)
    now = now or timezone.now()
    with memory_changeset(user_id=user_id, reason=SnapshotReason.RESTORE, actor=actor, now=now) as cs:
        target = Snapshot.objects.filter(user_id=user_id, version=version).first()
        if target is None:
            raise SnapshotNotFound(f"no snapshot version {version} for this user")
        rollback = snapshot_create(user_id=user_id, reason=SnapshotReason.ROLLBACK_POINT, now=now)
        wanted = {d["id"]: d for d in target.items}
        closed = MemoryItem.objects.current().filter(user_id=user_id).exclude(pk__in=list(wanted)).update(valid_until=now)
        existing = {i.pk: i for i in MemoryItem.objects.filter(user_id=user_id, pk__in=list(wanted))}
        taken = set(MemoryItem.objects.filter(pk__in=list(wanted)).exclude(user_id=user_id).values_list("pk", flat=True))
        for item_id, d in wanted.items():
            fields = item_fields(d)
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
        current_ids = set(MemoryItem.objects.current().filter(user_id=user_id).values_list("pk", flat=True))
        stale = [
            c.pk for c in ConfirmationRequest.objects.filter(user_id=user_id, status=ConfirmationStatus.PENDING)
            if c.new_item_id not in current_ids
        ]
        if stale:
            ConfirmationRequest.objects.filter(pk__in=stale).update(status=ConfirmationStatus.DISMISSED, resolved_at=now)
        cs.document = target.memory_md
        cs.audit_as("memory.restored", target_type="snapshot", target_id=str(target.pk), details={
            "restored_version": version, "rollback_version": rollback.version, "items": len(wanted), "closed": closed,
            "item_ids": sorted(wanted),
        })
    return rollback


@transaction.atomic
def memory_quarantine_clear(*, user, actor=None) -> int:
    """Delete all of ``user``'s quarantine records now (what the sanitizer kept out of their
    memory) and mask the PII left in the raw turns; returns how many records
    (``audit.services.quarantine_clear_user``). Rule: issue #7, "a button to delete those
    quarantine records now"."""
    return quarantine_clear_user(user=user, actor=actor)


# --------------------------------------------------------------------------- the user's answer to a confirmation


class ConfirmationError(ValueError):
    """The confirmation request is not pending, or the values it compares changed since."""


class _Stale(Exception):
    """The new value of a confirmation request is no longer current (the request is dismissed)."""


def _pending_confirmation(user, confirmation_id: int) -> ConfirmationRequest:
    req = ConfirmationRequest.objects.filter(pk=confirmation_id, user=user).select_related("old_item", "new_item").first()
    if req is None or req.status != ConfirmationStatus.PENDING:
        raise ConfirmationError(f"no pending confirmation {confirmation_id} for this user")
    return req


def confirmation_confirm(*, user, confirmation_id: int, now: dt.datetime | None = None) -> ConfirmationRequest:
    """The user confirms the new value: the request is closed and memory items are unchanged.

    One :func:`~profiles.changeset.memory_changeset` without a snapshot (nothing to version):
    the version is bumped, so the context stops asking; audited (ids only). Raises
    :class:`ConfirmationError` when it is not the user's pending request.
    """
    now = now or timezone.now()
    with memory_changeset(user_id=user.pk, reason=SnapshotReason.CONFIRMATION, actor=user, now=now) as cs:
        cs.snapshot = False
        req = _pending_confirmation(user, confirmation_id)
        if not ConfirmationRequest.objects.filter(pk=req.pk, status=ConfirmationStatus.PENDING).update(
            status=ConfirmationStatus.CONFIRMED, resolved_at=now
        ):
            raise ConfirmationError(f"confirmation {confirmation_id} was resolved meanwhile")
        cs.audit_as("memory.confirmation_confirmed", target_type="confirmation_request", target_id=str(req.pk),
                    details={"new_item": req.new_item_id})
    req.refresh_from_db()
    return req


def confirmation_reject(*, user, confirmation_id: int, now: dt.datetime | None = None) -> ConfirmationRequest:
    """The user rejects the new value: it is closed and the old value is current again.

    One :func:`~profiles.changeset.memory_changeset` (reason ``confirmation``): the new item
    gets ``valid_until = now``, the old item's ``valid_until`` is cleared; the changeset bumps
    the version, re-renders MEMORY.md, snapshots, rectifies older snapshots (the rejected value
    is replaced by the old one) and audits (ids only). Raises :class:`ConfirmationError` when
    it is not the user's pending request or the new value is no longer current (the request is
    then dismissed and nothing else changes).
    """
    now = now or timezone.now()
    try:
        with memory_changeset(user_id=user.pk, reason=SnapshotReason.CONFIRMATION, actor=user, now=now) as cs:
            req = _pending_confirmation(user, confirmation_id)
            if not ConfirmationRequest.objects.filter(pk=req.pk, status=ConfirmationStatus.PENDING).update(
                status=ConfirmationStatus.REJECTED, resolved_at=now
            ):
                raise ConfirmationError(f"confirmation {confirmation_id} was resolved meanwhile")
            if MemoryItem.objects.filter(pk=req.new_item_id, valid_until__isnull=True).update(valid_until=now) != 1:
                raise _Stale(req.pk)
            MemoryItem.objects.filter(pk=req.old_item_id).update(valid_until=None)
            cs.left = {req.new_item_id: snapshot_item_dict(MemoryItem.objects.get(pk=req.old_item_id))}
            cs.audit_as("memory.confirmation_rejected", target_type="confirmation_request", target_id=str(req.pk),
                        details={"restored_item": req.old_item_id, "closed_item": req.new_item_id})
    except _Stale as stale:
        ConfirmationRequest.objects.filter(pk=stale.args[0], status=ConfirmationStatus.PENDING).update(
            status=ConfirmationStatus.DISMISSED, resolved_at=now
        )
        raise ConfirmationError(f"confirmation {confirmation_id} no longer applies: the value changed since") from None
    req.refresh_from_db()
    return req
