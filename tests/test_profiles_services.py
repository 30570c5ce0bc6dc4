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
