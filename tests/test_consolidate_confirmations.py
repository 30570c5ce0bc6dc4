"""Contradictions that matter: pending confirmation, confirm / reject, the selector's lines."""

import datetime as dt

import pytest

from consolidation.consolidate import consolidation_run
from profiles.services import ConfirmationError, confirmation_confirm, confirmation_reject
from consolidation.models import JournalEntry
from profiles.models import ConfirmationRequest, ConfirmationStatus
from profiles.confirmations import pending_confirmations
from profiles.models import MemoryDocument, MemoryItem


def _entry(user, key, value, at, kind="profile"):
    return JournalEntry.objects.create(
        user=user, kind=kind, key=key, value=value, text=f"城市：{value}" if key == "city" else f"{key}: {value}",
        observed_at=at, created_at=at, tokens=5,
    )


def _move(user, t0):
    _entry(user, "city", "北京", t0)
    consolidation_run(user_id=user.pk, now=t0)
    _entry(user, "city", "深圳", t0 + dt.timedelta(days=30))
    return consolidation_run(user_id=user.pk, now=t0 + dt.timedelta(days=30))


def test_it_makes_the_new_city_current_and_asks_to_confirm(alice, t0):
    res = _move(alice, t0)
    assert res.confirmations == 1
    assert MemoryItem.objects.current().get(user=alice, key="city").value == "深圳"
    [line] = pending_confirmations(user=alice)
    assert line["line"] == "城市：之前是北京，现在是深圳——请确认？"
    assert line["lines"]["en"] == "City: earlier 北京, now 深圳 — confirm?"
    assert (line["old_value"], line["new_value"]) == ("北京", "深圳")


def test_it_does_not_ask_about_keys_that_do_not_matter_or_rewordings(alice, t0):
    _entry(alice, "pref:format", "表格", t0, kind="preference")
    _entry(alice, "city", "深圳", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    _entry(alice, "pref:format", "列表", t0 + dt.timedelta(days=1), kind="preference")
    _entry(alice, "city", "深圳市", t0 + dt.timedelta(days=1))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    assert pending_confirmations(user=alice) == []


def test_confirm_closes_the_request_and_keeps_the_new_value(alice, t0):
    _move(alice, t0)
    req = ConfirmationRequest.objects.get(user=alice)
    confirmation_confirm(user=alice, confirmation_id=req.pk)
    req.refresh_from_db()
    assert req.status == ConfirmationStatus.CONFIRMED and req.resolved_at
    assert MemoryItem.objects.current().get(user=alice, key="city").value == "深圳"
    assert pending_confirmations(user=alice) == []


def test_reject_restores_the_old_value_as_current(alice, t0):
    _move(alice, t0)
    req = ConfirmationRequest.objects.get(user=alice)
    confirmation_reject(user=alice, confirmation_id=req.pk, now=t0 + dt.timedelta(days=31))
    assert MemoryItem.objects.current().get(user=alice, key="city").value == "北京"
    doc = MemoryDocument.objects.get(user=alice)
    assert "北京" in doc.markdown and "深圳" not in doc.markdown
    req.refresh_from_db()
    assert req.status == ConfirmationStatus.REJECTED


def test_an_outsider_cannot_resolve_someone_elses_request(alice, bob, t0):
    _move(alice, t0)
    req = ConfirmationRequest.objects.get(user=alice)
    with pytest.raises(ConfirmationError):
        confirmation_reject(user=bob, confirmation_id=req.pk)
    with pytest.raises(ConfirmationError):
        confirmation_confirm(user=bob, confirmation_id=req.pk)
    assert pending_confirmations(user=bob) == []
    assert MemoryItem.objects.current().get(user=alice, key="city").value == "深圳"


def test_a_later_change_supersedes_the_open_request(alice, t0):
    _move(alice, t0)
    _entry(alice, "city", "广州", t0 + dt.timedelta(days=60))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=60))
    [line] = pending_confirmations(user=alice)
    assert (line["old_value"], line["new_value"]) == ("深圳", "广州")
    assert ConfirmationRequest.objects.filter(user=alice, status=ConfirmationStatus.DISMISSED).count() == 1
