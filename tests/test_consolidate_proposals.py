"""Loss guard proposals: approve applies exactly the held run, reject keeps memory."""

import datetime as dt

import pytest

from audit.models import AuditLog
from consolidation.consolidate import ProposalError, consolidation_run, proposal_approve, proposal_reject
from consolidation.models import JournalEntry, JournalStatus
from profiles.models import ConsolidationProposal, ProposalStatus
from profiles.models import MemoryItem


def _entry(user, key, value, at, op="set"):
    return JournalEntry.objects.create(
        user=user, kind="profile", key=key, value=value, text=f"{key}: {value}", observed_at=at, created_at=at,
        tokens=5, operation=op,
    )


def _held(user, t0):
    for key, value in [("city", "杭州"), ("role", "后端工程师"), ("skill:python", "Python"), ("skill:go", "Go")]:
        _entry(user, key, value, t0)
    consolidation_run(user_id=user.pk, now=t0)
    _entry(user, "skill:python", "Python", t0 + dt.timedelta(days=1), op="retract")
    _entry(user, "skill:go", "Go", t0 + dt.timedelta(days=1), op="retract")
    res = consolidation_run(user_id=user.pk, now=t0 + dt.timedelta(days=1))
    assert res.status == "held"
    return ConsolidationProposal.objects.get(pk=res.proposal_id)


def test_approve_applies_the_held_run_and_audits_it(alice, admin_user, t0):
    proposal = _held(alice, t0)
    later = JournalEntry.objects.create(  # written after the proposal: not part of it
        user=alice, kind="profile", key="department", value="支付组", text="部门：支付组",
        observed_at=t0 + dt.timedelta(days=2), created_at=t0 + dt.timedelta(days=2), tokens=5,
    )
    res = proposal_approve(proposal_id=proposal.pk, actor=admin_user, now=t0 + dt.timedelta(days=3))
    assert res.status == "done" and res.items_closed == 2
    assert sorted(MemoryItem.objects.current().filter(user=alice).values_list("key", flat=True)) == ["city", "role"]
    later.refresh_from_db()
    assert later.status == JournalStatus.PENDING
    proposal.refresh_from_db()
    assert proposal.status == ProposalStatus.APPROVED and proposal.resolved_by == admin_user
    assert AuditLog.objects.filter(action="memory.proposal_approved", actor=admin_user).exists()
    # the user's consolidations run again
    assert consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=4)).status == "done"


def test_reject_keeps_memory_and_discards_the_held_entries(alice, admin_user, t0):
    proposal = _held(alice, t0)
    proposal_reject(proposal_id=proposal.pk, actor=admin_user, now=t0 + dt.timedelta(days=3))
    assert MemoryItem.objects.current().filter(user=alice).count() == 4
    assert not JournalEntry.objects.filter(user=alice, status=JournalStatus.PENDING).exists()
    with pytest.raises(ProposalError):
        proposal_approve(proposal_id=proposal.pk, actor=admin_user)


def test_items_an_admin_kept_by_rejecting_are_exempt_from_self_correction(alice, admin_user, t0):
    for key, value in [("city", "杭州"), ("role", "后端工程师"), ("skill:python", "Python"), ("skill:go", "Go")]:
        _entry(alice, key, value, t0)
    consolidation_run(user_id=alice.pk, now=t0)
    kept = [MemoryItem.objects.create(user=alice, kind="profile", key="favourite_colour", value=v, text=f"colour: {v}",
                                      valid_from=t0, confirmed_at=t0) for v in ("blue", "green")]
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    assert res.status == "held"
    proposal = ConsolidationProposal.objects.get(pk=res.proposal_id)
    assert sorted(r["item_id"] for r in proposal.removals) == sorted(k.pk for k in kept)
    held = AuditLog.objects.get(action="memory.consolidation_held", target_id=str(proposal.pk))
    assert (held.subject_user, held.target_type) == (alice, "consolidation_proposal")
    assert held.details == {"items_at_start": 6, "removed": 2, "entries": 0}
    proposal_reject(proposal_id=proposal.pk, actor=admin_user, now=t0 + dt.timedelta(days=2))
    # From now on the kept items are not removed again, and the guard has nothing to hold.
    _entry(alice, "department", "支付组", t0 + dt.timedelta(days=3))
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=3))
    assert res.status == "done" and res.items_removed == 0
    assert all(MemoryItem.objects.current().filter(pk=k.pk).exists() for k in kept)
    # Only the items the rejected proposal named are exempt: a new violator is still removed.
    other = MemoryItem.objects.create(user=alice, kind="profile", key="favourite_colour", value="red", text="colour: red",
                                      valid_from=t0, confirmed_at=t0)
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=4))
    assert res.status == "done" and res.items_removed == 1 and not MemoryItem.objects.filter(pk=other.pk).exists()


def test_a_retraction_in_a_rejected_proposal_is_no_exemption(alice, admin_user, t0):
    """Rejecting keeps what the run would have closed; only policy removals become exemptions, so
    an item the user retracted in that run is still self-corrected later when it breaks the policy."""
    for key, value in [("city", "杭州"), ("role", "后端工程师"), ("skill:python", "Python")]:
        _entry(alice, key, value, t0)
    consolidation_run(user_id=alice.pk, now=t0)
    blue, green = [MemoryItem.objects.create(user=alice, kind="profile", key="favourite_colour", value=v,
                                             text=f"colour: {v}", valid_from=t0, confirmed_at=t0) for v in ("blue", "green")]
    _entry(alice, "favourite_colour", "blue", t0 + dt.timedelta(days=1), op="retract")
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    assert res.status == "held"
    proposal = ConsolidationProposal.objects.get(pk=res.proposal_id)
    assert sorted((r["item_id"], r["reason"]) for r in proposal.removals) == sorted(
        [(blue.pk, "retract"), (green.pk, "key_family")])
    proposal_reject(proposal_id=proposal.pk, actor=admin_user, now=t0 + dt.timedelta(days=2))
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=3))
    assert res.status == "done" and res.items_removed == 1
    assert not MemoryItem.objects.filter(pk=blue.pk).exists() and MemoryItem.objects.current().filter(pk=green.pk).exists()


@pytest.fixture
def admin_user(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_superuser("root", "", "pw")
