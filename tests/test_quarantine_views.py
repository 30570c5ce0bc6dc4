"""Staff review pages /review/: access control, list filters and paging, actions."""

import datetime as dt

import pytest
from django.urls import reverse

from audit.models import AuditLog, QuarantineRecord
from audit.sanitizer import analyze
from audit.services import quarantine_file, sensitive_words_active
from consolidation.models import JournalEntry
from profiles.services import user_ensure
from tests.helpers import officer_make

PHONE = "13912345678"


@pytest.fixture
def staff(db):
    """A memory officer: staff holding the review actions' permissions."""
    return officer_make("reviewer")


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


def _file(username, text, now, session=None):
    user = user_ensure(external_id=username)
    return quarantine_file(user=user, session_id=session.pk if session else None, session_external_id=session.external_id if session else "", message_ids=[], original=text, hits=analyze(text, sensitive_words=sensitive_words_active()), now=now)


@pytest.fixture
def rec(db, t0):
    return _file("alice", f"我的手机是{PHONE}，邮箱li@example.com", t0)


def _urls(pk):
    return {
        "get": [reverse("audit:quarantine-list"), reverse("audit:quarantine-detail", args=[pk])],
        "post": [
            reverse("audit:quarantine-reveal", args=[pk]),
            reverse("audit:quarantine-delete", args=[pk]),
            reverse("audit:quarantine-false-positive", args=[pk]),
        ],
    }


def test_it_refuses_every_page_and_action_to_a_non_staff_user(client, rec, alice):
    client.force_login(alice)
    urls = _urls(rec.pk)
    for url in urls["get"]:
        assert client.get(url).status_code == 403, url
    for url in urls["post"]:
        assert client.post(url).status_code == 403, url
    assert QuarantineRecord.objects.filter(pk=rec.pk).exists()
    assert not AuditLog.objects.exclude(action="quarantine.filed").exists()


def test_it_redirects_anonymous_visitors_to_the_login_page(client, rec):
    urls = _urls(rec.pk)
    for url in urls["get"] + urls["post"]:
        resp = client.post(url) if url in urls["post"] else client.get(url)
        assert resp.status_code == 302, url
        assert resp["Location"].startswith("/accounts/login/?next="), url
    assert QuarantineRecord.objects.filter(pk=rec.pk).exists()


def test_actions_refuse_get(staff_client, rec):
    reveal = reverse("audit:quarantine-reveal", args=[rec.pk])
    for url in _urls(rec.pk)["post"]:
        if url != reveal:
            assert staff_client.get(url).status_code == 405
    # Reveal's GET only redeems a token (tests/test_quarantine_reveal.py); without one it is the detail page.
    resp = staff_client.get(reveal)
    assert resp.status_code == 302 and resp["Location"] == reverse("audit:quarantine-detail", args=[rec.pk])
    assert QuarantineRecord.objects.filter(pk=rec.pk).exists()
    assert not AuditLog.objects.filter(action="quarantine.revealed").exists()


def test_actions_require_csrf(staff, rec):
    from django.test import Client

    c = Client(enforce_csrf_checks=True)
    c.force_login(staff)
    assert c.post(reverse("audit:quarantine-delete", args=[rec.pk])).status_code == 403
    assert QuarantineRecord.objects.filter(pk=rec.pk).exists()


def test_list_shows_types_masked_preview_user_and_dates_never_the_original(staff_client, rec):
    resp = staff_client.get(reverse("audit:quarantine-list"))
    html = resp.content.decode()
    assert resp.status_code == 200
    assert "CN_MOBILE" in html and "EMAIL_ADDRESS" in html
    assert "139****5678" in html
    assert PHONE not in html and "li@example.com" not in html
    assert "alice" in html
    assert rec.expires_at.strftime("%Y-%m-%d") in html


def test_list_filters_by_type_date_range_and_user(staff_client, t0):
    a = _file("alice", f"手机{PHONE}", t0)
    b = _file("bob", "passport E12345678", t0 + dt.timedelta(days=3))
    c = _file("alice", "护照号E87654321，邮箱x@example.org", t0 + dt.timedelta(days=6))

    def ids(**params):
        resp = staff_client.get(reverse("audit:quarantine-list"), params)
        assert resp.status_code == 200
        return [r.pk for r in resp.context["page"].object_list]

    assert ids() == [c.pk, b.pk, a.pk]
    assert ids(type="CN_MOBILE") == [a.pk]
    assert ids(type="EMAIL_ADDRESS") == [c.pk]
    assert set(ids(type="CN_PASSPORT")) == {b.pk, c.pk}
    assert ids(type="PASSPORT") == []  # whole type names, not substrings of CN_PASSPORT
    assert ids(user="alice") == [c.pk, a.pk]
    day = lambda d: (t0 + dt.timedelta(days=d)).date().isoformat()  # noqa: E731
    assert ids(date_from=day(1), date_to=day(3)) == [b.pk]
    assert ids(date_from=day(3)) == [c.pk, b.pk]
    assert ids(date_to=day(0)) == [a.pk]


def test_list_rejects_bad_filters_with_400(staff_client, rec):
    assert staff_client.get(reverse("audit:quarantine-list"), {"type": "NOPE"}).status_code == 400
    assert staff_client.get(reverse("audit:quarantine-list"), {"date_from": "yesterday"}).status_code == 400
    resp = staff_client.get(reverse("audit:quarantine-list"), {"date_from": "2026-03-05", "date_to": "2026-03-01"})
    assert resp.status_code == 400


def test_list_is_paginated_with_a_constant_number_of_queries(staff_client, t0, django_assert_max_num_queries):
    for i in range(55):
        _file(f"user{i % 3}", f"手机{PHONE}", t0 + dt.timedelta(minutes=i))
    with django_assert_max_num_queries(8):
        first = staff_client.get(reverse("audit:quarantine-list"))
    assert len(first.context["page"].object_list) == 50
    second = staff_client.get(reverse("audit:quarantine-list"), {"page": 2, "user": "user0"})
    assert second.context["page"].paginator.count == 19
    resp = staff_client.get(reverse("audit:quarantine-list"), {"type": "CN_MOBILE"})
    assert "type=CN_MOBILE&amp;page=2" in resp.content.decode()  # paging keeps the filters


def test_detail_shows_hits_and_actions_but_not_the_original(staff_client, rec):
    resp = staff_client.get(reverse("audit:quarantine-detail", args=[rec.pk]))
    html = resp.content.decode()
    assert resp.status_code == 200
    assert "139****5678" in html and PHONE not in html
    assert reverse("audit:quarantine-reveal", args=[rec.pk]) in html
    assert "csrfmiddlewaretoken" in html
    assert not AuditLog.objects.filter(action="quarantine.revealed").exists()


def test_detail_of_an_unknown_record_is_404(staff_client, db):
    assert staff_client.get(reverse("audit:quarantine-detail", args=[999])).status_code == 404
    assert staff_client.post(reverse("audit:quarantine-reveal", args=[999])).status_code == 404


def test_reveal_shows_the_original_once_uncached_and_writes_an_audit_record(staff_client, staff, rec):
    resp = staff_client.post(reverse("audit:quarantine-reveal", args=[rec.pk]), follow=True)
    assert resp.status_code == 200
    assert PHONE in resp.content.decode()
    assert "no-store" in resp["Cache-Control"]
    log = AuditLog.objects.get(action="quarantine.revealed")
    assert (log.actor, log.target_id) == (staff, str(rec.pk))
    assert PHONE not in repr(log.details)
    # The next plain view is masked again.
    assert PHONE not in staff_client.get(reverse("audit:quarantine-detail", args=[rec.pk])).content.decode()


def test_revealed_original_is_escaped(staff_client, t0):
    r = _file("alice", f"<script>alert(1)</script> 手机{PHONE}", t0)
    html = staff_client.post(reverse("audit:quarantine-reveal", args=[r.pk]), follow=True).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;" in html


def test_delete_now_removes_the_record_and_audits(staff_client, staff, rec):
    resp = staff_client.post(reverse("audit:quarantine-delete", args=[rec.pk]))
    assert resp.status_code == 302 and resp["Location"] == reverse("audit:quarantine-list")
    assert not QuarantineRecord.objects.filter(pk=rec.pk).exists()
    assert AuditLog.objects.get(action="quarantine.deleted").actor == staff
    assert staff_client.post(reverse("audit:quarantine-delete", args=[rec.pk])).status_code == 404


def test_mark_false_positive_resubmits_and_reports_counts(staff_client, staff, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, SENSITIVE_WORDS=["广州"])
    r = _file("alice", "我在广州工作，负责华南区的渠道销售。", t0)
    resp = staff_client.post(reverse("audit:quarantine-false-positive", args=[r.pk]), follow=True)
    assert resp.status_code == 200
    assert "marked as a false positive" in resp.content.decode()
    assert JournalEntry.objects.filter(user__username="alice", key="city", value="广州").exists()
    assert not QuarantineRecord.objects.filter(pk=r.pk).exists()
    assert AuditLog.objects.get(action="quarantine.false_positive").actor == staff
