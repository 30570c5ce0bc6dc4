"""Deleting a kept-out record leaves no plaintext PII in the raw turn either (issue 14,
"kept-out PII"): staff "delete now" and the user's "delete those records now"."""

from __future__ import annotations

import datetime as dt

import pytest

from audit.models import AuditLog, QuarantineRecord
from audit.services import quarantine_delete
from consolidation.extraction import extraction_run
from consolidation.models import Message
from profiles.services import memory_quarantine_clear
from tests.helpers import officer_make, post_turns

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
PHONE = "13912345678"


def _kept_out(username):
    session, _ = post_turns(username, f"{username}-s", [("user", f"我的手机是{PHONE}，我在苏州工作"), ("assistant", "好的")],
                            start=T0)
    assert extraction_run(session_id=session.pk, now=T0 + dt.timedelta(minutes=5), trigger="session_end").quarantined == 1
    return QuarantineRecord.objects.get(session_id=session.pk)


def _turn(rec):
    return Message.objects.get(pk=rec.message_ids[0]).content


@pytest.mark.django_db
def test_staff_delete_masks_the_raw_turn_and_says_so_in_the_audit():
    rec = _kept_out("alice")
    assert PHONE in _turn(rec)
    staff = officer_make("reviewer")
    quarantine_delete(record_id=rec.pk, actor=staff)
    assert PHONE not in _turn(rec) and "苏州" in _turn(rec)
    log = AuditLog.objects.filter(action="quarantine.deleted").get()
    assert log.details["messages_masked"] == 1 and PHONE not in repr(log.details)


@pytest.mark.django_db
def test_the_users_delete_masks_only_their_own_turns():
    mine, theirs = _kept_out("alice"), _kept_out("bob")
    memory_quarantine_clear(user=mine.user)
    assert PHONE not in _turn(mine)
    assert PHONE in _turn(theirs)  # another user's record and turn are untouched
    assert QuarantineRecord.objects.filter(pk=theirs.pk).exists()
