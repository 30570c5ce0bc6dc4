"""Staff pages /staff/: versions per user (list, diff, restore with a rollback point, manual
snapshot), the read-only audit log, settings guardrails; refused to everyone else."""

import datetime as dt

import pytest
from django.test import Client

from audit.models import AuditLog
from consolidation.consolidate import consolidation_run
from consolidation.models import JournalEntry
from profiles.models import Snapshot
from profiles.models import MemoryDocument, MemoryItem
from tests.helpers import officer_make


@pytest.fixture
def staff(db):
    """A memory officer: staff holding the restore and audit-log permissions."""
    return officer_make("reviewer")


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


def _versions(user, t0):
    # Version 2 adds an item; a superseded value would be rectified in version 1 (snapshots_rectify).
    for day, (key, value, label) in enumerate([("city", "北京", "城市"), ("industry", "金融", "行业")]):
        JournalEntry.objects.create(user=user, kind="profile", key=key, value=value, text=f"{label}：{value}",
                                    observed_at=t0, created_at=t0, tokens=5)
        consolidation_run(user_id=user.pk, now=t0 + dt.timedelta(days=day))


def _urls(user_id):
    return {
        "get": ["/staff/", "/staff/versions/", f"/staff/versions/{user_id}/", f"/staff/versions/{user_id}/?old=1&new=2",
                "/staff/audit/"],
        "post": [f"/staff/versions/{user_id}/1/restore", f"/staff/versions/{user_id}/snapshot"],
    }


def test_it_refuses_non_staff_with_403(alice, t0, client):
    _versions(alice, t0)
    client.force_login(alice)
    urls = _urls(alice.pk)
    for url in urls["get"]:
        assert client.get(url).status_code == 403, url
    for url in urls["post"]:
        assert client.post(url).status_code == 403, url
    assert Snapshot.objects.filter(user=alice).count() == 2


def test_it_sends_anonymous_visitors_to_login(alice, t0):
    _versions(alice, t0)
    urls = _urls(alice.pk)
    for url in urls["get"] + urls["post"]:
        method = Client().get if url in urls["get"] else Client().post
        resp = method(url)
        assert resp.status_code == 302 and resp["Location"].startswith("/accounts/login/"), url


def test_it_lists_users_versions_and_a_diff(alice, t0, staff_client):
    _versions(alice, t0)
    html = staff_client.get("/staff/versions/", {"q": "ali"}).content.decode()
    assert f'/staff/versions/{alice.pk}/' in html
    html = staff_client.get(f"/staff/versions/{alice.pk}/", {"old": 1, "new": 2}).content.decode()
    assert "Memory versions of alice" in html and "Restore version 1" in html
    added = html[html.index('<ul class="added">'):html.index("</ul>", html.index('<ul class="added">'))]
    assert "行业：金融" in added and "城市：北京" not in added and "城市：北京" in html
    assert staff_client.get(f"/staff/versions/{alice.pk}/", {"old": 1, "new": 9}).status_code == 404


def test_restore_leaves_a_rollback_point(alice, t0, staff_client, staff):
    _versions(alice, t0)
    resp = staff_client.post(f"/staff/versions/{alice.pk}/1/restore")
    assert resp.status_code == 302
    assert list(MemoryItem.objects.current().filter(user=alice).values_list("value", flat=True)) == ["北京"]
    reasons = list(Snapshot.objects.filter(user=alice).order_by("version").values_list("reason", flat=True))
    assert reasons == ["consolidation", "consolidation", "rollback_point", "restore"]
    assert "金融" in Snapshot.objects.get(user=alice, version=3).memory_md
    assert "北京" in MemoryDocument.objects.get(user=alice).markdown
    assert "金融" not in MemoryDocument.objects.get(user=alice).markdown
    assert AuditLog.objects.get(action="memory.restored").actor == staff
    assert staff_client.post(f"/staff/versions/{alice.pk}/99/restore").status_code == 404


def test_manual_snapshot_is_saved_and_audited(alice, t0, staff_client, staff):
    _versions(alice, t0)
    assert staff_client.post(f"/staff/versions/{alice.pk}/snapshot").status_code == 302
    snap = Snapshot.objects.filter(user=alice).latest("version")
    assert snap.reason == "manual" and snap.version == 3
    assert AuditLog.objects.get(action="memory.snapshot_created").actor == staff


def test_the_audit_log_is_filterable_and_read_only(alice, bob, t0, staff_client):
    _versions(alice, t0)
    staff_client.post(f"/staff/versions/{alice.pk}/snapshot")
    AuditLog.objects.create(action="memory.cleared", subject_user=bob, details={"items": 3})
    html = staff_client.get("/staff/audit/", {"user": "alice"}).content.decode()
    assert "memory.snapshot_created" in html and "memory.cleared</td>" not in html
    html = staff_client.get("/staff/audit/", {"action": "memory.cleared"}).content.decode()
    assert "memory.cleared</td>" in html and "memory.snapshot_created</td>" not in html
    assert staff_client.get("/staff/audit/", {"date_from": "not-a-date"}).status_code == 400
    assert staff_client.post("/staff/audit/").status_code == 405


def test_the_settings_guardrails_are_visible(staff_client, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, SNAPSHOTS_KEEP=7)
    html = staff_client.get("/staff/").content.decode()
    assert "BIZMEMORY_SNAPSHOTS_KEEP" in html and "<td>7</td>" in html and "≥ 2 (E005)" in html
    assert "/review/" in html and "/admin/" in html
    zh = staff_client.get("/staff/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "设置与限制" in zh and "隔离区审核" in zh


def test_staff_actions_need_a_csrf_token(alice, t0, staff):
    _versions(alice, t0)
    c = Client(enforce_csrf_checks=True)
    c.force_login(staff)
    assert c.post(f"/staff/versions/{alice.pk}/1/restore").status_code == 403
    assert c.post(f"/staff/versions/{alice.pk}/snapshot").status_code == 403
    assert Snapshot.objects.filter(user=alice).count() == 2
