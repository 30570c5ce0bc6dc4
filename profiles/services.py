"""Write services for users, agents and memory switches.

Every function is keyword-only and transactional; views, tasks, commands and
tests all call these rather than touching the models directly.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from .models import (
    Agent, ContextPack, ExpertSetting, ExtractionPolicy, MemoryDocument, MemoryItem, MemorySettings, MemoryVector,
)

User = get_user_model()


def user_ensure(*, external_id: str):
    """Return the Django user whose ``username`` is the platform's user id, creating it if missing.

    Raises ``ValueError`` for an empty id or one over 150 characters.
    """
    if not external_id or len(external_id) > 150:
        raise ValueError("user id must be 1-150 characters")
    user, _ = User.objects.get_or_create(username=external_id)
    MemorySettings.objects.get_or_create(user=user)
    return user


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
    from audit.services import audit_record

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


@transaction.atomic
def memory_item_delete(*, user, item_id: int, actor=None) -> dict:
    """Delete one of ``user``'s current memory items now, everywhere it is served from.

    The item row is deleted (its search-index vector and any confirmation request naming
    it cascade); journal entries — pending or archived — carrying the same kind and value
    are deleted too, so a later consolidation cannot bring it back; MEMORY.md is
    re-rendered and the memory version bumped (a consolidation planned before the delete
    re-plans). Snapshots taken from now on do not contain it, and it is dropped from the
    retained older ones too (``consolidation.snapshots.snapshots_rectify``), so a staff
    restore cannot bring back what the user deleted. Audited as ``memory.item_deleted`` with the
    item id, its kind and the counts.

    Returns ``{"item_id": int, "kind": str, "journal_entries": int}``.
    Raises ``MemoryItem.DoesNotExist`` for an unknown id, a superseded item or another
    user's item (indistinguishable on purpose: views turn it into 404).
    Rule: issue #7, "Delete one entry: gone from current memory, the rendered document, the
    search index and future snapshots at once".
    """
    from audit.services import audit_record
    from consolidation.models import JournalEntry
    from consolidation.models import SnapshotReason
    from consolidation.snapshots import memory_document_refresh, memory_version_bump, snapshot_create, snapshots_rectify

    item = MemoryItem.objects.current().get(user=user, pk=item_id)
    journal = _deleted(
        # By kind and value: consolidation may rewrite the key (``pet`` → ``fact:pet``).
        JournalEntry.objects.filter(user=user, kind=item.kind, value=item.value).delete(), JournalEntry
    )
    MemoryItem.objects.filter(pk=item.pk).delete()
    memory_version_bump(user_id=user.pk)
    memory_document_refresh(user_id=user.pk)
    # Every change to memory is a version (issue #5), the user's own deletes included.
    snap = snapshot_create(user_id=user.pk, reason=SnapshotReason.USER_EDIT)
    snapshots_rectify(user_id=user.pk, replacements={item_id: None}, exclude_pk=snap.pk)
    out = {"item_id": item_id, "kind": item.kind, "journal_entries": journal}
    audit_record(
        action="memory.item_deleted", actor=actor or user, subject_user=user, target_type="memory_item",
        target_id=str(item_id), details={"kind": item.kind, "journal_entries": journal},
    )
    return out


@transaction.atomic
def memory_clear_all(*, user, include_history: bool = False, actor=None) -> dict[str, int]:
    """Forget everything long-term about ``user``; optionally their conversation history too.

    Deletes, in one transaction: every memory item (current and superseded), the journal
    (pending and archived), snapshots, the search index (item and message vectors),
    MEMORY.md and its context pack, confirmation requests, held consolidation proposals and the user's
    quarantine records; with ``include_history`` also their sessions and messages. The
    memory version is bumped so a consolidation planned before cannot write back. Kept:
    the account, the memory switches, the audit log. When history is kept, session
    watermarks stay, so messages already read are not extracted again: a new start is
    clean. Audited as ``memory.cleared`` with counts only.

    Returns ``{"items", "journal", "snapshots", "vectors", "documents", "confirmations",
    "proposals", "quarantine", "sessions", "messages"}`` → rows deleted (int).
    Rule: issue #7, "Clear everything".
    """
    from audit.models import QuarantineRecord
    from audit.services import audit_record
    from consolidation.models import (
        ConfirmationRequest, ConsolidationProposal, JournalEntry, Message, Session, Snapshot,
    )
    from consolidation.snapshots import memory_version_bump

    counts: dict[str, int] = {}
    steps = [
        ("confirmations", ConfirmationRequest), ("proposals", ConsolidationProposal), ("vectors", MemoryVector),
        ("items", MemoryItem), ("journal", JournalEntry), ("snapshots", Snapshot), ("documents", MemoryDocument),
        ("quarantine", QuarantineRecord),
    ]
    for name, model in steps:
        counts[name] = _deleted(model.objects.filter(user=user).delete(), model)
    ContextPack.objects.filter(user=user).delete()  # derived cache of the items above (not counted)
    counts["messages"] = counts["sessions"] = 0
    if include_history:
        counts["messages"] = _deleted(Message.objects.filter(session__user=user).delete(), Message)
        counts["sessions"] = _deleted(Session.objects.filter(user=user).delete(), Session)
    else:
        # Kept conversations are history only: never a memory or search source again.
        Message.objects.filter(session__user=user).exclude(memory_source=False).update(memory_source=False)
    memory_version_bump(user_id=user.pk)
    audit_record(
        action="memory.cleared", actor=actor or user, subject_user=user, target_type="user", target_id=str(user.pk),
        details={"include_history": include_history, **counts},
    )
    return counts


@transaction.atomic
def memory_quarantine_clear(*, user, actor=None) -> int:
    """Delete all of ``user``'s quarantine records now (what the sanitizer kept out of their
    memory); returns how many. Audited as ``quarantine.cleared_by_user`` with the count and
    the hit types — never the previews or originals. Rule: issue #7, "a button to delete
    those quarantine records now"."""
    from audit.models import QuarantineRecord
    from audit.services import audit_record

    qs = QuarantineRecord.objects.filter(user=user)
    types = sorted({t for row in qs.values_list("hit_types", flat=True) for t in row.split(",") if t})
    count = _deleted(qs.delete(), QuarantineRecord)
    if count:
        audit_record(
            action="quarantine.cleared_by_user", actor=actor or user, subject_user=user, target_type="user",
            target_id=str(user.pk), details={"count": count, "hit_types": types},
        )
    return count
