"""Django admin (issue #7): every model of our apps is registered; audit and job-like tables are
read-only; held consolidation proposals are resolved by admin actions that call the services."""

import datetime as dt

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from django.urls import reverse

from audit.models import AuditLog, QuarantineRecord
from consolidation.consolidate import consolidation_run
from consolidation.models import JournalEntry, Message, Session
from profiles.models import ConfirmationRequest, ConsolidationProposal, MemoryVersion, ProposalStatus, Snapshot
from profiles.models import MemoryItem, MemorySettings, MemoryVector

OUR_APPS = ("profiles", "consolidation", "audit")
# Written only by services: nobody adds or changes them by hand.
READ_ONLY = (AuditLog, QuarantineRecord, Session, Message, JournalEntry, Snapshot, MemoryVersion,
             ConfirmationRequest, ConsolidationProposal, MemoryItem, MemoryVector)
NO_DELETE = (AuditLog, MemoryVersion, ConfirmationRequest, ConsolidationProposal)


@pytest.fixture
def superuser(db):
    return get_user_model().objects.create_superuser("root", "root@example.com", "pw")


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def test_it_registers_every_model_of_our_apps():
    missing = [m.__name__ for app in OUR_APPS for m in apps.get_app_config(app).get_models()
               if m not in admin.site._registry]
    assert missing == []


def test_it_refuses_add_and_change_on_audit_and_job_tables(superuser):
    request = RequestFactory().get("/admin/")
    request.user = superuser
    for model in READ_ONLY:
        model_admin = admin.site._registry[model]
        assert not model_admin.has_add_permission(request), model.__name__
        assert not model_admin.has_change_permission(request), model.__name__
    for model in NO_DELETE:
        assert not admin.site._registry[model].has_delete_permission(request), model.__name__


def test_it_serves_every_changelist_to_a_superuser(admin_client):
    for app in OUR_APPS:
        for model in apps.get_app_config(app).get_models():
            url = reverse(f"admin:{app}_{model._meta.model_name}_changelist")
            assert admin_client.get(url).status_code == 200, url
    assert admin_client.get(reverse("admin:profiles_memoryversion_add")).status_code == 403


def test_it_names_memory_settings_without_a_typo(admin_client):
    assert str(MemorySettings._meta.verbose_name_plural) == "memory settings"
    assert "Memory settingss" not in admin_client.get("/admin/").content.decode()


def _held(user, t0):
    def entry(key, value, at, op="set"):
        JournalEntry.objects.create(user=user, kind="profile", key=key, value=value, text=f"{key}: {value}",
                                    observed_at=at, created_at=at, tokens=5, operation=op)

    for key, value in [("city", "杭州"), ("role", "后端工程师"), ("skill:python", "Python"), ("skill:go", "Go")]:
        entry(key, value, t0)
    consolidation_run(user_id=user.pk, now=t0)
    later = t0 + dt.timedelta(days=1)
    entry("skill:python", "Python", later, op="retract")
    entry("skill:go", "Go", later, op="retract")
    res = consolidation_run(user_id=user.pk, now=later)
    assert res.status == "held"
    return ConsolidationProposal.objects.get(pk=res.proposal_id)


def _act(client, action, pk):
    url = reverse("admin:profiles_consolidationproposal_changelist")
    return client.post(url, {"action": action, "_selected_action": [pk]}, follow=True)


def test_it_approves_a_proposal_through_the_service(alice, t0, admin_client, superuser):
    proposal = _held(alice, t0)
    assert _act(admin_client, "approve", proposal.pk).status_code == 200
    proposal.refresh_from_db()
    assert proposal.status == ProposalStatus.APPROVED and proposal.resolved_by == superuser
    assert sorted(MemoryItem.objects.current().filter(user=alice).values_list("key", flat=True)) == ["city", "role"]
    assert AuditLog.objects.filter(action="memory.proposal_approved", actor=superuser).exists()


def test_it_rejects_a_proposal_and_warns_when_not_pending(alice, t0, admin_client, superuser):
    proposal = _held(alice, t0)
    _act(admin_client, "reject", proposal.pk)
    proposal.refresh_from_db()
    assert proposal.status == ProposalStatus.REJECTED and proposal.resolved_by == superuser
    assert MemoryItem.objects.current().filter(user=alice).count() == 4
    assert AuditLog.objects.filter(action="memory.proposal_rejected", actor=superuser).exists()
    resp = _act(admin_client, "approve", proposal.pk)
    assert "is not pending" in resp.content.decode()
    proposal.refresh_from_db()
    assert proposal.status == ProposalStatus.REJECTED


def test_it_refuses_the_actions_to_non_staff(alice, t0, client):
    proposal = _held(alice, t0)
    client.force_login(alice)
    resp = _act(client, "approve", proposal.pk)
    assert reverse("admin:login") in resp.redirect_chain[-1][0]
    proposal.refresh_from_db()
    assert proposal.status == ProposalStatus.PENDING


def test_a_message_page_masks_pii_and_never_shows_the_raw_text(alice, t0, admin_client):
    from tests.helpers import post_turns

    _, [msg] = post_turns("alice", "s-admin", [("user", "我的手机号是13812345678，请记住")], start=t0)
    html = admin_client.get(f"/admin/consolidation/message/{msg.pk}/change/").content.decode()
    assert "content (pii and sensitive words masked)" in html.lower()
    assert "13812345678" not in html and "请记住" in html


def test_the_admin_lists_one_api_keys_entry_ours_clearly_named(admin_client):
    # The library's own APIKey (no scope: 403 on every endpoint) made keys that never work (issue 15).
    from rest_framework_api_key.models import APIKey

    from profiles.models import PlatformAPIKey

    assert not admin.site.is_registered(APIKey)
    assert PlatformAPIKey._meta.verbose_name_plural == "platform API keys"
    page = admin_client.get(reverse("admin:index")).content.decode()
    assert "Platform API keys" in page
    assert "API Key Permissions" not in page and "/admin/rest_framework_api_key/" not in page
    assert admin_client.get("/admin/rest_framework_api_key/apikey/").status_code == 404
    assert admin_client.get(reverse("admin:profiles_platformapikey_add")).status_code == 200
