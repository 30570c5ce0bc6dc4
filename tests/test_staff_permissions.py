"""Staff actions that show decrypted PII or rewrite memory need explicit permissions (the
"memory officers" group, migration profiles.0012); being staff opens the masked pages only."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.urls import reverse

from audit.models import AuditLog, QuarantineRecord
from profiles.models import Snapshot
from tests.helpers import PHONE, officer_make, phone_quarantined, staff_with, two_versions

OFFICER_PERMS = {
    "audit.reveal_quarantine", "audit.delete_quarantine_now", "audit.release_quarantine", "audit.view_auditlog",
    "profiles.restore_snapshot",
}


@pytest.fixture
def rec(alice, t0):
    return phone_quarantined(alice, t0)


@pytest.fixture
def versions(alice, t0):
    return two_versions(alice, t0)


def _staff(username="plain-staff", *perms):
    return staff_with(username, *perms)


def _actions(rec, alice, version):
    return {
        "reveal": ("post", reverse("audit:quarantine-reveal", args=[rec.pk])),
        "delete": ("post", reverse("audit:quarantine-delete", args=[rec.pk])),
        "false-positive": ("post", reverse("audit:quarantine-false-positive", args=[rec.pk])),
        "restore": ("post", reverse("staff:version-restore", args=[alice.pk, version])),
        "audit-log": ("get", reverse("staff:audit-log")),
    }


@pytest.mark.django_db
def test_the_migration_made_the_memory_officers_group_with_exactly_its_permissions():
    group = Group.objects.get(name="memory officers")
    assert {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()} == OFFICER_PERMS


def test_its_function_is_idempotent_and_completes_a_group_missing_a_permission(db):
    officer_make("first")
    group = Group.objects.get(name="memory officers")
    group.permissions.remove(Permission.objects.get(codename="reveal_quarantine"))
    officer_make("second")
    assert Group.objects.filter(name="memory officers").count() == 1
    assert group.permissions.count() == len(OFFICER_PERMS)


def test_staff_without_the_permissions_get_a_clear_403_and_nothing_happens(client, rec, alice, versions):
    client.force_login(_staff())
    before = sorted(Snapshot.objects.filter(user=alice).values_list("version", flat=True))
    for name, (method, url) in _actions(rec, alice, versions[0]).items():
        resp = getattr(client, method)(url)
        html = resp.content.decode()
        assert resp.status_code == 403, name
        assert "memory officers" in html and "Not allowed" in html, name
        assert PHONE not in html, name
    assert QuarantineRecord.objects.filter(pk=rec.pk).exists()
    assert sorted(Snapshot.objects.filter(user=alice).values_list("version", flat=True)) == before
    assert not AuditLog.objects.filter(action__in=["quarantine.revealed", "quarantine.deleted", "quarantine.false_positive", "memory.restored"]).exists()


def test_the_403_page_names_the_refused_action_in_chinese(client, rec, alice):
    client.force_login(_staff())
    html = client.post(reverse("audit:quarantine-reveal", args=[rec.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "显示隔离区原文需要你的账号没有的权限" in html and "记忆专员" in html and "无权访问" in html


def test_staff_without_the_permissions_see_the_masked_pages_without_the_buttons(client, rec, alice, versions):
    client.force_login(_staff())
    detail = client.get(reverse("audit:quarantine-detail", args=[rec.pk]))
    html = detail.content.decode()
    assert detail.status_code == 200 and PHONE not in html and "actions-withheld" in html
    assert "/reveal" not in html and "/delete" not in html and "/false-positive" not in html
    page = client.get(reverse("staff:versions-user", args=[alice.pk])).content.decode()
    assert "/restore" not in page and "restore-withheld" in page and "/staff/audit/" not in page
    home = client.get(reverse("staff:home")).content.decode()
    assert "/staff/audit/" not in home and "/staff/versions/" in home


def test_an_officer_and_a_superuser_get_every_action_and_see_the_buttons(client, rec, alice, versions):
    for user in (officer_make("officer"),
                 get_user_model().objects.create_user("root", is_staff=True, is_superuser=True)):
        client.force_login(user)
        html = client.get(reverse("audit:quarantine-detail", args=[rec.pk])).content.decode()
        assert "/reveal" in html and "/delete" in html and "/false-positive" in html and "actions-withheld" not in html
        page = client.get(reverse("staff:versions-user", args=[alice.pk])).content.decode()
        assert "/restore" in page and "restore-withheld" not in page
        revealed = client.post(reverse("audit:quarantine-reveal", args=[rec.pk]), follow=True)
        assert revealed.status_code == 200 and PHONE in revealed.content.decode()
        assert client.get(reverse("staff:audit-log")).status_code == 200
        assert client.post(reverse("staff:version-restore", args=[alice.pk, versions[0]])).status_code == 302
    assert AuditLog.objects.filter(action="quarantine.revealed").count() == 2


def test_each_permission_opens_its_own_action_only(client, rec, alice, versions):
    client.force_login(_staff("revealer", "audit.reveal_quarantine"))
    assert client.post(reverse("audit:quarantine-reveal", args=[rec.pk]), follow=True).status_code == 200
    for name, (method, url) in _actions(rec, alice, versions[0]).items():
        if name != "reveal":
            assert getattr(client, method)(url).status_code == 403, name
    html = client.get(reverse("audit:quarantine-detail", args=[rec.pk])).content.decode()
    assert "/reveal" in html and "/delete" not in html and "actions-withheld" in html


def test_the_admin_deletes_a_quarantine_record_only_with_the_delete_now_permission(client, rec):
    staff = _staff("admin-deleter", "audit.view_quarantinerecord", "audit.delete_quarantinerecord")
    client.force_login(staff)
    url = reverse("admin:audit_quarantinerecord_delete", args=[rec.pk])
    assert client.post(url, {"post": "yes"}).status_code == 403
    assert QuarantineRecord.objects.filter(pk=rec.pk).exists()
    client.force_login(_staff("admin-officer", "audit.view_quarantinerecord", "audit.delete_quarantine_now"))
    assert client.post(url, {"post": "yes"}).status_code == 302
    assert not QuarantineRecord.objects.filter(pk=rec.pk).exists()
