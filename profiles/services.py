"""Write services for users, agents and memory switches.

Every function is keyword-only and transactional; views, tasks, commands and
tests all call these rather than touching the models directly.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from .models import Agent, ExpertSetting, ExtractionPolicy, MemorySettings

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
