"""Admin side of the audit app: the audit log is append-only, quarantine deletes are audited,
sensitive words edited in the admin take effect at once."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from audit.models import AuditLog, QuarantineRecord, SensitiveWord
from audit.sanitizer import analyze
from audit.services import audit_record, quarantine_file, sensitive_words_active
from profiles.services import user_ensure


@pytest.fixture
def superuser(db):
    return get_user_model().objects.create_superuser("root", password="pw")


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


@pytest.fixture
def log(db, alice):
    return audit_record(action="memory.item_deleted", subject_user=alice, target_type="memory_item", target_id="7", details={"count": 1})


def test_audit_log_cannot_be_added_changed_or_deleted_in_the_admin(admin_client, log):
    assert admin_client.get(reverse("admin:audit_auditlog_changelist")).status_code == 200
    assert admin_client.get(reverse("admin:audit_auditlog_add")).status_code == 403
    change = reverse("admin:audit_auditlog_change", args=[log.pk])
    page = admin_client.get(change)
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()  # view only
    assert admin_client.post(change, {"action": "tampered", "target_id": "0", "details": "{}"}).status_code == 403
    assert admin_client.post(reverse("admin:audit_auditlog_delete", args=[log.pk]), {"post": "yes"}).status_code == 403
    bulk = admin_client.post(
        reverse("admin:audit_auditlog_changelist"), {"action": "delete_selected", "_selected_action": [log.pk], "post": "yes"}
    )
    assert bulk.status_code in (200, 302)
    log.refresh_from_db()
    assert (log.action, log.target_id) == ("memory.item_deleted", "7")
    assert AuditLog.objects.count() == 1


def test_quarantine_records_cannot_be_added_or_changed_and_deleting_is_audited(admin_client, superuser, t0):
    text = "手机13912345678"
    rec = quarantine_file(user=user_ensure(external_id="alice"), session_id=None, message_ids=[], original=text, hits=analyze(text), now=t0)
    assert admin_client.get(reverse("admin:audit_quarantinerecord_add")).status_code == 403
    page = admin_client.get(reverse("admin:audit_quarantinerecord_change", args=[rec.pk])).content.decode()
    assert "13912345678" not in page and 'name="_save"' not in page
    listing = admin_client.get(reverse("admin:audit_quarantinerecord_changelist")).content.decode()
    assert reverse("audit:quarantine-detail", args=[rec.pk]) in listing
    admin_client.post(reverse("admin:audit_quarantinerecord_delete", args=[rec.pk]), {"post": "yes"})
    assert not QuarantineRecord.objects.exists()
    assert AuditLog.objects.get(action="quarantine.deleted").actor == superuser


def test_a_sensitive_word_added_in_the_admin_blocks_at_once(admin_client):
    text = "我们的代号是青龙计划，下周上线"
    assert not analyze(text, sensitive_words=sensitive_words_active())
    resp = admin_client.post(reverse("admin:audit_sensitiveword_add"), {"word": "青龙计划", "active": "on"})
    assert resp.status_code == 302
    assert [h.entity_type for h in analyze(text, sensitive_words=sensitive_words_active())] == ["SENSITIVE_WORD"]

    word = SensitiveWord.objects.get(word="青龙计划")
    admin_client.post(reverse("admin:audit_sensitiveword_change", args=[word.pk]), {"word": "青龙计划"})  # untick active
    assert not SensitiveWord.objects.get(pk=word.pk).active
    assert not analyze(text, sensitive_words=sensitive_words_active())


def test_sensitive_words_include_the_settings_seed_and_active_rows_only(db, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, SENSITIVE_WORDS=["绝密"])
    SensitiveWord.objects.create(word="青龙计划")
    SensitiveWord.objects.create(word="旧代号", active=False)
    assert sensitive_words_active() == sorted(["绝密", "青龙计划"])
