"""Whether an agent may read a user's memory now: the switches, in one precedence."""

from __future__ import annotations

from .models import ExpertSetting, MemorySettings


def memory_access_reason(*, user, agent_slug: str, temporary: bool = False) -> str | None:
    """Why ``agent_slug`` may not read ``user``'s memory now, or None when it may.

    Reasons: ``memory_off`` (the user's global switch), ``temporary_session``,
    ``expert_off`` (the user switched this expert off). Two queries at most.
    """
    ms = MemorySettings.objects.filter(user=user).values_list("memory_enabled", flat=True).first()
    return _access_reason(
        memory_enabled=ms, temporary=temporary,
        expert_off=lambda: ExpertSetting.objects.filter(user=user, agent__slug=agent_slug, memory_enabled=False).exists(),
    )


def _access_reason(*, memory_enabled, temporary: bool, expert_off) -> str | None:
    """The switch precedence shared by :func:`memory_access_reason` and the context hot path:
    the global switch, then a temporary session, then the expert's switch. ``memory_enabled`` is
    the stored flag (None when the user has no settings row: on); ``expert_off`` a bool or a
    callable giving it (so the ORM path only queries when needed)."""
    if memory_enabled is not None and not memory_enabled:
        return "memory_off"
    if temporary:
        return "temporary_session"
    if expert_off() if callable(expert_off) else expert_off:
        return "expert_off"
    return None
