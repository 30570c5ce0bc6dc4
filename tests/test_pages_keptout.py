"""GET /memory/kept-out/ and POST /memory/kept-out/delete: what the sanitizer kept out of the
user's memory — readable kinds, masked previews, never the original — and deleting it now."""

from django.test import Client

from audit.models import AuditLog, QuarantineRecord
from consolidation.extraction import extraction_run
from consolidation.models import Session
from tests.helpers import post_turns

PHONE = "13912345678"


def _blocked(username, session, text, t0):
    post_turns(username, session, [("user", text), ("assistant", "好的")], start=t0)
    extraction_run(session_id=Session.objects.get(external_id=session).pk, now=t0, trigger="session_end")
    return QuarantineRecord.objects.get(session_external_id=session)


def test_it_lists_when_where_what_kind_and_a_masked_preview(alice, t0, client):
    _blocked("alice", "s-pii", f"我的手机是{PHONE}，这是绝密项目", t0)
    client.force_login(alice)
    html = client.get("/memory/kept-out/").content.decode()
    assert "2026-03-02 09:00" in html and "s-pii" in html
    assert "mobile phone number" in html and "sensitive word" in html
    assert PHONE not in html and "绝密" not in html and "我的手机是" in html
    zh = client.get("/memory/kept-out/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "手机号" in zh and "敏感词" in zh


def test_it_never_shows_another_users_records(alice, bob, t0, client):
    _blocked("bob", "s-bob", f"我的手机是{PHONE}", t0)
    client.force_login(alice)
    html = client.get("/memory/kept-out/").content.decode()
    assert "s-bob" not in html and "Nothing was kept out." in html


def test_delete_now_removes_only_the_users_records_and_is_audited(alice, bob, t0, client):
    _blocked("alice", "s-a", f"我的手机是{PHONE}", t0)
    _blocked("bob", "s-b", f"我的手机是{PHONE}", t0)
    client.force_login(alice)
    assert client.post("/memory/kept-out/delete").status_code == 302
    assert not QuarantineRecord.objects.filter(user=alice).exists()
    assert QuarantineRecord.objects.filter(user=bob).count() == 1
    rec = AuditLog.objects.get(action="quarantine.cleared_by_user")
    assert rec.subject_user == alice and rec.details == {"count": 1, "hit_types": ["CN_MOBILE"], "messages_masked": 1}


def test_anonymous_get_post_and_csrf_are_refused(alice, t0):
    _blocked("alice", "s-a", f"我的手机是{PHONE}", t0)
    for resp in (Client().get("/memory/kept-out/"), Client().post("/memory/kept-out/delete")):
        assert resp.status_code == 302 and resp["Location"].startswith("/accounts/login/")
    c = Client(enforce_csrf_checks=True)
    c.force_login(alice)
    assert c.post("/memory/kept-out/delete").status_code == 403
    assert c.get("/memory/kept-out/delete").status_code == 405
    assert QuarantineRecord.objects.filter(user=alice).exists()
