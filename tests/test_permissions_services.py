"""Staff permissions are checked by the services themselves (issue 14, ``audit.permissions``),
not only by the views: reveal, delete now, release, restore and the audit log refuse an actor
without their permission whoever calls them, and ``snapshot_restore --actor`` exits 2 for one."""

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import call_command
from django.core.management.base import CommandError

from audit.models import AuditLog, QuarantineRecord
from audit.selectors import audit_log_list
from audit.services import quarantine_delete, quarantine_mark_false_positive, quarantine_reveal
from profiles.models import MemoryItem, Snapshot
from profiles.services import snapshot_restore

from .helpers import phone_quarantined, staff_with, two_versions

@pytest.fixture
def rec(alice, t0):
    return phone_quarantined(alice, t0)


@pytest.fixture
def first_version(alice, t0):
    return two_versions(alice, t0)[0]


def _account(username, *perms, is_staff=True):
    return staff_with(username, *perms, is_staff=is_staff)


CALLS = {
    "audit.reveal_quarantine": lambda actor, rec, alice, version: quarantine_reveal(record_id=rec.pk, actor=actor),
    "audit.delete_quarantine_now": lambda actor, rec, alice, version: quarantine_delete(record_id=rec.pk, actor=actor),
    "audit.release_quarantine": lambda actor, rec, alice, version: quarantine_mark_false_positive(record_id=rec.pk, actor=actor),
    "profiles.restore_snapshot": lambda actor, rec, alice, version: snapshot_restore(user_id=alice.pk, version=version, actor=actor),
    "audit.view_auditlog": lambda actor, rec, alice, version: list(audit_log_list(actor=actor)),
}


def _state(alice):
    return (QuarantineRecord.objects.count(), AuditLog.objects.count(), Snapshot.objects.count(),
            sorted(MemoryItem.objects.current().filter(user=alice).values_list("value", flat=True)))


@pytest.mark.parametrize("perm", CALLS)
def test_each_service_refuses_an_actor_without_its_permission_and_changes_nothing(perm, rec, alice, first_version):
    others = [p for p in CALLS if p != perm]
    refused = [
        None, _account("plain-staff"), _account("other-perms", *others),
        _account("not-staff", perm, is_staff=False),  # the permission alone, on a non-staff account
    ]
    before = _state(alice)
    for actor in refused:
        with pytest.raises(PermissionDenied):
            CALLS[perm](actor, rec, alice, first_version)
    assert _state(alice) == before


@pytest.mark.parametrize("perm", CALLS)
def test_each_service_serves_a_staff_actor_holding_only_its_permission(perm, rec, alice, first_version):
    CALLS[perm](_account("holder", perm), rec, alice, first_version)  # raises nothing


def test_the_refusal_names_the_action(rec):
    with pytest.raises(PermissionDenied, match="Revealing a quarantined original needs a permission"):
        quarantine_reveal(record_id=rec.pk, actor=_account("plain-staff"))


def test_a_refused_actor_learns_nothing_about_an_unknown_record(db):
    with pytest.raises(PermissionDenied):  # not QuarantineGone: the permission comes first
        quarantine_reveal(record_id=999_999, actor=_account("plain-staff"))


def test_snapshot_restore_exits_2_for_an_actor_without_the_permission_or_unknown(alice, first_version):
    _account("plain-staff")
    before = _state(alice)
    for actor, says in (("plain-staff", "needs a permission"), ("ghost", "no account 'ghost'")):
        with pytest.raises(CommandError) as err:
            call_command("snapshot_restore", "--user", "alice", "--version", str(first_version), "--actor", actor)
        assert err.value.returncode == 2 and str(err.value).startswith("--actor:") and says in str(err.value)
    assert _state(alice) == before
    _account("restorer", "profiles.restore_snapshot")
    call_command("snapshot_restore", "--user", "alice", "--version", str(first_version), "--actor", "restorer")
    assert AuditLog.objects.get(action="memory.restored").actor.username == "restorer"
