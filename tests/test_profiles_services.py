import pytest

from audit.models import AuditLog
from profiles.models import ExpertSetting
from profiles.services import expert_flags, memory_settings_update, user_ensure


def test_it_switches_memory_and_experts_and_audits(db):
    user = user_ensure(external_id="u1")
    memory_settings_update(user=user, memory_enabled=False, experts_disabled=["finance"], experts_excluded_from_extraction=["legal"])
    user.memory_settings.refresh_from_db()
    assert user.memory_settings.memory_enabled is False
    assert expert_flags(user=user) == ({"finance"}, {"legal"})
    memory_settings_update(user=user, experts_disabled=[], experts_excluded_from_extraction=[])
    assert expert_flags(user=user) == (set(), set())
    assert ExpertSetting.objects.filter(user=user).count() == 2
    assert AuditLog.objects.filter(action="memory.settings_changed", subject_user=user).count() == 2


def test_it_refuses_an_unknown_policy(db):
    with pytest.raises(ValueError):
        memory_settings_update(user=user_ensure(external_id="u1"), extraction_policy="sometimes")


def test_user_ids_are_validated(db):
    with pytest.raises(ValueError):
        user_ensure(external_id="")


# ----------------------------------------------------------------------------- clear everything
def _consolidated(user, at):
    from consolidation.consolidate import consolidation_run
    from consolidation.models import JournalEntry

    for key, value in [("city", "杭州"), ("role", "后端工程师")]:
        JournalEntry.objects.create(user=user, kind="profile", key=key, value=value, text=f"{key}: {value}",
                                    observed_at=at, created_at=at, tokens=5)
    assert consolidation_run(user_id=user.pk, now=at).status == "done"


@pytest.mark.parametrize("include_history", [False, True], ids=["history-kept", "history-deleted"])
def test_clear_all_bumps_the_memory_version_so_a_context_read_before_it_is_not_served(alice, t0, include_history):
    from profiles.versions import memory_version_read
    from profiles.models import ContextPack
    from profiles.selectors import memory_context
    from profiles.services import memory_clear_all

    _consolidated(alice, t0)
    assert "杭州" in memory_context(user=alice, agent_slug="main", budget=800).text
    stale = ContextPack.objects.filter(user=alice).values("memory_version", "lang", "sections").get()
    before = memory_version_read(user_id=alice.pk)
    memory_clear_all(user=alice, include_history=include_history)
    assert memory_version_read(user_id=alice.pk) == before + 1
    # A context read racing with the clear stores the pack it built from the items it read
    # before the clear, stamped with the version it read: the bump is what retires it.
    ContextPack.objects.create(user=alice, **stale)
    ctx = memory_context(user=alice, agent_slug="main", budget=800)
    assert "杭州" not in ctx.text and ctx.reason == "no_memory" and ctx.item_ids == []


def test_delete_bumps_the_memory_version_so_a_context_read_before_it_is_not_served(alice, t0):
    from profiles.versions import memory_version_read
    from profiles.models import ContextPack, MemoryItem
    from profiles.selectors import memory_context
    from profiles.services import memory_item_delete

    _consolidated(alice, t0)
    assert "杭州" in memory_context(user=alice, agent_slug="main", budget=800).text
    stale = ContextPack.objects.filter(user=alice).values("memory_version", "lang", "sections").get()
    before = memory_version_read(user_id=alice.pk)
    memory_item_delete(user=alice, item_id=MemoryItem.objects.get(user=alice, value="杭州").pk)
    assert memory_version_read(user_id=alice.pk) == before + 1
    # The row signal drops the pack; a context read racing with the delete stores the one it
    # built before it, stamped with the version it read: the bump is what retires that one.
    ContextPack.objects.filter(user=alice).delete()
    ContextPack.objects.create(user=alice, **stale)
    ctx = memory_context(user=alice, agent_slug="main", budget=800)
    assert "杭州" not in ctx.text and "后端工程师" in ctx.text
